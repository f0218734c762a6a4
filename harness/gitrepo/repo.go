package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Repo is a git work tree. Build one with Open or Init.
type Repo struct {
	Root      string // top of the work tree
	GitDir    string // this work tree's git dir (.git, or .git/worktrees/<name> for a linked worktree)
	CommonDir string // the git dir shared by all work trees (objects, refs, config)
	// Index is the index file every git call is told to use (WithIndex); "" for the
	// repo's own.
	Index string
}

// WithIndex returns the repo read through the index file path (relative to the top,
// or absolute): what a git hook is given as GIT_INDEX_FILE, e.g. the temporary index
// of git commit -a. "" is the repo's own index.
func (r *Repo) WithIndex(path string) *Repo {
	c := *r
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(r.Root, path)
	}
	c.Index = path
	return &c
}

// Open finds the work tree that contains dir, as `git rev-parse --show-toplevel` does.
// It returns an error wrapping ErrNotRepo when dir is not inside a work tree.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repo: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open repo: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("open repo: %s is not a directory", abs)
	}
	args := []string{"rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"}
	// LC_ALL=C: the "not a repository" test below reads git's message.
	out, err := runGit(ctx, abs, args, nil, []string{"LC_ALL=C"})
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "must be run in a work tree") {
			return nil, fmt.Errorf("open repo: %s: %w (%w)", abs, ErrNotRepo, ErrBareRepo)
		}
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("open repo: %s: %w", abs, ErrNotRepo)
		}
		return nil, fmt.Errorf("open repo: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 || lines[0] == "" {
		return nil, fmt.Errorf("open repo: %s: %w", abs, ErrNotRepo)
	}
	common := lines[2]
	if !filepath.IsAbs(common) {
		common = filepath.Join(abs, common)
	}
	return &Repo{
		Root:      filepath.Clean(lines[0]),
		GitDir:    filepath.Clean(lines[1]),
		CommonDir: filepath.Clean(common),
	}, nil
}

// Discover finds the git dirs of the work tree whose top folder is root by reading
// files, without starting git: a .git folder, or a .git file naming a linked
// worktree's folder (and its commondir file). It reports false whenever git might
// decide otherwise — GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR or GIT_NAMESPACE set, no
// .git at root, no HEAD, anything unusual — and the caller uses Open instead.
// Commands that only read HEAD use it; everything else opens through git.
func Discover(root string) (*Repo, bool) {
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_NAMESPACE"} {
		if os.Getenv(k) != "" {
			return nil, false
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, false
	}
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil, false
	}
	gitDir := dotgit
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return nil, false
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok || dir == "" {
			return nil, false
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		gitDir = filepath.Clean(dir)
	default:
		return nil, false
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if fi, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return &Repo{Root: root, GitDir: gitDir, CommonDir: common}, true
}

// Init runs `git init` in dir (creating it if needed) and opens the new repository.
func Init(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init repo: %w", err)
	}
	if err := os.MkdirAll(abs, 0o777); err != nil {
		return nil, fmt.Errorf("init repo: %w", err)
	}
	if _, err := runGit(ctx, abs, []string{"init", "-q"}, nil, nil); err != nil {
		return nil, fmt.Errorf("init repo: %w", err)
	}
	return Open(ctx, abs)
}

// HooksDir is the folder git runs hooks from: core.hooksPath, or the common git
// dir's hooks.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	out, err := r.git(ctx, []string{"rev-parse", "--path-format=absolute", "--git-path", "hooks"}, nil, nil)
	if err != nil {
		return "", fmt.Errorf("find the hooks folder: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// git runs a git command in the work tree and returns its stdout.
func (r *Repo) git(ctx context.Context, args []string, stdin io.Reader, env []string) ([]byte, error) {
	if r.Index != "" {
		env = append(slices.Clip(env), "GIT_INDEX_FILE="+r.Index)
	}
	start := time.Now()
	note := r.noteRun(args)
	out, err := runGitNoting(ctx, r.Root, args, stdin, env, func(pid int) { note.started(pid, args) })
	if note != nil && err != nil && killed(ctx, err) {
		// The git was killed (a signal, or ctx's end) while this strom goes on:
		// what it left half done is undone now, as the next run would after a
		// kill of strom, once no other git works here (a moment, at most
		// orphanWait); while a person's git stays, the note waits for the next run.
		if !waitNoGit(context.WithoutCancel(ctx), r.Root, orphanWait) {
			note = nil
		} else {
			_, _ = r.mendRun(context.WithoutCancel(ctx), start, args)
		}
	}
	note.done()
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			ge.LockFile = r.heldLock()
		}
	}
	return out, err
}

// killed reports whether a git that failed with err was killed: by a signal, or
// by the end of ctx (exec.CommandContext kills it).
func killed(ctx context.Context, err error) bool {
	var ee *exec.ExitError
	return ctx.Err() != nil || errors.As(err, &ee) && ee.ExitCode() == -1
}

