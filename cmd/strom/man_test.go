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

// manPage is what strom man prints, in a language other than English too: the page
// is English whatever the person speaks.
func manPage(t *testing.T, lang string) string {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"LANG": lang, "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	var out, errs bytes.Buffer
	s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, getenv: func(k string) string { return env[k] }, dir: home}
	if code := run(context.Background(), []string{"man"}, s); code != 0 || errs.Len() > 0 {
		t.Fatalf("strom man: exit %d, %s", code, errs.String())
	}
	return out.String()
}

// TestManPage: man/strom.1 is the page the current help texts make (make man
// writes it), it has every command and every flag, and groff renders it without
// a warning.
func TestManPage(t *testing.T) {
	t.Parallel()
	page := manPage(t, "en_US.UTF-8")
	if de := manPage(t, "de_DE.UTF-8"); de != page {
		t.Errorf("strom man in German differs from the English page")
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "man", "strom.1"))
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != page {
		t.Errorf("man/strom.1 is not the page of the current help texts: run make man")
	}
	root := rootCommand(&sys{getenv: func(string) string { return "" }}, nil)
	for _, path := range commandPaths(root, nil) {
		if len(path) == 0 || hiddenCommands[path[0]] {
			continue
		}
		if want := `.SS "` + roffText(strings.Join(append([]string{"strom"}, path...), " ")) + `"`; !strings.Contains(page, want+"\n") {
			t.Errorf("the page has no section %s", want)
		}
		c := root
		for _, w := range path {
			c = subcommand(c, w)
		}
		for _, f := range flagNames(c) {
			if !strings.Contains(page, `\fB`+roffText(flagForm(f))) {
				t.Errorf("strom %s: the page does not show %s", strings.Join(path, " "), flagForm(f))
			}
		}
	}
	if strings.ContainsFunc(page, func(r rune) bool { return r > 0x7e }) {
		t.Errorf("the page has characters outside ASCII; roff reads them as \\[uXXXX]")
	}
	// groff is the formatter man uses: it must read the page without a warning.
	if _, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(page)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("groff: %v\n%s", err, stderr.String())
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
