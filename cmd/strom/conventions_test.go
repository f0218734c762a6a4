package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// snakeKey is the one style of every key strom's --json prints.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonKeysCmd is the testscript command jsonkeys [-old KEY,…] FILE…: every key
// of every JSON value in the files (one value or several, one after the other)
// is snake_case; -old names the keys kept for one release beside their new names.
func jsonKeysCmd(ts *testscript.TestScript, neg bool, args []string) {
	var old []string
	if len(args) > 1 && args[0] == "-old" {
		old, args = strings.Split(args[1], ","), args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: jsonkeys [-old KEY,…] FILE…")
	}
	var bad []string
	for _, name := range args {
		b, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		dec := json.NewDecoder(bytes.NewReader(b))
		n := 0
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				ts.Fatalf("%s: %v", name, err)
			}
			n++
			walkKeys(v, func(k string) {
				if !snakeKey.MatchString(k) && !slices.Contains(old, k) {
					bad = append(bad, name+": "+k)
				}
			})
		}
		if n == 0 {
			ts.Fatalf("%s: no JSON", name)
		}
	}
	if neg != (len(bad) > 0) {
		if neg {
			ts.Fatalf("every key is snake_case")
		}
		ts.Fatalf("keys not in snake_case: %s", strings.Join(bad, ", "))
	}
}

// walkKeys calls key with every object key in v, at any depth.
func walkKeys(v any, key func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			key(k)
			walkKeys(x, key)
		}
	case []any:
		for _, x := range v {
			walkKeys(x, key)
		}
	}
}

// TestCompletionCoversTree: the script of every shell names every command that is
// not hidden and every flag of each, as made from the command tree.
func TestCompletionCoversTree(t *testing.T) {
	t.Parallel()
	root := rootCommand(&sys{getenv: func(string) string { return "" }}, nil)
	for _, shell := range completionShells {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			var out, errs bytes.Buffer
			s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, getenv: func(k string) string {
				return map[string]string{"HOME": home, "LANG": "en_US.UTF-8"}[k]
			}, dir: home}
			if code := run(context.Background(), []string{"completion", shell}, s); code != 0 || errs.Len() > 0 {
				t.Fatalf("strom completion %s: exit %d, %s", shell, code, errs.String())
			}
			script := out.String()
			for _, path := range commandPaths(root, nil) {
				if len(path) > 0 && hiddenCommands[path[0]] {
					if strings.Contains(script, "'"+path[0]+"'") || strings.Contains(script, "/"+path[0]+"'") {
						t.Errorf("the %s script offers the hidden command %s", shell, path[0])
					}
					continue
				}
				c := root
				for _, w := range path {
					c = subcommand(c, w)
				}
				if len(path) > 0 && !strings.Contains(script, path[len(path)-1]) {
					t.Errorf("the %s script has no command %q", shell, strings.Join(path, " "))
				}
				// The words strom completion offers at this command are its
				// commands and flags.
				for _, f := range flagNames(c) {
					if !strings.Contains(script, flagForm(f)) && !strings.Contains(script, "'"+f+"'") {
						t.Errorf("the %s script has no flag %s of strom %s", shell, flagForm(f), strings.Join(path, " "))
					}
				}
			}
		})
	}
}