// heldLock returns a git lock file that exists right now, so that a failure caused by
// a concurrent git can be told apart from other failures without reading git's
// (translated) messages.
func (r *Repo) heldLock() string {
	for _, p := range r.lockPaths() {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return ""
}

// lockPaths are the lock files a git that commits, merges or moves a ref takes:
// the index's, HEAD's, the branch's HEAD points at (locked while git moves it),
// packed-refs' and the config's.
func (r *Repo) lockPaths() []string {
	locks := []string{
		filepath.Join(r.GitDir, "index.lock"),
		filepath.Join(r.GitDir, "HEAD.lock"),
	}
	if b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); ok {
			dir := r.CommonDir
			if !strings.HasPrefix(ref, "refs/") || perWorktreeRef(ref) {
				dir = r.GitDir
			}
			locks = append(locks, filepath.Join(dir, filepath.FromSlash(ref))+".lock")
		}
	}
	return append(locks,
		filepath.Join(r.CommonDir, "packed-refs.lock"),
		filepath.Join(r.CommonDir, "config.lock"),
	)
}

// repoEnv lists the variables by which an outer git (a hook that runs strom, say)
// would point our git commands at another repository or index. gitrepo works on the
// repository it opened, so they are removed.
var repoEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
}

func gitEnv(extra []string) []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := name == "GIT_TERMINAL_PROMPT"
		for _, n := range repoEnv {
			if name == n {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	out = append(out, "GIT_TERMINAL_PROMPT=0")
	return append(out, extra...)
}

// command builds a git command. On cancellation git gets SIGTERM, not SIGKILL: git
// removes its lock files on SIGTERM, a killed git leaves index.lock behind.
func command(ctx context.Context, dir string, args []string, env []string) *exec.Cmd {
	countGit(args)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(env)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// EnvGitLog names a file to which every git process gitrepo starts appends a
// line, its arguments: the tests and benchmarks that count the git processes of
// a session set it. Unset, nothing is written.
const EnvGitLog = "STROM_TEST_GIT_LOG"

// countGit notes a git process about to start in the file EnvGitLog names.
func countGit(args []string) {
	path := os.Getenv(EnvGitLog)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	// One write of a short line with O_APPEND: lines of processes writing at once
	// do not mix.
	_, _ = f.WriteString(strings.ReplaceAll(strings.Join(args, " "), "\n", " ") + "\n")
	_ = f.Close()
}

func runGit(ctx context.Context, dir string, args []string, stdin io.Reader, env []string) ([]byte, error) {
	return runGitNoting(ctx, dir, args, stdin, env, nil)
}

// runGitNoting is runGit, telling started git's pid once it runs (mend.go).
func runGitNoting(ctx context.Context, dir string, args []string, stdin io.Reader, env []string, started func(pid int)) ([]byte, error) {
	cmd := command(ctx, dir, args, env)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = stdin
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Start()
	if err == nil {
		if started != nil {
			started(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return stdout.Bytes(), &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// splitNUL splits -z output into its NUL-terminated fields.
func splitNUL(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\x00")
	return strings.Split(s, "\x00")
}

// SetConfig sets a key in the repository's own git config (.git/config).
func (r *Repo) SetConfig(ctx context.Context, key, value string) error {
	_, err := r.git(ctx, []string{"config", "--local", key, value}, nil, nil)
	return err
}

// ConfigMatching reads the keys of the repository's own git config that the
// regular expression re matches, with their values (the last of a key set twice),
// in one git process; none set is an empty map.
func (r *Repo) ConfigMatching(ctx context.Context, re string) (map[string]string, error) {
	m := map[string]string{}
	err := r.configRegexp(ctx, true, re, func(k, v string) { m[k] = v })
	return m, err
}

// configRegexp calls each with every key of git's config that re matches and its
// value, in git's order: the repository's own config (local) or all of them.
func (r *Repo) configRegexp(ctx context.Context, local bool, re string, each func(key, value string)) error {
	args := []string{"config", "-z", "--get-regexp", re}
	if local {
		args = []string{"config", "--local", "-z", "--get-regexp", re}
	}
	out, err := r.git(ctx, args, nil, nil)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.Stderr == "" {
			return nil // nothing matches: git config exits 1, silent
		}
		return fmt.Errorf("read git config: %w", err)
	}
	for _, kv := range splitNUL(out) {
		k, v, _ := strings.Cut(kv, "\n")
		each(k, v)
	}
	return nil
}

// Config reads a key of the repository's own git config; "" when it is not set.
func (r *Repo) Config(ctx context.Context, key string) (string, error) {
	out, err := r.git(ctx, []string{"config", "--local", "--get", key}, nil, nil)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
