package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkCommit asserts what every harness commit must satisfy, read back with git.
func checkCommit(t *testing.T, dir, sha string, msg Message) {
	t.Helper()
	if head := gitIn(t, dir, "rev-parse", "HEAD"); head != sha {
		t.Errorf("HEAD = %s, Checkpoint returned %s", head, sha)
	}
	raw := gitIn(t, dir, "log", "-1", "--format=%B", sha)
	if got := parsedTrailers(t, raw); !cmp.Equal(got, msg.Trailers) {
		t.Errorf("git interpret-trailers --parse = %v, want %v; message:\n%s", got, msg.Trailers, raw)
	}
	if got := gitIn(t, dir, "log", "-1", "--format=%s", sha); got != msg.Subject {
		t.Errorf("subject = %q, want %q", got, msg.Subject)
	}
	if out, err := gitEnvIn(dir, nil, "", "fsck", "--strict", "--no-progress"); err != nil || out != "" {
		t.Errorf("git fsck: %v %s", err, out)
	}
	if got := gitIn(t, dir, "reflog", "-1", "--format=%H"); got != sha {
		t.Errorf("reflog has %s, want %s", got, sha)
	}
}

func TestCheckpoint(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	ctx := ctxT(t)
	writeFile(t, r.Root, ".gitignore", "*.log\n/.strom/run/\n")
	writeFile(t, r.Root, "notes/anna.md", "# Anna Novak\n")
	writeFile(t, r.Root, "notes/deep/er/file.txt", "x\n")
	writeFile(t, r.Root, "debug.log", "ignored\n")
	writeFile(t, r.Root, ".strom/run/run.json", "{}\n")
	writeFile(t, r.Root, ".strom/state.log", "forced\n")

	// First commit, on an unborn branch, with a body built to fool a trailer parser.
	msg := sessionMessage("Searched the 1880 register.\n\nNote: x\n---\nSigned-off-by: nobody\n# heading\n\nSee: page 12")
	sha, err := r.Checkpoint(ctx, msg, CheckpointOptions{Force: []string{".strom/state.log", "missing.json"}})
	if err != nil {
		t.Fatal(err)
	}
	checkCommit(t, r.Root, sha, msg)
	files := strings.Split(gitIn(t, r.Root, "ls-tree", "-r", "--name-only", "HEAD"), "\n")
	want := []string{".gitignore", ".strom/state.log", "notes/anna.md", "notes/deep/er/file.txt"}
	if !cmp.Equal(files, want) {
		t.Errorf("committed %v, want %v (untracked in, ignored out, forced in)", files, want)
	}
	if got := gitIn(t, r.Root, "log", "-1", "--format=%an <%ae>"); got != "Test Person <test@example.org>" {
		t.Errorf("author %q, want the configured user", got)
	}

	// Nothing changed: refused without AllowEmpty, committed with it.
	if _, err := r.Checkpoint(ctx, msg, CheckpointOptions{}); !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("unchanged tree: err = %v, want ErrNothingToCommit", err)
	}
	empty, err := r.Checkpoint(ctx, msg, CheckpointOptions{AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	checkCommit(t, r.Root, empty, msg)
	if parent := gitIn(t, r.Root, "rev-parse", "HEAD^"); parent != sha {
		t.Errorf("parent of the empty commit = %s, want %s", parent, sha)
	}

	// Changes, a deletion and a forced file that was deleted.
	writeFile(t, r.Root, "notes/anna.md", "# Anna Novak\nborn 1881\n")
	os.Remove(filepath.Join(r.Root, "notes/deep/er/file.txt"))
	os.Remove(filepath.Join(r.Root, ".strom/state.log"))
	third, err := r.Checkpoint(ctx, msg, CheckpointOptions{Force: []string{filepath.Join(r.Root, ".strom/state.log")}})
	if err != nil {
		t.Fatal(err)
	}
	checkCommit(t, r.Root, third, msg)
	if got := gitIn(t, r.Root, "ls-tree", "-r", "--name-only", "HEAD"); got != ".gitignore\nnotes/anna.md" {
		t.Errorf("after deletions the tree holds %q", got)
	}
	if st, err := r.Status(ctx); err != nil || len(st) != 0 {
		t.Errorf("Status after Checkpoint = %v, %v; want clean", st, err)
	}
}

func TestCheckpointIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config [][2]string
		want   string
	}{
		{"no identity", nil, "Strom <strom@localhost>"},
		{"name only", [][2]string{{"user.name", "Ada"}}, "Ada <strom@localhost>"},
		{"configured", [][2]string{{"user.name", "Ada"}, {"user.email", "ada@example.org"}}, "Ada <ada@example.org>"},
		{"author config", [][2]string{{"author.name", "Au"}, {"author.email", "au@x"}, {"user.email", "c@x"}}, "Au <au@x>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Init(ctxT(t), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range tt.config {
				gitIn(t, r.Root, "config", kv[0], kv[1])
			}
			writeFile(t, r.Root, "a.txt", "a\n")
			sha, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{FallbackName: "Strom", FallbackEmail: "strom@localhost"})
			if err != nil {
				t.Fatal(err)
			}
			if got := gitIn(t, r.Root, "log", "-1", "--format=%an <%ae>", sha); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
			if tt.name == "no identity" {
				if got := gitIn(t, r.Root, "log", "-1", "--format=%cn <%ce>", sha); got != tt.want {
					t.Errorf("committer = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestCheckpointBadMessage(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a", "a\n")
	_, err := r.Checkpoint(ctxT(t), Message{Subject: "s", Trailers: []Trailer{{"Bad Key", "v"}}}, CheckpointOptions{})
	if !errors.Is(err, ErrBadMessage) {
		t.Fatalf("err = %v, want ErrBadMessage", err)
	}
	if got := gitIn(t, r.Root, "status", "--porcelain"); got != "?? a" {
		t.Errorf("a refused message staged something: %q", got)
	}
}

// conflictRepo makes a repository whose branches "main" and "other" change the same
// line of f.txt, with "main" checked out.
func conflictRepo(t *testing.T) *Repo {
	t.Helper()
	r := newRepo(t)
	writeFile(t, r.Root, "f.txt", "base\n")
	writeFile(t, r.Root, "g.txt", "g\n")
	commitAll(t, r.Root, "base")
	gitIn(t, r.Root, "checkout", "-q", "-b", "other")
	writeFile(t, r.Root, "f.txt", "other\n")
	commitAll(t, r.Root, "other")
	gitIn(t, r.Root, "checkout", "-q", "main")
	writeFile(t, r.Root, "f.txt", "main\n")
	commitAll(t, r.Root, "main")
	return r
}

func TestCheckpointRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, r *Repo)
		want    error
		op      string // InProgress afterwards
		message string // part of the error sentence
	}{
		{
			name: "merge",
			setup: func(t *testing.T, r *Repo) {
				if _, err := gitEnvIn(r.Root, nil, "", "merge", "-q", "other"); err == nil {
					t.Fatal("merge did not conflict")
				}
			},
			want: ErrInProgress, op: "merge", message: "a merge is in progress in " + "",
		},
		{
			name: "merge resolved but not committed",
			setup: func(t *testing.T, r *Repo) {
				gitEnvIn(r.Root, nil, "", "merge", "-q", "other")
				writeFile(t, r.Root, "f.txt", "resolved\n")
				gitIn(t, r.Root, "add", "f.txt")
			},
			want: ErrInProgress, op: "merge", message: "git merge --abort",
		},
		{
			name: "rebase stopped at edit",
			setup: func(t *testing.T, r *Repo) {
				env := []string{"GIT_SEQUENCE_EDITOR=sed -i -e s/^pick/edit/"}
				if out, err := gitEnvIn(r.Root, env, "", "rebase", "-i", "HEAD~1"); err != nil {
					t.Fatalf("rebase: %v %s", err, out)
				}
				writeFile(t, r.Root, "h.txt", "work during the rebase\n")
			},
			want: ErrInProgress, op: "rebase", message: "git rebase --continue",
		},
		{
			name: "conflicting rebase",
			setup: func(t *testing.T, r *Repo) {
				if _, err := gitEnvIn(r.Root, nil, "", "rebase", "other"); err == nil {
					t.Fatal("rebase did not conflict")
				}
			},
			want: ErrInProgress, op: "rebase", message: "git rebase --abort",
		},
		{
			name: "cherry-pick",
			setup: func(t *testing.T, r *Repo) {
				if _, err := gitEnvIn(r.Root, nil, "", "cherry-pick", "other"); err == nil {
					t.Fatal("cherry-pick did not conflict")
				}
			},
			want: ErrInProgress, op: "cherry-pick", message: "git cherry-pick --continue",
		},
		{
			name: "revert",
			setup: func(t *testing.T, r *Repo) {
				writeFile(t, r.Root, "f.txt", "main again\n")
				commitAll(t, r.Root, "again")
				if _, err := gitEnvIn(r.Root, nil, "", "revert", "--no-edit", "HEAD~1"); err == nil {
					t.Fatal("revert did not conflict")
				}
			},
			want: ErrInProgress, op: "revert", message: "git revert --abort",
		},
		{
			name: "bisect",
			setup: func(t *testing.T, r *Repo) {
				gitIn(t, r.Root, "bisect", "start")
				writeFile(t, r.Root, "h.txt", "h\n")
			},
			want: ErrInProgress, op: "bisect", message: "git bisect reset",
		},
		{
			name: "unmerged entries left by stash pop",
			setup: func(t *testing.T, r *Repo) {
				writeFile(t, r.Root, "f.txt", "stashed\n")
				gitIn(t, r.Root, "stash", "-q")
				writeFile(t, r.Root, "f.txt", "committed\n")
				commitAll(t, r.Root, "c")
				if _, err := gitEnvIn(r.Root, nil, "", "stash", "pop", "-q"); err == nil {
					t.Fatal("stash pop did not conflict")
				}
			},
			want: ErrUnmerged, message: "has unmerged paths (f.txt)",
		},
		{
			name: "conflict markers in a new file",
			setup: func(t *testing.T, r *Repo) {
				writeFile(t, r.Root, "notes/x.md", "a\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n")
				writeFile(t, r.Root, "clean.md", "clean\n")
			},
			want: ErrConflictMarkers, message: "conflict markers remain in notes/x.md",
		},
		{
			name: "conflict markers staged earlier",
			setup: func(t *testing.T, r *Repo) {
				writeFile(t, r.Root, "g.txt", "<<<<<<< ours\n1\n||||||| base\n0\n=======\n2\n>>>>>>> theirs\n")
				gitIn(t, r.Root, "add", "g.txt")
			},
			want: ErrConflictMarkers, message: "g.txt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := conflictRepo(t)
			tt.setup(t, r)
			head := gitIn(t, r.Root, "rev-parse", "HEAD")
			unmergedBefore := gitIn(t, r.Root, "ls-files", "-u")
			op, err := r.InProgress(ctxT(t))
			if err != nil || op != tt.op {
				t.Errorf("InProgress = %q, %v; want %q", op, err, tt.op)
			}
			_, err = r.Checkpoint(ctxT(t), sessionMessage("x"), CheckpointOptions{AllowEmpty: true})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Checkpoint err = %v, want %v", err, tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.message) || strings.Contains(msg, "failed to") || strings.Count(msg, ". ") > 0 {
				t.Errorf("error %q: want one sentence containing %q", msg, tt.message)
			}
			if got := gitIn(t, r.Root, "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved from %s to %s", head, got)
			}
			if got := gitIn(t, r.Root, "ls-files", "-u"); got != unmergedBefore {
				t.Errorf("unmerged entries changed:\n%s\nwas:\n%s", got, unmergedBefore)
			}
		})
	}
}

