package gitrepo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// writeNote leaves the note of a git process of a strom of pid strom that was
// killed while it ran git with args, begun at start.
func writeNote(t *testing.T, r *Repo, strom, git int, start time.Time, args ...string) string {
	t.Helper()
	path := filepath.Join(r.GitDir, fmt.Sprintf("%s%d-1", notePrefix, strom))
	body := fmt.Sprintf("%d %d %s\n", git, start.UnixNano(), strings.Join(args, "\x1f"))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// conflictingBranch gives r a branch "other" whose a.txt conflicts with the
// current branch's.
func conflictingBranch(t *testing.T, r *Repo) {
	t.Helper()
	writeFile(t, r.Root, "a.txt", "base\n")
	gitIn(t, r.Root, "add", "a.txt")
	gitIn(t, r.Root, "commit", "-q", "-m", "base")
	gitIn(t, r.Root, "checkout", "-q", "-b", "other")
	writeFile(t, r.Root, "a.txt", "theirs\n")
	gitIn(t, r.Root, "commit", "-q", "-am", "theirs")
	gitIn(t, r.Root, "checkout", "-q", "-")
	writeFile(t, r.Root, "a.txt", "ours\n")
	gitIn(t, r.Root, "commit", "-q", "-am", "ours")
}

// TestMendAfterKill: what a killed strom's git left — a lock, a merge in progress,
// a merge driver's temporary file — is undone by the notes; what a person's git
// left, a live strom's and a git that only read are left alone.
func TestMendAfterKill(t *testing.T) {
	t.Parallel()
	t.Run("a commit's lock", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		note := writeNote(t, r, deadPID(t), deadPID(t), time.Now().Add(-time.Second), "commit", "-q", "-m", "x")
		writeFile(t, r.GitDir, "index.lock", "")
		got, err := r.MendAfterKill(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if want := []Mended{{What: "lock", Path: ".git/index.lock"}}; !cmp.Equal(got, want) {
			t.Errorf("mended %v, want %v", got, want)
		}
		if _, err := os.Stat(note); !os.IsNotExist(err) {
			t.Error("the note is still there")
		}
		gitIn(t, r.Root, "commit", "-q", "--allow-empty", "-m", "after") // git works again
	})
	t.Run("a lock older than the killed git, or no note at all", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		writeFile(t, r.GitDir, "index.lock", "")
		if got, _ := r.MendAfterKill(ctxT(t)); len(got) != 0 {
			t.Errorf("with no note, mended %v", got)
		}
		writeNote(t, r, deadPID(t), deadPID(t), time.Now().Add(time.Hour), "commit")
		if got, _ := r.MendAfterKill(ctxT(t)); len(got) != 0 {
			t.Errorf("a lock older than the git mended: %v", got)
		}
		if _, err := os.Stat(filepath.Join(r.GitDir, "index.lock")); err != nil {
			t.Error("the person's lock is gone")
		}
	})
	t.Run("a live strom's, and a git that only read", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		sleep := exec.Command("sleep", "60")
		if err := sleep.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
		live := writeNote(t, r, sleep.Process.Pid, deadPID(t), time.Now().Add(-time.Second), "commit")
		writeFile(t, r.GitDir, "index.lock", "")
		if got, _ := r.MendAfterKill(ctxT(t)); len(got) != 0 {
			t.Errorf("a live strom's git mended: %v", got)
		}
		os.Remove(live)
		// A git that only reads is not noted, so a kill during it mends nothing.
		if n := r.noteRun([]string{"-c", "core.quotepath=off", "log", "-1"}); n != nil {
			n.done()
			t.Error("a git that only reads was noted")
		}
		if n := r.noteRun([]string{"commit", "-q"}); n == nil {
			t.Error("a git that commits was not noted")
		} else {
			n.done()
		}
	})
	t.Run("a merge begun", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		conflictingBranch(t, r)
		head := gitIn(t, r.Root, "rev-parse", "HEAD")
		start := time.Now().Add(-time.Second)
		exec.Command("git", "-C", r.Root, "merge", "-q", "other").Run() // stops in its conflict, as a kill would leave it
		if _, err := os.Stat(filepath.Join(r.GitDir, "MERGE_HEAD")); err != nil {
			t.Fatal("no merge in progress to mend")
		}
		writeFile(t, r.Root, ".merge_file_a1B2c3", "a driver's")
		writeNote(t, r, deadPID(t), deadPID(t), start, "merge", "-q", "--no-edit", "other")
		got, err := r.MendAfterKill(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if want := []Mended{{What: "merge"}, {What: "temp", Path: ".merge_file_a1B2c3"}}; !cmp.Equal(got, want) {
			t.Errorf("mended %v, want %v", got, want)
		}
		if op, _ := r.InProgress(ctxT(t)); op != "" {
			t.Errorf("still in progress: %s", op)
		}
		if now := gitIn(t, r.Root, "rev-parse", "HEAD"); now != head {
			t.Error("HEAD moved")
		}
		if st := gitIn(t, r.Root, "status", "--porcelain"); st != "" {
			t.Errorf("the work tree after the abort:\n%s", st)
		}
	})
	t.Run("a person's merge", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		conflictingBranch(t, r)
		exec.Command("git", "-C", r.Root, "merge", "-q", "other").Run()
		writeNote(t, r, deadPID(t), deadPID(t), time.Now().Add(-time.Second), "commit", "-q")
		if got, _ := r.MendAfterKill(ctxT(t)); len(got) != 0 {
			t.Errorf("a person's merge mended: %v", got)
		}
		if op, _ := r.InProgress(ctxT(t)); op == "" {
			t.Error("the person's merge is gone")
		}
	})
}

