package consent

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/statefiles"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fileNames(vs []Value) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.File)
	}
	slices.Sort(out)
	return out
}

// TestFileValues: each agent's own project files are found in the work tree, and
// only those of the agent in use; what the agent's program writes there itself
// (OpenCode's installed packages, Grok CLI's model) needs no allowing.
func TestFileValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".claude/settings.json":             `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/x"}]}]}}`,
		".claude/commands/go.md":            "a prompt, not a program",
		".mcp.json":                         `{"mcpServers":{"x":{"command":"sh"}}}`,
		"opencode.json":                     `{"mcp":{"x":{"type":"local","command":["sh"]}}}`,
		".opencode/plugins/p.js":            "export const P = async () => ({})",
		".opencode/node_modules/m/index.js": "installed by OpenCode",
		".opencode/bun.lock":                "lock",
		".opencode/.gitignore":              "node_modules\n",
		".opencode/package.json":            `{"dependencies":{"@opencode-ai/plugin":"1.0.0"}}`,
		".codex/config.toml":                "[mcp_servers.x]\ncommand = \"sh\"\n",
		".grok/settings.json":               `{"model":"grok-code-fast-1"}`,
		"notes/.mcp.json":                   "not at the top",
		".strom/config.json":                `{"version":1}`,
	})
	cases := []struct {
		program string
		want    []string
	}{
		{"claude", []string{".claude/settings.json", ".mcp.json"}},
		{"opencode", []string{".opencode/plugins/p.js", "opencode.json"}},
		{"codex", []string{".codex/config.toml"}},
		{"grok", nil},
		{"", nil},
		{"my-agent", nil},
	}
	for _, c := range cases {
		vs, err := FileValues(dir, c.program)
		if err != nil {
			t.Fatal(err)
		}
		if got := fileNames(vs); !slices.Equal(got, c.want) {
			t.Errorf("%q: files %q, want %q", c.program, got, c.want)
		}
		for _, v := range vs {
			if v.Setting != v.File || len(v.SHA256) != 64 || v.Program != c.program || v.Shown() != "sha256 "+v.SHA256 {
				t.Errorf("%q: value %+v", c.program, v)
			}
		}
	}

	// A package.json that does more than list dependencies, and Grok CLI's MCP
	// servers, need allowing.
	writeFiles(t, dir, map[string]string{
		".opencode/package.json": `{"dependencies":{"@opencode-ai/plugin":"1.0.0"},"scripts":{"postinstall":"sh evil.sh"}}`,
		".grok/settings.json":    `{"model":"grok-code-fast-1","mcpServers":{"x":{"command":"sh"}}}`,
	})
	if vs, _ := FileValues(dir, "opencode"); !slices.Contains(fileNames(vs), ".opencode/package.json") {
		t.Errorf("a package.json with scripts: %q", fileNames(vs))
	}
	before, _ := FileValues(dir, "grok")
	if len(before) != 1 || before[0].File != ".grok/settings.json" {
		t.Fatalf("grok's MCP servers: %+v", before)
	}
	// Its model changing changes nothing; its servers changing does.
	writeFiles(t, dir, map[string]string{".grok/settings.json": `{"model":"grok-4","mcpServers":{"x":{"command":"sh"}}}`})
	if after, _ := FileValues(dir, "grok"); len(after) != 1 || after[0].SHA256 != before[0].SHA256 {
		t.Errorf("the model changed the hash: %+v %+v", before, after)
	}
	writeFiles(t, dir, map[string]string{".grok/settings.json": `{"mcpServers":{"x":{"command":"bash"}}}`})
	if after, _ := FileValues(dir, "grok"); len(after) != 1 || after[0].SHA256 == before[0].SHA256 {
		t.Errorf("changed servers kept the hash: %+v %+v", before, after)
	}

	// A name that would break a line is shown on one.
	writeFiles(t, dir, map[string]string{".opencode/tools/a\nStrom-Fake: x.js": "x"})
	vs, _ := FileValues(dir, "opencode")
	if !slices.ContainsFunc(vs, func(v Value) bool {
		return v.File == ".opencode/tools/a\nStrom-Fake: x.js" && v.Setting == `.opencode/tools/a\nStrom-Fake: x.js`
	}) {
		t.Errorf("a name with a newline: %+v", vs)
	}

	// A symbolic link is named by where it points.
	if err := os.Symlink("/etc/elsewhere.json", filepath.Join(dir, ".opencode", "plugins", "l.js")); err != nil {
		t.Fatal(err)
	}
	if vs, err := FileValues(dir, "opencode"); err != nil || !slices.Contains(fileNames(vs), ".opencode/plugins/l.js") {
		t.Errorf("a link: %q %v", fileNames(vs), err)
	}
}

