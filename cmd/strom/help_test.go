package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// helpPending are the commands whose help is not said in German and Czech yet: the
// test checks only that their help prints no message id. Empty once every
// command's help is in the catalogs.
var helpPending = map[string]bool{}

// commandPaths lists every command of the tree as the words that call it.
func commandPaths(c *ffcli.Command, prefix []string) [][]string {
	out := [][]string{prefix}
	for _, sub := range c.Subcommands {
		out = append(out, commandPaths(sub, append(append([]string{}, prefix...), sub.Name))...)
	}
	return out
}

// helpIn runs strom WORDS --help in a language and returns what it printed.
func helpIn(t *testing.T, lang string, words []string) string {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"LANG": lang, "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	var out, errs bytes.Buffer
	s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, getenv: func(k string) string { return env[k] }, dir: home}
	if code := run(context.Background(), append(append([]string{}, words...), "--help"), s); code != 0 || errs.Len() > 0 {
		t.Fatalf("%s: strom %s --help: exit %d, %s", lang, strings.Join(words, " "), code, errs.String())
	}
	return out.String()
}

var (
	leftoverID = regexp.MustCompile(`(^|[\s(])(help|usage)\.[a-z][a-z0-9_.\-]*[a-z0-9]`)
	// machineWord: a word that reads the same in every language: a command, a
	// flag, a placeholder, a file, a path, a shell's variable, a value.
	machineWord = regexp.MustCompile(`^[-./\[\]<>|…"„“=:,;()0-9A-Z_~$]|\||/|^[\w-]+\.(json|jsonl|md|txt)$`)
)

// machineLine reports whether a help line holds only machine words — command
// names, flags, placeholders, values — so it may read the same in every language.
func machineLine(line string, names map[string]bool) bool {
	for _, w := range strings.Fields(line) {
		if !machineWord.MatchString(w) && !names[strings.Trim(w, ",.;:[]")] {
			return false
		}
	}
	return true
}

// machineNames are the words of commands: strom, the command names, the agents.
func machineNames(c *ffcli.Command, names map[string]bool) map[string]bool {
	names[c.Name] = true
	for _, sub := range c.Subcommands {
		machineNames(sub, names)
	}
	return names
}

// TestHelpLanguages: the help of every command, in German and in Czech, has no line
// that reads as the English one does, except lines of machine words (usage lines,
// command examples); no help in any language shows a message id instead of text.
func TestHelpLanguages(t *testing.T) {
	t.Parallel()
	root := rootCommand(&sys{getenv: func(string) string { return "" }}, nil)
	names := machineNames(root, map[string]bool{"git": true, "claude": true, "codex": true, "opencode": true,
		"grok": true, "demo": true, "true": true, "false": true, "archive": true, "research": true,
		"bash": true, "zsh": true, "fish": true, "powershell": true})
	for _, path := range commandPaths(root, nil) {
		name := strings.Join(append([]string{"strom"}, path...), " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			en := helpIn(t, "en_US.UTF-8", path)
			english := map[string]bool{}
			for _, line := range strings.Split(en, "\n") {
				english[strings.TrimSpace(line)] = true
			}
			for _, lang := range []string{"en_US.UTF-8", "de_DE.UTF-8", "cs_CZ.UTF-8"} {
				help := en
				if lang != "en_US.UTF-8" {
					help = helpIn(t, lang, path)
				}
				if m := leftoverID.FindString(help); m != "" {
					t.Errorf("%s: %s --help shows the id %q instead of its text", lang, name, strings.TrimSpace(m))
				}
				// The prose is filled to 80 columns; the usage line and the
				// tables (indented) are as they are.
				for _, line := range strings.Split(help, "\n") {
					if !strings.HasPrefix(line, " ") && utf8.RuneCountInString(line) > helpWidth {
						t.Errorf("%s: %s --help has a line of %d columns: %q", lang, name, utf8.RuneCountInString(line), line)
					}
				}
				if lang == "en_US.UTF-8" || helpPending[name] {
					continue
				}
				for _, line := range strings.Split(help, "\n") {
					if l := strings.TrimSpace(line); l != "" && english[l] && !machineLine(l, names) {
						t.Errorf("%s: %s --help says in English: %q", lang, name, l)
					}
				}
			}
		})
	}
}
