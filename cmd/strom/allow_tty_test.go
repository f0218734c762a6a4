package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowOnTerminal: a clone whose committed settings name a program refuses to
// run it; strom allow on the person's terminal shows the setting, its value and the
// commit that set it, and asks once; no keeps the refusal, yes lets the run start it.
func TestAllowOnTerminal(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	marker := filepath.Join(h.dir, "agent-ran")
	h.must(t, "init", "--agent", "command")
	cfg := `{"version": 1, "settings": {"agent.name": "command", "agent.command": "sh -c 'touch ` + marker + `; strom session close'"}}`
	if err := os.WriteFile(filepath.Join(h.repo, ".strom", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h.must(t, "task", "add", "First")
	h.git(t, "add", "-A")
	h.git(t, "commit", "-q", "-m", "the colleague's agent")

	refused := func() {
		t.Helper()
		cmd := exec.Command(h.strom, "run")
		cmd.Dir, cmd.Env = h.repo, h.env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("strom run: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), `strom: agent.command "sh -c 'touch `) || !strings.Contains(string(out), "strom allow") {
			t.Errorf("refusal: %s", out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the program ran")
		}
	}
	refused()

	r := startTTYRun(t, h, "allow")
	r.waitFor(t, "[y/N]")
	io.WriteString(r.master, "n\r")
	if code := r.wait(t); code != 1 {
		t.Fatalf("no: exit %d\n%s", code, r.text())
	}
	screen := r.text()
	for _, want := range []string{"agent.command = \"sh -c 'touch ", `not allowed · set by `, `"the colleague's agent"`, "Allow this setting for the research in ", "not confirmed"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	refused()

	screen = h.onTerminal(t, "y\r", "allow")
	if !strings.Contains(screen, "allowed this setting: strom run and strom chat may start it now") {
		t.Errorf("screen:\n%s", screen)
	}
	if out := h.must(t, "run"); !strings.Contains(out, "1 session · stopped: done") {
		t.Errorf("run: %s", out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the allowed program did not run: %v", err)
	}
}