// TestCheckAgentFilesAndOwn: a review refuses a tree agent.name that differs from
// the person's own and a new or changed file of the agent in use, until allowed; a
// tree value equal to the person's own needs nothing.
func TestCheckAgentFilesAndOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	home := t.TempDir()
	store := NewStore(func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return home
		}
		return ""
	})
	research := Research{Root: strings.Repeat("a", 40), Path: dir}
	identify := func(context.Context) (Research, error) { return research, nil }
	tree := statefiles.NewConfig()
	tree.Settings = map[string]any{"agent.name": "opencode", "run.minutes": int64(30)}
	own := map[string]string{"agent.name": "claude"}
	sub := Subject{Tree: tree, File: ".strom/config.json", Root: dir, Program: "opencode",
		Own: func(k string) (string, bool) { v, ok := own[k]; return v, ok }}

	rv, err := Check(ctx, store, sub, identify)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.NotAllowed) != 1 || rv.NotAllowed[0].Setting != "agent.name" {
		t.Fatalf("the tree's agent passed: %+v", rv)
	}
	want := `agent.name "opencode" in .strom/config.json starts a program and is not allowed on this computer — only a person at a terminal can allow it: run strom allow in one`
	if got := rv.Err(false).Error(); got != want {
		t.Errorf("sentence:\n got %s\nwant %s", got, want)
	}
	// The person's own agent: nothing to allow, and no identity asked.
	own["agent.name"] = "opencode"
	rv, err = Check(ctx, store, sub, func(context.Context) (Research, error) {
		t.Error("identity asked with nothing to allow")
		return research, nil
	})
	if err != nil || len(rv.Values) != 0 {
		t.Fatalf("own value: %+v %v", rv, err)
	}
	// A command's --agent: the tree's agent.name chooses nothing.
	own["agent.name"] = "claude"
	if rv, _ = Check(ctx, store, Subject{Tree: tree, Own: sub.Own, Unused: []string{"agent.name"}}, identify); len(rv.Values) != 0 {
		t.Errorf("agent.name under --agent: %+v", rv)
	}

	// A plugin arrives: refused by its file's name, with the agent's.
	writeFiles(t, dir, map[string]string{".opencode/plugins/p.js": "export const P = 1"})
	rv, _ = Check(ctx, store, sub, identify)
	if len(rv.NotAllowed) != 2 {
		t.Fatalf("review: %+v", rv.NotAllowed)
	}
	if got := rv.Err(true).Error(); got != `agent.name "opencode" in .strom/config.json and OpenCode's own .opencode/plugins/p.js start programs and are not allowed on this computer — see where they came from and allow them with strom allow` {
		t.Errorf("mixed sentence: %s", got)
	}
	if err := store.Allow(ctx, research, rv.NotAllowed, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if rv, _ = Check(ctx, store, sub, identify); !rv.OK() || len(rv.Values) != 2 {
		t.Fatalf("allowed, still refused: %+v", rv)
	}
	// Changed: refused again, the setting stays allowed.
	writeFiles(t, dir, map[string]string{".opencode/plugins/p.js": "export const P = 2", ".mcp.json": `{}`})
	rv, _ = Check(ctx, store, sub, identify)
	if len(rv.NotAllowed) != 1 || rv.NotAllowed[0].File != ".opencode/plugins/p.js" {
		t.Fatalf("a changed plugin: %+v", rv.NotAllowed)
	}
	want = `the file .opencode/plugins/p.js, which OpenCode loads by itself and which can make it run programs, is new or changed and not allowed on this computer — only a person at a terminal can allow it: run strom allow in one`
	if got := rv.Err(false).Error(); got != want {
		t.Errorf("file sentence:\n got %s\nwant %s", got, want)
	}
	// Claude Code's files count when Claude Code starts, not OpenCode's.
	sub.Program = "claude"
	rv, _ = Check(ctx, store, sub, identify)
	if got := fileNames(rv.NotAllowed); !slices.Equal(got, []string{".mcp.json"}) {
		t.Errorf("claude: %q", got)
	}
}

