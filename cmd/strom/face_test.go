package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppFindsStromApp: strom app runs the strom-app beside strom's own binary
// before one on PATH, one on PATH when none is beside it, and with none at all
// says in one sentence what to install, exit status 1.
func TestAppFindsStromApp(t *testing.T) {
	h := newCLIHarness(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// link puts the test binary in dir as name: it runs as the program its name says.
	link := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := os.Link(self, p); err != nil {
			copyFile(t, self, p)
		}
		return p
	}
	// onPath is a strom-app on PATH that is not strom-app: it says where it is.
	onPath := t.TempDir()
	if err := os.WriteFile(filepath.Join(onPath, "strom-app"), []byte("#!/bin/sh\necho \"the strom-app on PATH $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := func(strom string, path ...string) (string, int) {
		cmd := exec.Command(strom, "app", "--listen", "0.0.0.0:0")
		cmd.Dir = h.dir
		cmd.Env = append(h.env, "PATH="+strings.Join(append(path, filepath.Dir(git)), string(os.PathListSeparator)))
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}

	beside := t.TempDir()
	strom := link(beside, "strom")
	link(beside, "strom-app")
	out, code := start(strom, onPath)
	if code != 2 || !strings.Contains(out, "strom: strom app listens only on a loopback address") {
		t.Errorf("with strom-app beside strom: exit %d, %q; want the strom-app beside it to refuse the address, exit 2", code, out)
	}

	alone := t.TempDir()
	strom = link(alone, "strom")
	out, code = start(strom, onPath)
	if code != 0 || out != "the strom-app on PATH --listen 0.0.0.0:0\n" {
		t.Errorf("with strom-app only on PATH: exit %d, %q; want that one run with strom app's flags", code, out)
	}

	out, code = start(strom)
	want := "strom: strom-app is not installed: it is neither beside strom (" + alone + ") nor on PATH — install it with this strom: make install in strom's source, or go install github.com/strom-research/strom/cmd/...@latest\n"
	if code != 1 || out != want {
		t.Errorf("with no strom-app: exit %d, %q; want exit 1, %q", code, out, want)
	}
}

// TestStromLinksNoFace: what only the faces need stays out of strom's binary, so
// that the commands an agent runs many times a session do not start it.
func TestStromLinksNoFace(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/strom-research/strom/harness"] {
		t.Fatalf("go list -deps names no harness: %q", out)
	}
	for _, p := range []string{
		"github.com/strom-research/strom/app", "net/http", "html/template", "crypto/tls",
		"github.com/strom-research/strom/menu", "charm.land/huh/v2", "charm.land/bubbletea/v2", "github.com/atotto/clipboard",
		"go/format",
	} {
		if deps[p] {
			t.Errorf("strom links %s, which only a face or a generator needs", p)
		}
	}
}