func TestCheckpointIndexLock(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a\n")
	commitAll(t, r.Root, "a")
	head := gitIn(t, r.Root, "rev-parse", "HEAD")
	writeFile(t, r.Root, "a.txt", "changed\n")
	lock := filepath.Join(r.GitDir, "index.lock")
	if err := os.WriteFile(lock, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{})
	var ge *GitError
	if !errors.As(err, &ge) || !errors.Is(err, ErrLocked) || ge.LockFile != lock {
		t.Fatalf("err = %v, want a *GitError for %s", err, lock)
	}
	if !strings.Contains(err.Error(), "another git process holds "+lock) {
		t.Errorf("error %q does not name the lock", err)
	}
	if got := gitIn(t, r.Root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
	// The concurrent git finishes: nothing was damaged and the next try works.
	os.Remove(lock)
	if out, err := gitEnvIn(r.Root, nil, "", "fsck", "--strict", "--no-progress"); err != nil || out != "" {
		t.Errorf("git fsck: %v %s", err, out)
	}
	sha, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCommit(t, r.Root, sha, sessionMessage(""))
}

func TestCheckpointHooks(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	writeFile(t, filepath.Dir(hook), "pre-commit", "#!/bin/sh\necho 'the pre-commit hook refused' >&2\nexit 1\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.Root, "a.txt", "a\n")
	_, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{})
	var ge *GitError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "the pre-commit hook refused") {
		t.Fatalf("err = %v, want the hook's refusal", err)
	}
	if _, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{NoVerify: true}); err != nil {
		t.Fatalf("with NoVerify: %v", err)
	}
}

