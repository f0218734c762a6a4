package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayers: the module's packages, as `go list -deps -json ./...` reports their
// imports, keep the layering of AGENTS.md (Rules), with no import against it but
// the Debts.
func TestLayers(t *testing.T) {
	t.Parallel()
	graph := listGraph(t, "", "./...")
	for _, want := range []string{"cmd/strom", "harness", "harness/gitrepo", "statefiles", "messages", "internal/layers"} {
		if _, ok := graph[want]; !ok {
			t.Fatalf("go list gave no package %s: the graph is not the module's", want)
		}
	}
	for _, p := range Check(graph, Rules, Debts) {
		t.Error(p)
	}
}

// TestLayersWrongImport: a file added to a real package with an import against
// the layering (gates importing a session, through go list's -overlay, so the
// tree stays as it is) fails the same check TestLayers makes.
func TestLayersWrongImport(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "wrong.go")
	code := "package gates\n\nimport _ \"github.com/strom-research/strom/harness/session\"\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(root, "harness", "gates", "zz_wrong_import.go"): src,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ofile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ofile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	graph := listGraph(t, ofile, "./harness/gates")
	got := Check(graph, Rules, nil)
	if len(got) != 1 || !strings.HasPrefix(got[0], "harness/gates imports harness/session, against the rule for harness/gates") {
		t.Fatalf("Check with gates importing a session = %q, want that one import named", got)
	}
	// Without the file, the same packages keep the layering.
	if got := Check(listGraph(t, "", "./harness/gates"), Rules, nil); len(got) != 0 {
		t.Fatalf("Check of gates as it is = %q", got)
	}
}

// moduleRoot is the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod)))
}

// listGraph is the module's import graph of the packages named and their
// dependencies, as go list -deps -json reports it (with the overlay file given,
// when not "").
func listGraph(t *testing.T, overlay string, pkgs ...string) map[string][]string {
	t.Helper()
	args := []string{"list", "-deps", "-json"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph, err := moduleGraph(out)
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

// moduleGraph reads the packages of go list -json output that belong to the main
// module: each path inside the module, with its imports inside the module.
func moduleGraph(out []byte) (map[string][]string, error) {
	var mod string
	type pkg struct {
		ImportPath string
		Imports    []string
		Module     *struct {
			Path string
			Main bool
		}
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Module != nil && p.Module.Main {
			mod = p.Module.Path
			pkgs = append(pkgs, p)
		}
	}
	if mod == "" {
		return nil, errors.New("go list reported no package of the main module")
	}
	graph := map[string][]string{}
	for _, p := range pkgs {
		var imports []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, mod+"/"); ok {
				imports = append(imports, rel)
			}
		}
		graph[strings.TrimPrefix(p.ImportPath, mod+"/")] = imports
	}
	return graph, nil
}

