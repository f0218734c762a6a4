package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CheckpointOptions adjust a Checkpoint.
type CheckpointOptions struct {
	// Force lists paths (relative to the work tree top, or absolute inside it) that
	// are staged even when .gitignore ignores them. Paths that do not exist are
	// skipped; a tracked one that was deleted is staged as deleted anyway.
	Force []string
	// NoVerify skips the pre-commit and commit-msg hooks (git commit --no-verify).
	NoVerify bool
	// AllowEmpty makes a commit even when nothing changed, so that every session
	// gets its commit. Without it an unchanged tree gives ErrNothingToCommit.
	AllowEmpty bool
	// FallbackName and FallbackEmail are the identity used when git has none: each
	// is passed as GIT_AUTHOR_* and GIT_COMMITTER_* only when neither the git
	// configuration (user.*, author.*, committer.*) nor the environment sets it.
	FallbackName, FallbackEmail string
	// Only limits the commit to these paths (relative to the top): the rest of the
	// work tree and of the index stay as they are. Empty = everything.
	Only []string
	// AllowMarkers commits files with conflict markers anyway: the caller has noted
	// them (a session's work at its time limit is committed whatever its state).
	AllowMarkers bool
	// Leave lists paths (relative to the top, or absolute inside it) that stay out of
	// the commit even when changed or staged: their index entries are reset to HEAD.
	Leave []string
}

// Checkpoint stages every change in the work tree as `git add -A` does (respecting
// .gitignore), plus opts.Force, and commits it with msg through `git commit -F -`.
// It returns the new HEAD. It works on an unborn branch and in linked worktrees.
//
// It refuses, and commits nothing, while an operation is in progress
// (*InProgressError), when the index has unmerged entries (*ConflictError, ErrUnmerged;
// the index is left untouched) and when a staged file has conflict markers
// (*ConflictError, ErrConflictMarkers; the changes stay staged). A git that fails,
// for example because another git holds index.lock, gives a *GitError.
//
// Checkpoint starts at most five git processes: ls-files -u, add -A (and add -f for
// opts.Force, reset for opts.Leave), diff --cached (only when it refuses an empty
// commit or conflict markers), config (only when a fallback identity is given and
// the environment does not already set one), and commit. A session commit
// (AllowEmpty and AllowMarkers) reads the index in three of them: ls-files, add
// and commit, as `git add -A && git commit` reads it in two.
func (r *Repo) Checkpoint(ctx context.Context, msg Message, opts CheckpointOptions) (string, error) {
	if err := msg.Validate(); err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	force, err := r.relPaths(opts.Force)
	if err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	op, err := r.InProgress(ctx)
	if err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	if op != "" {
		return "", &InProgressError{Op: op, Dir: r.Root}
	}

	// The identity lookup reads only the configuration: run it beside the rest.
	type identity struct {
		env []string
		err error
	}
	idc := make(chan identity, 1)
	go func() {
		env, err := r.identityEnv(ctx, opts.FallbackName, opts.FallbackEmail)
		idc <- identity{env, err}
	}()
	waited := false
	defer func() {
		if !waited {
			<-idc
		}
	}()

	out, err := r.git(ctx, []string{"ls-files", "-u", "-z"}, nil, nil)
	if err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	if unmerged := unmergedPaths(out); len(unmerged) > 0 {
		return "", &ConflictError{Dir: r.Root, Paths: unmerged, Unmerged: true}
	}

	addArgs := []string{"add", "-A"}
	sparse := r.sparse(ctx)
	if sparse {
		addArgs = append(addArgs, "--sparse")
	}
	if len(opts.Only) > 0 {
		addArgs = append(append(addArgs, "--"), opts.Only...)
	}
	if _, err := r.git(ctx, addArgs, nil, nil); err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	if len(force) > 0 {
		args := []string{"add", "-f"}
		if sparse {
			args = append(args, "--sparse")
		}
		args = append(append(args, "--"), force...)
		if _, err := r.git(ctx, args, nil, []string{"GIT_LITERAL_PATHSPECS=1"}); err != nil {
			return "", fmt.Errorf("make checkpoint: %w", err)
		}
	}
	if len(opts.Leave) > 0 {
		leave, err := r.relPaths(opts.Leave)
		if err != nil {
			return "", fmt.Errorf("make checkpoint: %w", err)
		}
		args := append([]string{"reset", "-q", "--"}, leave...)
		if _, err := r.git(ctx, args, nil, []string{"GIT_LITERAL_PATHSPECS=1"}); err != nil {
			return "", fmt.Errorf("make checkpoint: %w", err)
		}
	}

	// The staged paths serve two checks only: refusing an empty commit and the
	// marker scan (a caller that allows markers has looked for them itself: scan
	// once, not twice). A session commit makes neither, and is spared a process
	// that reads the whole index once more.
	if !opts.AllowEmpty || !opts.AllowMarkers {
		if err := r.checkStaged(ctx, opts); err != nil {
			return "", err
		}
	}
	id := <-idc
	waited = true
	if id.err != nil {
		return "", fmt.Errorf("make checkpoint: %w", id.err)
	}
	// --cleanup=verbatim: Message.String already wrote what git's clean-up would,
	// and the user's commit.cleanup (strip, say) must not eat body lines that start
	// with '#'.
	args := []string{"commit", "-q", "--cleanup=verbatim", "-F", "-"}
	if opts.NoVerify {
		args = append(args, "--no-verify")
	}
	if opts.AllowEmpty {
		args = append(args, "--allow-empty")
	}
	if len(opts.Only) > 0 {
		args = append(append(args, "--"), opts.Only...)
	}
	if _, err := r.git(ctx, args, strings.NewReader(msg.String()), id.env); err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	head, err := r.Head(ctx)
	if err != nil {
		return "", fmt.Errorf("make checkpoint: %w", err)
	}
	return head, nil
}