func TestConflictMarkers(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	full := "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other\n"
	writeFile(t, r.Root, "tracked.txt", full)
	writeFile(t, r.Root, "crlf.txt", strings.ReplaceAll(full, "\n", "\r\n"))
	writeFile(t, r.Root, "bare.txt", "<<<<<<<\na\n=======\nb\n>>>>>>>\n")
	writeFile(t, r.Root, "binary.bin", "\x00"+full)
	writeFile(t, r.Root, "two-only.txt", "<<<<<<< HEAD\na\n=======\n")
	writeFile(t, r.Root, "wrong-order.txt", ">>>>>>> x\n=======\n<<<<<<< y\n")
	writeFile(t, r.Root, "setext.md", "Title\n=======\n")
	writeFile(t, r.Root, "indented.txt", " <<<<<<< HEAD\n=======\n >>>>>>> x\n")
	writeFile(t, r.Root, "long.txt", strings.Repeat("x", 200<<10)+"<<<<<<< not at line start\n=======\n>>>>>>> x\n")
	writeFile(t, r.Root, "untracked.txt", full)
	gitIn(t, r.Root, "add", "--", ".", ":!untracked.txt")
	os.Symlink("tracked.txt", filepath.Join(r.Root, "link"))
	gitIn(t, r.Root, "add", "link")
	changes, err := r.Status(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	// A file deleted after it was staged is in the status, and has nothing to scan.
	writeFile(t, r.Root, "gone.txt", full)
	gitIn(t, r.Root, "add", "gone.txt")
	os.Remove(filepath.Join(r.Root, "gone.txt"))
	changes = append(changes, Change{Kind: Changed, Path: "gone.txt", Index: 'A', Worktree: 'D'})
	got, err := r.ConflictMarkers(ctxT(t), changes)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"bare.txt", "crlf.txt", "tracked.txt"}; !cmp.Equal(got, want) {
		t.Errorf("ConflictMarkers = %v, want %v", got, want)
	}
	if got, err := r.ConflictMarkers(ctxT(t), nil); err != nil || got != nil {
		t.Errorf("ConflictMarkers(nil) = %v, %v", got, err)
	}
}

