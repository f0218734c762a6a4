package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// strommanOut runs strom man ARGS in a language and returns what it printed.
func strommanOut(t *testing.T, lang string, args ...string) string {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"LANG": lang, "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	var out, errs bytes.Buffer
	s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, getenv: func(k string) string { return env[k] }, dir: home}
	if code := run(context.Background(), append([]string{"man"}, args...), s); code != 0 || errs.Len() > 0 {
		t.Fatalf("strom man %s: exit %d, %s", strings.Join(args, " "), code, errs.String())
	}
	return out.String()
}

// TestManPage: man/ holds the pages the current help texts make (make man writes
// them) and no other; strom.1 has every command and every flag, each command's
// page its own; groff renders every page without a warning.
func TestManPage(t *testing.T) {
	t.Parallel()
	page := strommanOut(t, "en_US.UTF-8")
	if de := strommanOut(t, "de_DE.UTF-8"); de != page {
		t.Errorf("strom man in German differs from the English page")
	}
	dir := t.TempDir()
	strommanOut(t, "cs_CZ.UTF-8", "--dir", dir)
	made, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := filepath.Glob(filepath.Join("..", "..", "man", "*.1"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if got, want := strings.Join(names(committed), " "), strings.Join(names(made), " "); got != want {
		t.Errorf("man/ holds %s, strom man --dir makes %s: run make man", got, want)
	}
	pages := map[string]string{}
	for _, p := range made {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(p)] = string(b)
		if c, err := os.ReadFile(filepath.Join("..", "..", "man", filepath.Base(p))); err != nil || string(c) != string(b) {
			t.Errorf("man/%s is not the page of the current help texts: run make man", filepath.Base(p))
		}
	}
	if pages["strom.1"] != page {
		t.Errorf("strom man --dir writes another strom.1 than strom man prints")
	}
	root := rootCommand(&sys{getenv: func(string) string { return "" }}, nil)
	for _, path := range commandPaths(root, nil) {
		if len(path) == 0 || hiddenCommands[path[0]] {
			continue
		}
		own := pages["strom-"+path[0]+".1"]
		if own == "" {
			t.Errorf("no page strom-%s.1", path[0])
		}
		c := root
		for _, w := range path {
			c = subcommand(c, w)
		}
		for _, text := range []string{page, own} {
			if len(path) > 1 {
				if want := `.SS "` + roffText(strings.Join(append([]string{"strom"}, path...), " ")) + `"`; !strings.Contains(text, want+"\n") {
					t.Errorf("a page has no section %s", want)
				}
			}
			for _, f := range flagNames(c) {
				if !strings.Contains(text, `\fB`+roffText(flagForm(f))) {
					t.Errorf("strom %s: a page does not show %s", strings.Join(path, " "), flagForm(f))
				}
			}
		}
	}
	for name, text := range pages {
		if strings.ContainsFunc(text, func(r rune) bool { return r > 0x7e }) {
			t.Errorf("%s has characters outside ASCII; roff reads them as \\[uXXXX]", name)
		}
		// groff is the formatter man uses: it must read the page without a warning.
		if _, err := exec.LookPath("groff"); err == nil {
			cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
			cmd.Stdin = strings.NewReader(text)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				t.Errorf("groff %s: %v\n%s", name, err, stderr.String())
			}
		}
	}
}

// flagNames are the names of a command's flags.
func flagNames(c *ffcli.Command) []string {
	var out []string
	if c.FlagSet != nil {
		c.FlagSet.VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
	}
	return out
}

// TestCompletionsCommitted: completions/ holds what strom completion prints for each
// shell in English (make man writes them), as the releases install them.
func TestCompletionsCommitted(t *testing.T) {
	t.Parallel()
	for shell, file := range map[string]string{"bash": "strom.bash", "zsh": "_strom", "fish": "strom.fish", "powershell": "strom.ps1"} {
		home := t.TempDir()
		env := map[string]string{"LANG": "C.UTF-8", "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
		var out, errs bytes.Buffer
		s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, getenv: func(k string) string { return env[k] }, dir: home}
		if code := run(context.Background(), []string{"completion", shell}, s); code != 0 || errs.Len() > 0 {
			t.Fatalf("strom completion %s: exit %d, %s", shell, code, errs.String())
		}
		committed, err := os.ReadFile(filepath.Join("..", "..", "completions", file))
		if err != nil {
			t.Errorf("completions/%s: %v: run make man", file, err)
			continue
		}
		if !bytes.Equal(committed, out.Bytes()) {
			t.Errorf("completions/%s is not what strom completion %s prints: run make man", file, shell)
		}
	}
}