// checkStaged refuses a commit of nothing (unless opts.AllowEmpty) and staged files
// with conflict markers (unless opts.AllowMarkers), from `git diff --cached`.
func (r *Repo) checkStaged(ctx context.Context, opts CheckpointOptions) error {
	diffArgs := []string{"diff", "--cached", "--name-only", "--no-renames", "-z"}
	if len(opts.Only) > 0 {
		diffArgs = append(append(diffArgs, "--"), opts.Only...)
	}
	out, err := r.git(ctx, diffArgs, nil, nil)
	if err != nil {
		return fmt.Errorf("make checkpoint: %w", err)
	}
	staged := splitNUL(out)
	if len(staged) == 0 && !opts.AllowEmpty {
		return fmt.Errorf("make checkpoint: no changes in %s: %w", r.Root, ErrNothingToCommit)
	}
	if opts.AllowMarkers {
		return nil
	}
	marked, err := r.scanMarkers(ctx, staged)
	if err != nil {
		return fmt.Errorf("make checkpoint: %w", err)
	}
	if len(marked) > 0 {
		return &ConflictError{Dir: r.Root, Paths: marked}
	}
	return nil
}

// unmergedPaths reads `git ls-files -u -z`: "<mode> <hash> <stage>\t<path>" per stage.
func unmergedPaths(out []byte) []string {
	var paths []string
	seen := map[string]bool{}
	for _, rec := range splitNUL(out) {
		_, p, ok := strings.Cut(rec, "\t")
		if ok && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}

// relPaths makes paths relative to the work tree top and drops the ones that do not
// exist.
func (r *Repo) relPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(r.Root, p)
		}
		rel, err := filepath.Rel(r.Root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("stage %s: the path is outside the work tree %s", p, r.Root)
		}
		if _, err := os.Lstat(abs); err != nil {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// identityEnv returns GIT_AUTHOR_* and GIT_COMMITTER_* settings for the parts of the
// identity that neither the environment nor the git configuration provides.
func (r *Repo) identityEnv(ctx context.Context, name, email string) ([]string, error) {
	if name == "" && email == "" {
		return nil, nil
	}
	set := func(v string) bool { s, ok := os.LookupEnv(v); return ok && s != "" }
	type want struct{ env, role, field, value string }
	var missing []want
	for _, w := range []want{
		{"GIT_AUTHOR_NAME", "author", "name", name},
		{"GIT_AUTHOR_EMAIL", "author", "email", email},
		{"GIT_COMMITTER_NAME", "committer", "name", name},
		{"GIT_COMMITTER_EMAIL", "committer", "email", email},
	} {
		if w.value == "" || set(w.env) || (w.field == "email" && set("EMAIL")) {
			continue
		}
		missing = append(missing, w)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	out, err := r.git(ctx, []string{"config", "-z", "--get-regexp", `^(user|author|committer)\.(name|email)$`}, nil, nil)
	if err != nil {
		// Exit status 1 with nothing on stderr: no such key is set.
		var ge *GitError
		var ee *exec.ExitError
		if !errors.As(err, &ge) || !errors.As(ge.Err, &ee) || ee.ExitCode() != 1 || strings.TrimSpace(ge.Stderr) != "" {
			return nil, fmt.Errorf("read git identity: %w", err)
		}
	}
	have := map[string]bool{}
	for _, rec := range splitNUL(out) {
		k, v, _ := strings.Cut(rec, "\n")
		if strings.TrimSpace(v) != "" {
			have[strings.ToLower(k)] = true
		}
	}
	var env []string
	for _, w := range missing {
		if !have["user."+w.field] && !have[w.role+"."+w.field] {
			env = append(env, w.env+"="+w.value)
		}
	}
	return env, nil
}

// sparse reports whether the work tree is a sparse checkout: then git add takes
// what the agent wrote outside the checkout's cone only with --sparse (git 2.34),
// and without it the session's commit would be refused after the agent worked.
// Files the checkout leaves out are not taken as deleted either way.
func (r *Repo) sparse(ctx context.Context) bool {
	if _, err := os.Lstat(filepath.Join(r.GitDir, "info", "sparse-checkout")); err != nil {
		return false
	}
	out, _ := r.git(ctx, []string{"config", "--get", "--type=bool", "core.sparseCheckout"}, nil, nil)
	return strings.TrimSpace(string(out)) == "true"
}
