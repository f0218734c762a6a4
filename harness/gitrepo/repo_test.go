package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a/b/c.txt", "x\n")
	got, err := Open(ctxT(t), filepath.Join(r.Root, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Repo{Root: r.Root, GitDir: filepath.Join(r.Root, ".git"), CommonDir: filepath.Join(r.Root, ".git")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Open from a subdirectory (-want +got):\n%s", diff)
	}

	plain := t.TempDir()
	_, err = Open(ctxT(t), plain)
	if !errors.Is(err, ErrNotRepo) || !strings.Contains(err.Error(), plain) {
		t.Errorf("Open on a plain directory: %v, want ErrNotRepo naming the directory", err)
	}
	bare := t.TempDir()
	gitIn(t, bare, "init", "-q", "--bare")
	if _, err := Open(ctxT(t), bare); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Open on a bare repository: %v, want ErrNotRepo", err)
	}
	if _, err := Open(ctxT(t), filepath.Join(r.Root, "nope")); err == nil {
		t.Error("Open on a missing directory succeeded")
	}
}

func TestHead(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	if _, err := r.Head(ctxT(t)); !errors.Is(err, ErrNoCommits) {
		t.Errorf("Head on an unborn branch: %v, want ErrNoCommits", err)
	}
	writeFile(t, r.Root, "a", "a\n")
	first := commitAll(t, r.Root, "a")
	check := func(what string) {
		t.Helper()
		want := gitIn(t, r.Root, "rev-parse", "HEAD")
		got, err := r.Head(ctxT(t))
		if err != nil || got != want {
			t.Errorf("%s: Head = %q, %v; want %s", what, got, err, want)
		}
	}
	check("loose ref")
	gitIn(t, r.Root, "pack-refs", "--all")
	check("packed ref")
	writeFile(t, r.Root, "b", "b\n")
	commitAll(t, r.Root, "b")
	check("loose ref beside packed-refs")
	gitIn(t, r.Root, "checkout", "-q", "--detach", first)
	check("detached HEAD")
	// A layout Head does not read itself goes to git.
	broken := &Repo{Root: r.Root, GitDir: filepath.Join(t.TempDir(), "nope"), CommonDir: r.CommonDir}
	if got, err := broken.Head(ctxT(t)); err != nil || got != first {
		t.Errorf("Head through git rev-parse = %q, %v; want %s", got, err, first)
	}
}

func TestInProgressNone(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	if op, err := r.InProgress(ctxT(t)); op != "" || err != nil {
		t.Errorf("InProgress = %q, %v", op, err)
	}
	// A multi-commit cherry-pick stopped between commits keeps only its sequencer.
	writeFile(t, filepath.Join(r.GitDir, "sequencer"), "todo", "revert 1234567 x\n")
	if op, err := r.InProgress(ctxT(t)); op != "revert" || err != nil {
		t.Errorf("InProgress with sequencer = %q, %v", op, err)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	r := conflictRepo(t)
	gitEnvIn(r.Root, nil, "", "merge", "-q", "other") // f.txt unmerged
	writeFile(t, r.Root, ".gitignore", "*.log\n")
	writeFile(t, r.Root, "x.log", "ignored\n")
	writeFile(t, r.Root, "new dir/sp ace.txt", "u\n")
	writeFile(t, r.Root, "nový\nřádek.txt", "u\n")
	gitIn(t, r.Root, "mv", "g.txt", "renamed.txt")
	writeFile(t, r.Root, "renamed.txt", "g changed\n")
	got, err := r.Status(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Kind: Renamed, Path: "renamed.txt", OrigPath: "g.txt", Index: 'R', Worktree: 'M'},
		{Kind: Unmerged, Path: "f.txt", Index: 'U', Worktree: 'U'},
		{Kind: Untracked, Path: ".gitignore", Index: '?', Worktree: '?'},
		{Kind: Untracked, Path: "new dir/sp ace.txt", Index: '?', Worktree: '?'},
		{Kind: Untracked, Path: "nový\nřádek.txt", Index: '?', Worktree: '?'},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
	if Renamed.String() != "renamed" || ChangeKind(9).String() != "ChangeKind(9)" {
		t.Error("ChangeKind.String")
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	out := "# branch.oid 0123\x00" +
		"1 .M N... 100644 100644 100644 aaa aaa a.txt\x00" +
		"1 D. N... 100644 000000 000000 aaa 000 gone\x00" +
		"2 R. N... 100644 100644 100644 aaa aaa R100 new name\x00old name\x00" +
		"u UU N... 100644 100644 100644 100644 a b c both\x00" +
		"? un tracked\x00! ign\x00"
	got, err := parseStatus([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Kind: Changed, Path: "a.txt", Index: '.', Worktree: 'M'},
		{Kind: Changed, Path: "gone", Index: 'D', Worktree: '.'},
		{Kind: Renamed, Path: "new name", OrigPath: "old name", Index: 'R', Worktree: '.'},
		{Kind: Unmerged, Path: "both", Index: 'U', Worktree: 'U'},
		{Kind: Untracked, Path: "un tracked", Index: '?', Worktree: '?'},
		{Kind: Ignored, Path: "ign", Index: '!', Worktree: '!'},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseStatus (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"1 .M short\x00", "2 R. N... 1 1 1 a a R100 p\x00", "z what\x00"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("parseStatus(%q) succeeded", bad)
		}
	}
}

// TestDiscover: reading files finds the same git dirs as `git rev-parse`, or says
// it cannot; HEAD read from the files of a discovered repo is git's HEAD.
func TestDiscover(t *testing.T) {
	r := newRepo(t)
	d, ok := Discover(r.Root)
	if !ok || *d != *r {
		t.Fatalf("Discover = %+v, %v; Open gave %+v", d, ok, r)
	}
	writeFile(t, r.Root, "sub/a.txt", "a\n")
	commitAll(t, r.Root, "a")
	writeFile(t, r.Root, "sub/a.txt", "b\n")
	commitAll(t, r.Root, "b")
	heads := func() {
		t.Helper()
		d, ok := Discover(r.Root)
		if !ok {
			t.Fatal("Discover failed")
		}
		got, err := d.headFromFiles()
		if want := gitIn(t, r.Root, "rev-parse", "HEAD"); err != nil || got != want {
			t.Errorf("HEAD from files = %q, %v; git says %s", got, err, want)
		}
	}
	heads()
	gitIn(t, r.Root, "pack-refs", "--all")
	heads()
	gitIn(t, r.Root, "checkout", "-q", "--detach", "HEAD~1")
	heads()

	if _, ok := Discover(filepath.Join(r.Root, "sub")); ok {
		t.Error("Discover found a repo in a subfolder without .git")
	}
	if _, ok := Discover(t.TempDir()); ok {
		t.Error("Discover found a repo in an empty folder")
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_NAMESPACE"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, r.GitDir)
			if _, ok := Discover(r.Root); ok {
				t.Errorf("Discover answered with %s set", k)
			}
		})
	}
	bad := t.TempDir()
	writeFile(t, bad, ".git", "not a gitdir line\n")
	if _, ok := Discover(bad); ok {
		t.Error("Discover accepted a .git file without a gitdir line")
	}
}