// TestMendKilledGit: a git strom started that is killed while strom goes on (a
// kill of the git alone, or strom's context ending) leaves nothing half done: a
// merge killed in its merge driver leaves no lock, no merge in progress and no
// temporary file of the driver, and git works again at once.
func TestMendKilledGit(t *testing.T) {
	t.Parallel()
	t.Run("alone", func(t *testing.T) { t.Parallel(); mendKilledGit(t, false) })
	// Another git works in the tree meanwhile (an agent's strom command's),
	// ending a moment later: the mend waits for it.
	t.Run("with a git working in the tree", func(t *testing.T) { t.Parallel(); mendKilledGit(t, true) })
}

func mendKilledGit(t *testing.T, other bool) {
	r := newRepo(t)
	conflictingBranch(t, r)
	began := filepath.Join(t.TempDir(), "began")
	gitIn(t, r.Root, "config", "merge.slow.driver", "touch "+began+"; exec sleep 30 >/dev/null 2>&1 </dev/null")
	writeFile(t, r.Root, ".gitattributes", "a.txt merge=slow\n")
	gitIn(t, r.Root, "add", ".gitattributes")
	gitIn(t, r.Root, "commit", "-q", "-m", "attributes")
	ctx, cancel := context.WithCancel(ctxT(t))
	go func() {
		for {
			if _, err := os.Stat(began); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if other {
		cmd := exec.Command("git", "cat-file", "--batch")
		cmd.Dir = r.Root
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		go func() {
			<-ctx.Done()
			time.Sleep(time.Second)
			stdin.Close()
		}()
	}
	if _, err := r.git(ctx, []string{"merge", "--no-edit", "other"}, nil, nil); err == nil {
		t.Fatal("the killed merge succeeded")
	}
	for _, p := range []string{filepath.Join(r.GitDir, "index.lock"), filepath.Join(r.GitDir, "MERGE_HEAD")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is left", p)
		}
	}
	if temps, _ := filepath.Glob(filepath.Join(r.Root, ".merge_file_*")); len(temps) > 0 {
		t.Errorf("the driver's temporary files are left: %v", temps)
	}
	if notes, _ := filepath.Glob(filepath.Join(r.GitDir, notePrefix+"*")); len(notes) > 0 {
		t.Errorf("notes left: %v", notes)
	}
	if st := gitIn(t, r.Root, "status", "--porcelain"); st != "" {
		t.Errorf("the work tree changed:\n%s", st)
	}
	gitIn(t, r.Root, "commit", "-q", "--allow-empty", "-m", "after") // git works again
}

// TestMendMergeBeforeMergeHead: a merge killed before it wrote MERGE_HEAD (a
// fast-forward in the middle of writing the work tree) leaves files of the other
// branch, tracked changed and new untracked, that would make the next merge
// refuse ("untracked working tree files would be overwritten"). The next run
// puts them back as HEAD has them and applies the changes the merge's autostash
// had put aside; a file older than the merge is left alone.
func TestMendMergeBeforeMergeHead(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "base\n")
	writeFile(t, r.Root, "mine.txt", "mine\n")
	gitIn(t, r.Root, "add", "a.txt", "mine.txt")
	gitIn(t, r.Root, "commit", "-q", "-m", "base")
	gitIn(t, r.Root, "checkout", "-q", "-b", "other")
	writeFile(t, r.Root, "a.txt", "theirs\n")
	writeFile(t, r.Root, "notes/new.txt", "new\n")
	writeFile(t, r.Root, "older.txt", "older\n")
	gitIn(t, r.Root, "add", "-A")
	gitIn(t, r.Root, "commit", "-q", "-m", "theirs")
	gitIn(t, r.Root, "checkout", "-q", "main")
	// A file of the person's own, older than the merge, named as the other
	// branch names one.
	writeFile(t, r.Root, "older.txt", "the person's\n")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(r.Root, "older.txt"), old, old)
	// The person's change the merge put aside.
	writeFile(t, r.Root, "mine.txt", "mine, changed\n")
	oid := strings.TrimSpace(gitIn(t, r.Root, "stash", "create"))
	gitIn(t, r.Root, "checkout", "-q", "--", "mine.txt")

	start := time.Now()
	time.Sleep(1100 * time.Millisecond)
	note := writeNote(t, r, deadPID(t), deadPID(t), start, "merge", "-q", "--no-edit", "--autostash", "-m", "strom: merge", "other")
	writeFile(t, r.GitDir, "MERGE_AUTOSTASH", oid+"\n")
	writeFile(t, r.GitDir, "ORIG_HEAD", gitIn(t, r.Root, "rev-parse", "HEAD"))
	writeFile(t, r.Root, "a.txt", "theirs\n")
	writeFile(t, r.Root, "notes/new.txt", "new\n")
	writeFile(t, r.GitDir, "index.lock", "")

	got, err := r.MendAfterKill(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mended{{What: "tree", Count: 2}, {What: "autostash"}}
	if !cmp.Equal(got, want) {
		t.Errorf("mended %v, want %v", got, want)
	}
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Error("the note is still there")
	}
	for name, content := range map[string]string{"a.txt": "base\n", "mine.txt": "mine, changed\n", "older.txt": "the person's\n"} {
		if b, _ := os.ReadFile(filepath.Join(r.Root, name)); string(b) != content {
			t.Errorf("%s = %q, want %q", name, b, content)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Root, "notes", "new.txt")); err == nil {
		t.Error("the file the merge added is left")
	}
	if _, err := os.Stat(filepath.Join(r.GitDir, "MERGE_AUTOSTASH")); err == nil {
		t.Error("MERGE_AUTOSTASH is left")
	}
	// The merge goes through now, with the person's change kept.
	os.Remove(filepath.Join(r.Root, "older.txt"))
	gitIn(t, r.Root, "merge", "-q", "--no-edit", "--autostash", "other")
	if b, _ := os.ReadFile(filepath.Join(r.Root, "mine.txt")); string(b) != "mine, changed\n" {
		t.Errorf("mine.txt after the merge = %q", b)
	}
}

// TestMendWaitsForGit: a git working in the tree when the next run mends (one
// the killed strom or its agent's strom commands started, ending in a moment)
// delays the mend instead of leaving the killed git's lock and merge to stop the
// run.
func TestMendWaitsForGit(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	note := writeNote(t, r, deadPID(t), deadPID(t), time.Now().Add(-time.Second), "commit", "-q", "-m", "x")
	writeFile(t, r.GitDir, "index.lock", "")
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = r.Root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(time.Second)
		stdin.Close()
	}()
	defer cmd.Wait()
	got, err := r.MendAfterKill(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Mended{{What: "lock", Path: ".git/index.lock"}}; !cmp.Equal(got, want) {
		t.Errorf("mended %v, want %v", got, want)
	}
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Error("the note is still there")
	}
}
