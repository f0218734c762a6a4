package gitrepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Every git process strom starts is noted, while it runs, in a file of the git
// dir (strom-git-<strom's pid>-<n>: git's pid, when it started, its arguments).
// A strom killed while its git ran leaves the note behind, and with it what that
// git left half done: a merge in progress, a lock file (index.lock, HEAD.lock, a
// branch's lock, next-index-*.lock), a merge driver's temporary file in the work
// tree. MendAfterKill finishes or undoes exactly those, by the notes: what a person's
// own git left (no note names it) is never touched.

const notePrefix = "strom-git-"

var noteSeq atomic.Int64

// runNote is the note of one git process strom started.
type runNote struct {
	path string
}

// noteRun writes the note of a git process about to start in r; its pid is added
// by started. A note that cannot be written is no error: the process runs, and a
// kill then leaves nothing mended by itself.
func (r *Repo) noteRun(args []string) *runNote {
	if r.GitDir == "" || readOnly[subcommand(args)] {
		return nil // a git that only reads leaves nothing to mend
	}
	n := &runNote{path: filepath.Join(r.GitDir, fmt.Sprintf("%s%d-%d", notePrefix, os.Getpid(), noteSeq.Add(1)))}
	if n.write(0, args) != nil {
		return nil
	}
	return n
}

func (n *runNote) write(gitPID int, args []string) error {
	body := fmt.Sprintf("%d %d %s\n", gitPID, time.Now().UnixNano(), strings.Join(args, "\x1f"))
	return os.WriteFile(n.path, []byte(body), 0o644)
}

// started adds the git process's pid to the note.
func (n *runNote) started(gitPID int, args []string) {
	if n != nil {
		_ = n.write(gitPID, args)
	}
}

// done removes the note: the process ended.
func (n *runNote) done() {
	if n != nil {
		os.Remove(n.path)
	}
}

// Mended is one thing MendAfterKill finished or undid.
type Mended struct {
	// What: "merge": a merge aborted; "tree": files a merge killed before
	// MERGE_HEAD had written put back; "autostash": the changes such a merge put
	// aside put back; "stash": those changes kept in git's stash list, as they
	// no longer apply; "lock": a lock file removed; "temp": a temporary file removed.
	What  string
	Path  string // the lock or temporary file, relative to the work tree's top where it is in it
	Count int    // the files put back ("tree")
}

