package gitrepo

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotRepo means the directory is not inside a git work tree.
var ErrNotRepo = errors.New("not inside a git work tree")

// ErrInProgress means a merge, rebase, cherry-pick, revert, git am or bisect is under way; the error is an *InProgressError.
var ErrInProgress = errors.New("a git operation is in progress")

// ErrUnmerged means the index holds unmerged entries left by a conflict; the error is a *ConflictError.
var ErrUnmerged = errors.New("unmerged paths in the index")

// ErrConflictMarkers means a staged file contains conflict markers; the error is a *ConflictError.
var ErrConflictMarkers = errors.New("conflict markers in staged files")

// ErrNothingToCommit means a Checkpoint without AllowEmpty found no change to commit.
var ErrNothingToCommit = errors.New("nothing to commit")

// ErrNoCommits means the current branch has no commits yet (an unborn branch).
var ErrNoCommits = errors.New("the current branch has no commits yet")

// ErrLocked means a git command failed while another git process held a lock file; the error is a *GitError.
var ErrLocked = errors.New("another git process holds a lock")

// ErrBadMessage means a commit message cannot be written so that its trailers read back exactly.
var ErrBadMessage = errors.New("invalid commit message")

// GitError is a git command that failed. Args are the arguments after "git".
type GitError struct {
	Args   []string
	Stderr string
	Err    error
	// LockFile is the lock file (such as .git/index.lock) that existed when the
	// command failed, or "" if there was none.
	LockFile string
}

// Error describes the failure in one sentence.
func (e *GitError) Error() string {
	cmd := "git " + shortArgs(e.Args)
	if e.LockFile != "" {
		return fmt.Sprintf("%s: another git process holds %s: wait for it to finish (or delete the file if no git is running), then try again", cmd, e.LockFile)
	}
	if msg := firstLine(e.Stderr); msg != "" {
		return fmt.Sprintf("%s: %s", cmd, msg)
	}
	return fmt.Sprintf("%s: %v", cmd, e.Err)
}

// Unwrap returns the process error.
func (e *GitError) Unwrap() error { return e.Err }

// Is reports ErrLocked for a failure under a held lock file.
func (e *GitError) Is(target error) bool { return target == ErrLocked && e.LockFile != "" }

// shortArgs keeps an error sentence short: the command and its first arguments.
func shortArgs(args []string) string {
	if len(args) > 4 {
		return strings.Join(args[:4], " ") + " …"
	}
	return strings.Join(args, " ")
}

// firstLine is the first non-empty line of git's stderr, without git's "fatal: " or
// "error: " prefix, so the whole error stays one sentence.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint:") {
			continue
		}
		for _, p := range []string{"fatal: ", "error: "} {
			l = strings.TrimPrefix(l, p)
		}
		return strings.TrimRight(l, ".")
	}
	return ""
}

// InProgressError says which operation is in progress and how to end it.
type InProgressError struct {
	Op  string // "merge", "rebase", "am", "cherry-pick", "revert" or "bisect"
	Dir string // the work tree
}

// Error tells the person what to finish or abort.
func (e *InProgressError) Error() string {
	switch e.Op {
	case "merge":
		return fmt.Sprintf("a merge is in progress in %s: finish it (resolve, then git commit) or abort it (git merge --abort), then run strom again", e.Dir)
	case "am":
		return fmt.Sprintf("a git am is in progress in %s: finish it (git am --continue) or abort it (git am --abort), then run strom again", e.Dir)
	case "bisect":
		return fmt.Sprintf("a bisect is in progress in %s: end it (git bisect reset), then run strom again", e.Dir)
	default:
		return fmt.Sprintf("a %s is in progress in %s: finish it (git %s --continue) or abort it (git %s --abort), then run strom again", e.Op, e.Dir, e.Op, e.Op)
	}
}

// Unwrap returns ErrInProgress.
func (e *InProgressError) Unwrap() error { return ErrInProgress }

// ConflictError lists the paths that stop a commit: unmerged entries, or staged files
// with conflict markers.
type ConflictError struct {
	Dir      string
	Paths    []string // relative to Dir
	Unmerged bool     // true: unmerged index entries; false: conflict markers
}

// Error names the paths and what to do.
func (e *ConflictError) Error() string {
	if e.Unmerged {
		return fmt.Sprintf("%s has unmerged paths (%s): resolve the conflicts and git add the files, then run strom again", e.Dir, listPaths(e.Paths))
	}
	return fmt.Sprintf("conflict markers remain in %s (in %s): resolve the conflicts, then run strom again", listPaths(e.Paths), e.Dir)
}

// Unwrap returns ErrUnmerged or ErrConflictMarkers.
func (e *ConflictError) Unwrap() error {
	if e.Unmerged {
		return ErrUnmerged
	}
	return ErrConflictMarkers
}

func listPaths(p []string) string {
	const show = 5
	if len(p) <= show {
		return strings.Join(p, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(p[:show], ", "), len(p)-show)
}

// ErrBareRepo means the directory is a bare repository (or inside a git dir): there
// is no work tree to work in.
var ErrBareRepo = errors.New("a bare git repository has no work tree")

// ErrDetachedHead means HEAD names a commit, not a branch: commits made there would
// be reachable only from the reflog.
var ErrDetachedHead = errors.New("HEAD is detached")

// ErrGitDirReadOnly means the git dir cannot be written: no commit can be made.
var ErrGitDirReadOnly = errors.New("the git dir cannot be written")

// NotReadyError is a reason a commit could not be made now, in one sentence.
type NotReadyError struct {
	Err error  // ErrDetachedHead, ErrGitDirReadOnly or ErrLocked
	Msg string // what is wrong and what to do
}

func (e *NotReadyError) Error() string { return e.Msg }

// Unwrap returns the sentinel.
func (e *NotReadyError) Unwrap() error { return e.Err }

// ErrPushRejected means the remote refused a push because its branch moved on:
// someone else pushed first.
var ErrPushRejected = errors.New("the remote's branch moved on")

// ErrRemoteAway means a fetch or push did not reach the remote (network, server,
// authentication); the error wraps the *GitError.
var ErrRemoteAway = errors.New("the remote cannot be reached")
