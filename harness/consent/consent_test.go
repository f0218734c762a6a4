package consent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/schemas"
	"github.com/strom-research/strom/statefiles"
)

// schemaKeys walks a JSON Schema and returns the place of every key a file can hold:
// "settings/check.command", "agents/*/command" (any name), "agents/*/permissions/*".
func schemaKeys(t *testing.T, root map[string]any) []string {
	t.Helper()
	var out []string
	var walk func(node map[string]any, path []string)
	resolve := func(node map[string]any) map[string]any {
		for {
			ref, ok := node["$ref"].(string)
			if !ok {
				return node
			}
			name, found := strings.CutPrefix(ref, "#/$defs/")
			if !found {
				t.Fatalf("schema $ref %q: only #/$defs/ refs are walked", ref)
			}
			node = root["$defs"].(map[string]any)[name].(map[string]any)
		}
	}
	walk = func(node map[string]any, path []string) {
		node = resolve(node)
		inner := false
		if props, ok := node["properties"].(map[string]any); ok {
			inner = true
			for k, v := range props {
				walk(v.(map[string]any), append(slices.Clone(path), k))
			}
		}
		if add, ok := node["additionalProperties"].(map[string]any); ok {
			inner = true
			walk(add, append(slices.Clone(path), "*"))
		}
		if !inner && len(path) > 0 {
			out = append(out, strings.Join(path, "/"))
		}
	}
	walk(root, nil)
	slices.Sort(out)
	return out
}