func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a\n")
	commitAll(t, r.Root, "a")
	wtDir := filepath.Join(t.TempDir(), "wt")
	gitIn(t, r.Root, "worktree", "add", "-q", "-b", "session", wtDir)
	wt, err := Open(ctxT(t), filepath.Join(wtDir))
	if err != nil {
		t.Fatal(err)
	}
	if wt.CommonDir != r.CommonDir || wt.GitDir == r.GitDir || !strings.HasPrefix(wt.GitDir, filepath.Join(r.GitDir, "worktrees")) {
		t.Fatalf("linked worktree opened as %+v", wt)
	}
	if d, ok := Discover(wtDir); !ok || *d != *wt {
		t.Errorf("Discover(linked worktree) = %+v, %v; Open gave %+v", d, ok, wt)
	}
	writeFile(t, wt.Root, "b.txt", "b\n")
	msg := sessionMessage("worked in a linked worktree")
	sha, err := wt.Checkpoint(ctxT(t), msg, CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCommit(t, wt.Root, sha, msg)
	if got := gitIn(t, r.Root, "rev-parse", "session"); got != sha {
		t.Errorf("branch session = %s, want %s", got, sha)
	}
	if got := gitIn(t, r.Root, "status", "--porcelain"); got != "" {
		t.Errorf("the main work tree changed: %q", got)
	}
	assertLogsAgree(t, wt)
	last, err := lastWithTrailer(t, wt, "Strom-Session")
	if err != nil || last == nil || last.Hash != sha {
		t.Errorf("the last session commit = %+v, %v", last, err)
	}
	// Each work tree has its own in-progress state.
	gitIn(t, wt.Root, "bisect", "start")
	if op, _ := wt.InProgress(ctxT(t)); op != "bisect" {
		t.Errorf("InProgress in the worktree = %q", op)
	}
	if op, _ := r.InProgress(ctxT(t)); op != "" {
		t.Errorf("InProgress in the main work tree = %q", op)
	}
}

func TestWorktreeConfigExtension(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a\n")
	commitAll(t, r.Root, "a")
	gitIn(t, r.Root, "config", "core.repositoryformatversion", "1")
	gitIn(t, r.Root, "config", "extensions.worktreeConfig", "true")
	gitIn(t, r.Root, "config", "--worktree", "user.name", "Worktree Person")
	configs := func() map[string]string {
		m := map[string]string{}
		for _, f := range []string{"config", "config.worktree"} {
			b, err := os.ReadFile(filepath.Join(r.CommonDir, f))
			if err != nil {
				t.Fatal(err)
			}
			m[f] = string(b)
		}
		return m
	}
	before := configs()

	r2, err := Open(ctxT(t), r.Root)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, r2.Root, "b.txt", "b\n")
	msg := sessionMessage("Note: the fallback")
	sha, err := r2.Checkpoint(ctxT(t), msg, CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCommit(t, r2.Root, sha, msg)
	if got := gitIn(t, r.Root, "log", "-1", "--format=%an"); got != "Worktree Person" {
		t.Errorf("author %q: the per-worktree config was not used", got)
	}
	log, err := r2.Log(ctxT(t), LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Hash != sha {
		t.Errorf("Log: %d commits, want 2, the newest %s", len(log), sha)
	}
	if diff := cmp.Diff(before, configs()); diff != "" {
		t.Errorf("the user's git config changed (-before +after):\n%s", diff)
	}
}