// TestFileOrigins: strom allow says which commit brought an agent's file as it is.
func TestFileOrigins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, dir := gitRepo(t)
	commit := func(msg string) {
		t.Helper()
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", msg}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
				"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x",
				"GIT_AUTHOR_DATE=2026-11-30T09:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T09:00:00Z")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	writeFiles(t, dir, map[string]string{".mcp.json": `{"mcpServers":{}}`})
	commit("servers")
	writeFiles(t, dir, map[string]string{"other.txt": "x"})
	commit("other")
	vs, err := FileValues(dir, "claude")
	if err != nil || len(vs) != 1 {
		t.Fatalf("values: %+v %v", vs, err)
	}
	org, err := Origins(ctx, g, ".strom/config.json", vs)
	if err != nil {
		t.Fatal(err)
	}
	if o := org[".mcp.json"]; o.Commit == nil || o.Commit.Subject != "servers" {
		t.Errorf("origin: %+v", o)
	}
	writeFiles(t, dir, map[string]string{".mcp.json": `{"mcpServers":{"x":{"command":"sh"}}}`})
	vs, _ = FileValues(dir, "claude")
	if org, _ := Origins(ctx, g, ".strom/config.json", vs); !org[".mcp.json"].Uncommitted {
		t.Errorf("an uncommitted change: %+v", org[".mcp.json"])
	}
}

// TestFileValuesThroughLinks: an agent file that is a symbolic link to a file of
// the research, or that lies in a linked folder of the research, is hashed with
// what the agent's program reads through it, so a change of the file it points to
// needs allowing as a change of the file itself would; a link that leaves the
// research is named by where it points, and a link that loops ends the walk.
func TestFileValuesThroughLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/servers.json":     `{"mcpServers":{}}`,
		"tools/oc/plugins/p.js": "export const P = async () => ({})",
		"tools/oc/bun.lock":     "lock",
		"src/codex/config.toml": "model = \"x\"\n",
	})
	links := map[string]string{
		".mcp.json":              "docs/servers.json",
		".opencode":              "tools/oc",
		".codex":                 "src/codex",
		"src/codex/loop":         ".",
		"src/codex/out.toml":     "/etc/elsewhere.toml",
		"tools/oc/plugins/up.js": "../../../docs/servers.json",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	hashes := func(program string) map[string]string {
		t.Helper()
		vs, err := FileValues(dir, program)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, v := range vs {
			out[v.File] = v.SHA256
			if strings.HasPrefix(FileWhyID(program, v.File), "allow.why.file_") && strings.HasSuffix(FileWhyID(program, v.File), "_") {
				t.Errorf("%s: no reason of its own: %s", v.File, FileWhyID(program, v.File))
			}
		}
		return out
	}
	before := map[string]map[string]string{"claude": hashes("claude"), "opencode": hashes("opencode"), "codex": hashes("codex")}
	for program, want := range map[string][]string{
		"claude":   {".mcp.json"},
		"opencode": {".opencode/plugins/p.js", ".opencode/plugins/up.js"},
		"codex":    {".codex/config.toml", ".codex/loop", ".codex/out.toml"},
	} {
		got := slices.Sorted(maps.Keys(before[program]))
		if !slices.Equal(got, want) {
			t.Errorf("%s: files %q, want %q", program, got, want)
		}
	}

	writeFiles(t, dir, map[string]string{
		"docs/servers.json":     `{"mcpServers":{"x":{"command":"sh"}}}`,
		"tools/oc/plugins/p.js": "export const P = async ({ $ }) => { await $`touch /tmp/x` }",
		"src/codex/config.toml": "[mcp_servers.x]\ncommand = \"sh\"\n",
	})
	for program, changed := range map[string][]string{
		"claude":   {".mcp.json"},
		"opencode": {".opencode/plugins/p.js", ".opencode/plugins/up.js"},
		"codex":    {".codex/config.toml"},
	} {
		after := hashes(program)
		for _, f := range changed {
			if after[f] == before[program][f] {
				t.Errorf("%s: %s kept its hash when the file it reads changed", program, f)
			}
		}
		if program == "codex" && after[".codex/out.toml"] != before[program][".codex/out.toml"] {
			t.Errorf("a link out of the research changed its hash")
		}
	}
}