// TestEveryKeyIsClassified fails for a key of the settings file that Rules does not
// classify: a new setting must say whether it starts a program.
func TestEveryKeyIsClassified(t *testing.T) {
	t.Parallel()
	data, err := schemas.FS.ReadFile(schemas.Config)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	keys := schemaKeys(t, root)
	if !slices.Contains(keys, "settings/check.command") || !slices.Contains(keys, "agents/*/command") {
		t.Fatalf("the schema walk missed keys: %v", keys)
	}
	for _, k := range statefiles.Keys {
		if !slices.Contains(keys, "settings/"+k.Name) {
			keys = append(keys, "settings/"+k.Name)
		}
	}
	for _, k := range keys {
		if _, ok := RuleFor(k); !ok {
			t.Errorf("the settings key %s is not classified: add it to consent.Rules, with Runs: true when the tree's value starts a program or changes what starts", k)
		}
	}
	for _, want := range []string{"settings/check.command", "settings/agent.command", "agents/x/command", "archives/x/probe", "settings/agent.permissions", "settings/agent.claudeConfigDir",
		"settings/agent.name", "settings/agent.claudeMode", "agents/x/binary", "agents/x/permissions", "agents/x/prompt"} {
		if r, ok := RuleFor(want); !ok || !r.Runs {
			t.Errorf("%s must need a person's allowing", want)
		}
	}
	for _, r := range Rules {
		if r.Why == "" {
			t.Errorf("rule %s says nothing of why", r.Path)
		}
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	c := statefiles.NewConfig()
	c.Settings = map[string]any{"check.command": "touch x", "run.minutes": int64(30), "agent.name": "mine"}
	c.Agents = map[string]json.RawMessage{
		"mine":   json.RawMessage(`{"command": ["sh", "-c", "echo <hi>"], "limit": ["usage limit"]}`),
		"claude": json.RawMessage(`{"permissions": {"bypass": ["--x"], "ask": []}}`),
	}
	vs, err := Values(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Setting+"="+v.Text)
	}
	want := []string{
		"check.command=touch x",
		"agent.name=mine",
		`agents.mine.command=["sh","-c","echo <hi>"]`,
		`agents.claude.permissions={"ask":[],"bypass":["--x"]}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("values:\n got %q\nwant %q", got, want)
	}
	if got := vs[0].Shown(); got != `"touch x"` {
		t.Errorf("a string is shown quoted: %s", got)
	}
	if got := vs[2].Shown(); got != `["sh","-c","echo <hi>"]` {
		t.Errorf("JSON is shown as JSON: %s", got)
	}
	// The same value, written differently, hashes the same.
	c2 := statefiles.NewConfig()
	c2.Agents = map[string]json.RawMessage{"claude": json.RawMessage(`{"permissions":{"ask":[],   "bypass":["--x"]}}`)}
	vs2, _ := Values(c2)
	if len(vs2) != 1 || vs2[0].SHA256 != vs[3].SHA256 {
		t.Errorf("the same value hashes differently: %v %v", vs2, vs[3])
	}
	if none, _ := Values(nil); none != nil {
		t.Errorf("no tree: %v", none)
	}
	// An archive's probe is guarded the moment the file has one.
	arch, err := valuesOf([]byte(`{"version":1,"archives":{"parish":{"probe":"curl -sf https://x","url":"u"}}}`))
	if err != nil || len(arch) != 1 || arch[0].Setting != "archives.parish.probe" {
		t.Errorf("archives: %v %v", arch, err)
	}
}

func gitRepo(t *testing.T) (*gitrepo.Repo, string) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x",
			"GIT_AUTHOR_DATE=2026-11-30T09:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T09:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, ".strom"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".strom", "config.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	write(`{"version":1}`)
	run("add", ".")
	run("commit", "-q", "-m", "start")
	write(`{"version":1,"settings":{"check.command":"make check"}}`)
	run("commit", "-q", "-am", "the check")
	write(`{"version":1,"settings":{"check.command":"make check","run.minutes":30}}`)
	run("commit", "-q", "-am", "shorter sessions")
	g, err := gitrepo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, dir
}

func TestCheckAllowRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, dir := gitRepo(t)
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return home
		}
		return ""
	}
	store := NewStore(getenv)
	tree := statefiles.At(dir)
	load := func() *statefiles.Config {
		c, err := tree.TreeConfig().Load()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	gitFn := func(ctx context.Context) (Research, error) { return Identify(ctx, g) }
	sub := func() Subject { return Subject{Tree: load(), File: ".strom/config.json"} }
	rv, err := Check(ctx, store, sub(), gitFn)
	if err != nil {
		t.Fatal(err)
	}
	if rv.OK() || len(rv.NotAllowed) != 1 || rv.NotAllowed[0].Setting != "check.command" {
		t.Fatalf("review: %+v", rv)
	}
	var na *NotAllowedError
	err = rv.Err(false)
	if !errors.As(err, &na) || !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("err: %v", err)
	}
	want := `check.command "make check" in .strom/config.json starts a program and is not allowed on this computer — only a person at a terminal can allow it: run strom allow in one`
	if err.Error() != want {
		t.Errorf("sentence:\n got %s\nwant %s", err, want)
	}
	if rv.Research.Root == "" || rv.Research.Path == "" {
		t.Errorf("identity: %+v", rv.Research)
	}

	// Where it came from: the commit that set it, not the later one that kept it.
	org, err := Origins(ctx, g, ".strom/config.json", rv.Values)
	if err != nil {
		t.Fatal(err)
	}
	if o := org["check.command"]; o.Commit == nil || o.Commit.Subject != "the check" {
		t.Errorf("origin: %+v", o)
	}

	if err := store.Allow(ctx, rv.Research, rv.NotAllowed, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if rv, _ = Check(ctx, store, sub(), gitFn); !rv.OK() {
		t.Fatalf("allowed, still refused: %+v", rv)
	}

	// A changed value is not allowed, and is not committed.
	if err := os.WriteFile(filepath.Join(dir, ".strom", "config.json"), []byte(`{"version":1,"settings":{"check.command":"make check; touch x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rv, _ = Check(ctx, store, sub(), gitFn)
	if rv.OK() {
		t.Fatal("a changed value passed")
	}
	if org, _ := Origins(ctx, g, ".strom/config.json", rv.Values); !org["check.command"].Uncommitted {
		t.Errorf("origin of an uncommitted value: %+v", org)
	}

	// The same value in another research is not allowed.
	if NotAllowed(&statefiles.Allowed{Entries: []statefiles.AllowedEntry{{Root: "x", Path: rv.Research.Path, Setting: "check.command", SHA256: rv.Values[0].SHA256}}}, rv.Research, rv.Values) == nil {
		t.Error("an entry of another research allowed the value")
	}

	gone, err := store.Revoke(ctx, rv.Research, nil)
	if err != nil || len(gone) != 1 {
		t.Fatalf("revoke: %v %v", gone, err)
	}
	a, err := store.Load()
	if err != nil || len(a.Entries) != 0 {
		t.Fatalf("after revoke: %+v %v", a, err)
	}
}

// TestIdentifyTree: the research's identity without git is the one git gives, kept
// in the roots cache by HEAD commit, and read from there the next time.
func TestIdentifyTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, dir := gitRepo(t)
	want, err := Identify(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	roots := filepath.Join(t.TempDir(), "roots")
	open := func(context.Context) (*gitrepo.Repo, error) { return g, nil }
	got, err := IdentifyTree(ctx, dir, roots, open)
	if err != nil || got != want {
		t.Fatalf("IdentifyTree = %+v, %v; Identify = %+v", got, err, want)
	}
	head, err := g.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(roots); string(data) != head+" "+want.Root+"\n" {
		t.Fatalf("roots cache: %q", data)
	}
	// The cache answers: an entry for this HEAD is believed without asking git.
	other := strings.Repeat("a", 40)
	if err := os.WriteFile(roots, []byte(head+" "+other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := IdentifyTree(ctx, dir, roots, open); got.Root != other {
		t.Errorf("the cache was not read: %+v", got)
	}
	// A commit on top of a HEAD the cache knows takes its parent's root, kept
	// then for itself: git is not asked to walk the history again.
	if err := os.WriteFile(filepath.Join(dir, "next.txt"), []byte("next\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "next.txt"}, {"commit", "-q", "-m", "next"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x",
			"GIT_AUTHOR_DATE=2026-11-30T10:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T10:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	next, err := g.Head(ctx)
	if err != nil || next == head {
		t.Fatalf("HEAD after a commit: %s, %v", next, err)
	}
	if got, _ := IdentifyTree(ctx, dir, roots, open); got.Root != other {
		t.Errorf("a commit on a known HEAD: %+v, want its parent's root %s", got, other)
	}
	if data, _ := os.ReadFile(roots); !strings.Contains(string(data), next+" "+other+"\n") {
		t.Errorf("the new HEAD's root was not kept: %q", data)
	}
	// Two commits more (sessions while no command asked): the nearest first parent
	// the cache knows answers, not a walk of the whole history.
	for i := range 2 {
		cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("later %d", i))
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x",
			"GIT_AUTHOR_DATE=2026-11-30T11:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T11:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git commit: %v\n%s", err, out)
		}
	}
	if got, _ := IdentifyTree(ctx, dir, roots, open); got.Root != other {
		t.Errorf("two commits on a known HEAD: %+v, want its root %s", got, other)
	}
	// No cache file at all: git answers.
	if got, _ := IdentifyTree(ctx, dir, "", open); got != want {
		t.Errorf("without a cache: %+v", got)
	}
}