func TestCheckpointRefLock(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a\n")
	head := commitAll(t, r.Root, "a")
	writeFile(t, r.Root, "a.txt", "b\n")
	lock := filepath.Join(r.CommonDir, "refs", "heads", "main.lock")
	if err := os.WriteFile(lock, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{})
	var ge *GitError
	if !errors.As(err, &ge) || ge.LockFile != lock {
		t.Fatalf("err = %v, want a *GitError naming %s", err, lock)
	}
	if got := gitIn(t, r.Root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
}

// TestCheckpointCancel cancels a Checkpoint while git add holds index.lock (a clean
// filter is running): git must get the chance to remove its lock.
func TestCheckpointCancel(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a\n")
	head := commitAll(t, r.Root, "a")
	fifo := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	gitIn(t, r.Root, "config", "filter.slow.clean", "echo started > '"+fifo+"'; exec sleep 2 </dev/null >/dev/null 2>&1")
	writeFile(t, r.Root, ".gitattributes", "*.txt filter=slow\n")
	writeFile(t, r.Root, "a.txt", "b\n")
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Checkpoint(ctx, sessionMessage(""), CheckpointOptions{})
		done <- err
	}()
	if _, err := os.ReadFile(fifo); err != nil { // returns once the filter runs
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(r.GitDir, "index.lock")); err != nil {
		t.Fatalf("git add does not hold index.lock while its filter runs: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Lstat(filepath.Join(r.GitDir, "index.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("index.lock left behind after cancel: %v", err)
	}
	if got := gitIn(t, r.Root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
}

// TestCheckpointOnlyAndAllowMarkers: Only leaves the rest of the work tree alone;
// AllowMarkers commits a file with conflict markers (the caller noted them).
func TestCheckpointOnlyAndAllowMarkers(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "base.txt", "base\n")
	commitAll(t, r.Root, "base")
	writeFile(t, r.Root, ".strom/queue.json", "{}\n")
	writeFile(t, r.Root, "mine.txt", "a person's work\n")
	if _, err := r.Checkpoint(ctxT(t), sessionMessage("only"), CheckpointOptions{Only: []string{".strom"}}); err != nil {
		t.Fatal(err)
	}
	if got := gitIn(t, r.Root, "status", "--porcelain"); strings.TrimSpace(got) != "?? mine.txt" {
		t.Fatalf("status after an Only commit = %q, want only mine.txt left", got)
	}
	marked := "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n"
	writeFile(t, r.Root, "base.txt", marked)
	if _, err := r.Checkpoint(ctxT(t), sessionMessage("refused"), CheckpointOptions{}); !errors.Is(err, ErrConflictMarkers) {
		t.Fatalf("without AllowMarkers: %v, want ErrConflictMarkers", err)
	}
	if _, err := r.Checkpoint(ctxT(t), sessionMessage("anyway"), CheckpointOptions{AllowMarkers: true}); err != nil {
		t.Fatalf("with AllowMarkers: %v", err)
	}
	if got := gitIn(t, r.Root, "show", "HEAD:base.txt"); got != strings.TrimSpace(marked) {
		t.Fatalf("committed base.txt = %q", got)
	}
}

// TestCheckpointProcesses: a session commit (AllowEmpty, AllowMarkers, no hooks, a
// fallback identity) starts no git that reads the index only to list what is staged;
// a checkpoint that refuses an empty commit or conflict markers still asks.
func TestCheckpointProcesses(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace) // git appends a line for every git it starts
	r := newRepo(t)
	commands := func(opts CheckpointOptions) []string {
		t.Helper()
		if err := os.WriteFile(trace, nil, 0o666); err != nil {
			t.Fatal(err)
		}
		writeFile(t, r.Root, "notes.md", fmt.Sprintf("%v\n", opts))
		if _, err := r.Checkpoint(ctxT(t), sessionMessage("x"), opts); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			// git commit starts `git maintenance run --auto` itself.
			if _, cmd, ok := strings.Cut(l, "trace: built-in: git "); ok && !strings.HasPrefix(cmd, "maintenance ") {
				out = append(out, strings.Fields(cmd)[0])
			}
		}
		slices.Sort(out)
		return out
	}
	session := CheckpointOptions{AllowMarkers: true, AllowEmpty: true, NoVerify: true, FallbackName: "strom", FallbackEmail: "strom@localhost"}
	if got, want := commands(session), []string{"add", "commit", "config", "ls-files"}; !cmp.Equal(got, want) {
		t.Errorf("a session commit started git %v, want %v", got, want)
	}
	if got, want := commands(CheckpointOptions{}), []string{"add", "commit", "diff", "ls-files"}; !cmp.Equal(got, want) {
		t.Errorf("a checking checkpoint started git %v, want %v", got, want)
	}
}

// TestCheckpointSparse: in a sparse checkout the session's commit takes what the
// agent wrote outside the checkout's cone (git add alone refuses it), and the files
// the checkout leaves out stay in the commit.
func TestCheckpointSparse(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "inside/a.txt", "a\n")
	writeFile(t, r.Root, "outside/b.txt", "b\n")
	gitIn(t, r.Root, "add", "-A")
	gitIn(t, r.Root, "commit", "-q", "-m", "both")
	gitIn(t, r.Root, "sparse-checkout", "set", "inside")
	writeFile(t, r.Root, "outside/found.txt", "found\n")
	writeFile(t, r.Root, "inside/more.txt", "more\n")
	if _, err := r.Checkpoint(ctxT(t), sessionMessage(""), CheckpointOptions{NoVerify: true}); err != nil {
		t.Fatalf("the commit of a sparse checkout: %v", err)
	}
	files := gitIn(t, r.Root, "ls-tree", "-r", "--name-only", "HEAD")
	for _, want := range []string{"inside/a.txt", "inside/more.txt", "outside/b.txt", "outside/found.txt"} {
		if !strings.Contains(files, want) {
			t.Errorf("the commit lacks %s:\n%s", want, files)
		}
	}
}