// MendAfterKill undoes what git processes of a strom that was killed left behind,
// as their notes tell: a merge such a git had begun is aborted (its branch and
// work tree as they were before it, its autostash put back); a lock file it held
// is removed; a temporary file of a merge driver it ran is removed from the work
// tree. A git whose strom was killed is given orphanWait to end by itself first;
// a note of a strom or a git that still runs is left alone, and so is anything
// no note accounts for. It returns what it did, in order.
func (r *Repo) MendAfterKill(ctx context.Context) ([]Mended, error) {
	notes, _ := filepath.Glob(filepath.Join(r.GitDir, notePrefix+"*"))
	var out []Mended
	for _, path := range notes {
		strom, ok := notePID(filepath.Base(path))
		if !ok || strom == os.Getpid() || processAlive(strom) {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		gitPID, start, args, ok := parseNote(string(data))
		if !ok {
			os.Remove(path)
			continue
		}
		if gitPID > 0 && !waitGone(ctx, gitPID, orphanWait) {
			continue // git goes on alone, and ends what it began
		}
		if !waitNoGit(ctx, r.Root, orphanWait) {
			continue // a person's git works here now: its locks are its own
		}
		mended, err := r.mendRun(ctx, start, args)
		out = append(out, mended...)
		if err != nil {
			return out, err
		}
		os.Remove(path)
	}
	return out, nil
}

// orphanWait bounds the wait for a git whose strom was killed: it ends what it
// began (or dies of its closed output) before this strom's gits start, which
// would otherwise meet its locks.
const orphanWait = 20 * time.Second

// waitGone waits until the process pid ends, for at most limit; it reports
// whether it ended.
func waitGone(ctx context.Context, pid int, limit time.Duration) bool {
	if !aliveKnown {
		return !processAlive(pid)
	}
	for end := time.Now().Add(limit); processAlive(pid); {
		if time.Now().After(end) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// waitNoGit waits until no git process works in the work tree at root, for at
// most limit; it reports whether none does. A git there may be another of the
// killed strom's, or of its agent's strom commands, ending in a moment; a
// person's git that stays is left its locks.
func waitNoGit(ctx context.Context, root string, limit time.Duration) bool {
	for end := time.Now().Add(limit); gitRunningIn(root); {
		if time.Now().After(end) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// readOnly are the git commands strom runs that write nothing in the repository.
var readOnly = map[string]bool{
	"status": true, "log": true, "show": true, "ls-files": true, "ls-tree": true, "cat-file": true,
	"rev-parse": true, "rev-list": true, "diff": true, "for-each-ref": true, "merge-base": true,
	"check-attr": true, "check-ignore": true, "interpret-trailers": true, "show-ref": true,
	"symbolic-ref": true, "var": true, "version": true, "describe": true, "ls-remote": true,
}

// notePID is the pid of the strom a note's name gives.
func notePID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, notePrefix)
	if !ok {
		return 0, false
	}
	pid, _, ok := strings.Cut(rest, "-")
	n, err := strconv.Atoi(pid)
	return n, ok && err == nil && n > 0
}

func parseNote(s string) (gitPID int, start time.Time, args []string, ok bool) {
	f := strings.SplitN(strings.TrimSuffix(s, "\n"), " ", 3)
	if len(f) != 3 {
		return 0, time.Time{}, nil, false
	}
	pid, err1 := strconv.Atoi(f[0])
	ns, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, time.Time{}, nil, false
	}
	return pid, time.Unix(0, ns), strings.Split(f[2], "\x1f"), true
}

// mendRun undoes what one killed git process, begun at start with args, left.
func (r *Repo) mendRun(ctx context.Context, start time.Time, args []string) ([]Mended, error) {
	var out []Mended
	// A lock or file of this git is no older than the process: one older than
	// the note is someone else's. A second of slack for coarse file times.
	since := start.Add(-time.Second)
	ours := func(path string) bool {
		fi, err := os.Lstat(path)
		return err == nil && fi.Mode().IsRegular() && !fi.ModTime().Before(since)
	}
	if subcommand(args) == "merge" {
		if _, err := os.Lstat(filepath.Join(r.GitDir, "MERGE_HEAD")); err == nil {
			for _, lock := range r.lockFiles() {
				if ours(lock) {
					os.Remove(lock) // the abort needs the index
				}
			}
			if _, err := r.git(context.WithoutCancel(ctx), []string{"merge", "--abort"}, nil, nil); err != nil {
				return out, fmt.Errorf("abort the merge a stopped strom began: %w", err)
			}
			out = append(out, Mended{What: "merge"})
		} else if ref := args[len(args)-1]; !strings.HasPrefix(ref, "-") {
			// Killed before it wrote MERGE_HEAD (a fast-forward, or a merge
			// before its commit): git merge --abort knows nothing of it.
			for _, lock := range r.lockFiles() {
				if ours(lock) {
					os.Remove(lock)
				}
			}
			m, err := r.undoMergeTree(ctx, since, ref, ours)
			out = append(out, m...)
			if err != nil {
				return out, err
			}
		}
		temps, _ := filepath.Glob(filepath.Join(r.Root, ".merge_file_*"))
		for _, t := range temps {
			if ours(t) && os.Remove(t) == nil {
				out = append(out, Mended{What: "temp", Path: filepath.Base(t)})
			}
		}
	}
	for _, lock := range r.lockFiles() {
		if ours(lock) && os.Remove(lock) == nil {
			rel, err := filepath.Rel(r.Root, lock)
			if err != nil {
				rel = lock
			}
			out = append(out, Mended{What: "lock", Path: filepath.ToSlash(rel)})
		}
	}
	return out, nil
}

// subcommand is git's command among args (after the options that come before it).
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-C":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// lockFiles are the lock files a git process of strom's may hold in r: those of
// lockPaths, a new index's, and the remote-tracking refs' a fetch or push moves.
func (r *Repo) lockFiles() []string {
	next, _ := filepath.Glob(filepath.Join(r.GitDir, "next-index-*.lock"))
	remote, _ := filepath.Glob(filepath.Join(r.CommonDir, "refs", "remotes", "*", "*.lock"))
	return append(append(r.lockPaths(), next...), remote...)
}

// undoMergeTree puts back what a merge of ref, begun at since and killed before
// it wrote MERGE_HEAD, left: the files it wrote (those the merge could change,
// written since it began) are HEAD's again, the files it added are removed, the
// index is HEAD's (a merge of strom's begins with a clean index: --autostash),
// and the changes its autostash put aside are applied again. When its branch
// was already moved, HEAD is the merge's result, and putting files back to HEAD
// finishes it instead.
func (r *Repo) undoMergeTree(ctx context.Context, since time.Time, ref string, ours func(string) bool) ([]Mended, error) {
	ctx = context.WithoutCancel(ctx)
	var out []Mended
	diff, err := r.git(ctx, []string{"diff", "--name-only", "-z", "--no-renames", "HEAD", ref}, nil, nil)
	if err != nil {
		return nil, nil // the ref is gone: nothing tells what the merge wrote
	}
	paths := strings.FieldsFunc(string(diff), func(c rune) bool { return c == 0 })
	inHead := map[string]bool{}
	if len(paths) > 0 {
		tree, err := r.git(ctx, append([]string{"ls-tree", "-z", "--name-only", "HEAD", "--"}, paths...), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("read HEAD to undo a merge a stopped strom began: %w", err)
		}
		for _, p := range strings.FieldsFunc(string(tree), func(c rune) bool { return c == 0 }) {
			inHead[p] = true
		}
	}
	// The changes the merge put aside, taken before git reset would move them
	// to the stash list by itself.
	oid := ""
	if stash := filepath.Join(r.GitDir, "MERGE_AUTOSTASH"); ours(stash) {
		b, _ := os.ReadFile(stash)
		oid = strings.TrimSpace(string(b))
		os.Remove(stash)
	}
	var restore, remove []string
	for _, p := range paths {
		abs := filepath.Join(r.Root, filepath.FromSlash(p))
		fi, err := os.Lstat(abs)
		switch {
		case err != nil:
			if inHead[p] {
				restore = append(restore, p) // the merge deleted it
			}
		case fi.IsDir() || fi.ModTime().Before(since):
			// not written by the merge
		case inHead[p]:
			restore = append(restore, p)
		default:
			remove = append(remove, abs)
		}
	}
	if ours(filepath.Join(r.GitDir, "index")) {
		if _, err := r.git(ctx, []string{"reset", "-q"}, nil, nil); err != nil {
			return out, fmt.Errorf("undo a merge a stopped strom began: %w", err)
		}
	}
	if len(restore) > 0 {
		if _, err := r.git(ctx, append([]string{"checkout", "-q", "HEAD", "--"}, restore...), nil, nil); err != nil {
			return out, fmt.Errorf("undo a merge a stopped strom began: %w", err)
		}
	}
	for _, p := range remove {
		os.Remove(p)
	}
	if n := len(restore) + len(remove); n > 0 {
		out = append(out, Mended{What: "tree", Count: n})
	}
	if oid == "" {
		return out, nil
	}
	if _, err := r.git(ctx, []string{"stash", "apply", "-q", oid}, nil, nil); err == nil {
		out = append(out, Mended{What: "autostash"})
	} else {
		if _, err := r.git(ctx, []string{"stash", "store", "-q", "-m", "autostash", oid}, nil, nil); err != nil {
			return out, fmt.Errorf("keep the changes a merge of a stopped strom put aside (%s): %w", oid, err)
		}
		out = append(out, Mended{What: "stash"})
	}
	return out, nil
}