// TestCheck runs the checker on made-up graphs: the layering kept passes, and each
// kind of wrong import, a package without a rule and a paid debt are named.
func TestCheck(t *testing.T) {
	t.Parallel()
	kept := map[string][]string{
		"cmd/strom":                 {"harness", "harness/gitrepo", "statefiles", "messages", "internal/clock"},
		"cmd/strom-app":             {"app"},
		"app":                       {"harness", "harness/session", "messages"},
		"harness":                   {"harness/session", "harness/gitrepo", "statefiles", "agentpty", "hooks", "internal/clock"},
		"harness/session":           {"harness/gitrepo", "harness/limits", "statefiles", "messages"},
		"harness/gates/claudeusage": {"harness/limits"},
		"harness/gates":             {"harness/research", "harness/runfiles", "harness/ends", "agentpty"},
		"harness/queue":             {"harness/mode", "harness/runfiles", "harness/research", "harness/gitrepo"},
		"harness/runfiles":          {"harness/research", "statefiles"},
		"harness/research":          {"harness/gitrepo", "harness/remote", "harness/consent", "statefiles", "hooks"},
		"harness/remote":            {"harness/gitrepo"},
		"harness/gitrepo":           nil,
		"harness/limits":            nil,
		"statefiles":                {"schemas", "messages", "internal/termsafe"},
		"schemas":                   nil,
		"agentpty":                  {"internal/clock"},
		"messages":                  nil,
		"messages/internal/gen":     {"messages/internal/src"},
		"internal/clock":            nil,
		"statefiles/internal/gen":   {"schemas"},
	}
	if got := Check(kept, Rules, nil); len(got) != 0 {
		t.Fatalf("the layering kept: %q", got)
	}
	for _, tc := range []struct {
		name  string
		pkg   string
		add   string
		debts []Debt
		want  string
	}{
		{name: "a room imports its parent", pkg: "harness/session", add: "harness", want: "harness/session imports harness"},
		{name: "a room's room imports the parent", pkg: "harness/gates/claudeusage", add: "harness", want: "harness/gates/claudeusage imports harness"},
		{name: "a room imports one above it", pkg: "harness/queue", add: "harness/session", want: "harness/queue imports harness/session"},
		{name: "research imports the run's files", pkg: "harness/research", add: "harness/runfiles", want: "harness/research imports harness/runfiles"},
		{name: "gates imports a session", pkg: "harness/gates", add: "harness/session", want: "harness/gates imports harness/session"},
		{name: "a tool imports a room", pkg: "harness/remote", add: "harness/research", want: "harness/remote imports harness/research"},
		{name: "a new room without a rule", pkg: "harness/newroom", add: "harness/gitrepo", want: "harness/newroom imports harness/gitrepo"},
		{name: "gitrepo imports strom", pkg: "harness/gitrepo", add: "messages", want: "harness/gitrepo imports messages"},
		{name: "limits imports a leaf", pkg: "harness/limits", add: "internal/clock", want: "harness/limits imports internal/clock"},
		{name: "agentpty imports harness", pkg: "agentpty", add: "harness", want: "agentpty imports harness"},
		{name: "a face imports the state files", pkg: "app", add: "statefiles", want: "app imports statefiles"},
		{name: "statefiles imports upwards", pkg: "statefiles", add: "harness", want: "statefiles imports harness"},
		{name: "messages imports anything", pkg: "messages", add: "internal/clock", want: "messages imports internal/clock"},
		{name: "a leaf imports strom", pkg: "internal/clock", add: "messages", want: "internal/clock imports messages"},
		{name: "cmd/strom imports a face", pkg: "cmd/strom", add: "menu", want: "cmd/strom imports menu"},
		{name: "a package without a rule", pkg: "util", want: "util: no rule"},
		{name: "a paid debt", debts: []Debt{{Pkg: "app", Imports: "statefiles"}}, want: "app no longer imports statefiles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := map[string][]string{}
			for k, v := range kept {
				g[k] = slices.Clone(v)
			}
			if tc.pkg != "" {
				g[tc.pkg] = append(g[tc.pkg], tc.add)
				if tc.add == "" {
					g[tc.pkg] = nil
				}
			}
			got := Check(g, Rules, tc.debts)
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Fatalf("Check = %q, want one problem: %s…", got, tc.want)
			}
			// The same import, named as a debt, passes.
			if tc.add != "" {
				if got := Check(g, Rules, []Debt{{Pkg: tc.pkg, Imports: tc.add}}); len(got) != 0 {
					t.Fatalf("with the import as a debt: %q", got)
				}
			}
		})
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"harness", "harness", true},
		{"harness", "harness/gates", false},
		{"harness/...", "harness", false},
		{"harness/...", "harness/gates", true},
		{"harness/...", "harness/gates/claudeusage", true},
		{"harness/...", "harnessx/y", false},
		{"cmd/strom", "cmd/strom-app", false},
	} {
		if got := Match(tc.pattern, tc.path); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
}
