package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// InProgress reports the operation under way in this work tree: "merge", "rebase",
// "am", "cherry-pick", "revert", "bisect", or "" for none. It reads the marker files in
// this work tree's own git dir (a linked worktree has its own) and starts no process.
func (r *Repo) InProgress(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	exists := func(name string) (bool, error) {
		_, err := os.Lstat(filepath.Join(r.GitDir, name))
		if err == nil {
			return true, nil
		}
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("read git state: %w", err)
	}
	checks := []struct{ file, op string }{
		{"rebase-merge", "rebase"},
		{"rebase-apply/applying", "am"},
		{"rebase-apply", "rebase"},
		{"MERGE_HEAD", "merge"},
		{"CHERRY_PICK_HEAD", "cherry-pick"},
		{"REVERT_HEAD", "revert"},
	}
	for _, c := range checks {
		ok, err := exists(c.file)
		if err != nil {
			return "", err
		}
		if ok {
			return c.op, nil
		}
	}
	// A multi-commit cherry-pick or revert that stopped between commits keeps only
	// its sequencer; its todo list says which of the two it is.
	if todo, err := os.ReadFile(filepath.Join(r.GitDir, "sequencer", "todo")); err == nil {
		op := "cherry-pick"
		sc := bufio.NewScanner(bytes.NewReader(todo))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 || strings.HasPrefix(f[0], "#") {
				continue
			}
			if f[0] == "revert" || f[0] == "r" {
				op = "revert"
			}
			break
		}
		return op, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read git state: %w", err)
	}
	ok, err := exists("BISECT_LOG")
	if err != nil {
		return "", err
	}
	if ok {
		return "bisect", nil
	}
	return "", nil
}

// Head returns the commit HEAD points at, or ErrNoCommits on an unborn branch. It
// reads the ref files directly and asks `git rev-parse` only when it meets a layout it
// does not know (reftable, say).
func (r *Repo) Head(ctx context.Context) (string, error) {
	h, err := r.headFromFiles()
	if err == nil {
		return h, nil
	}
	if errors.Is(err, ErrNoCommits) {
		return "", err
	}
	out, gerr := r.git(ctx, []string{"rev-parse", "-q", "--verify", "HEAD^{commit}"}, nil, nil)
	if gerr != nil {
		var ge *GitError
		if errors.As(gerr, &ge) && len(out) == 0 && ge.Stderr == "" && ctx.Err() == nil {
			return "", ErrNoCommits
		}
		return "", fmt.Errorf("read HEAD: %w", gerr)
	}
	return strings.TrimSpace(string(out)), nil
}

var errUnknownLayout = errors.New("unknown ref layout")

// headFromFiles resolves HEAD through loose refs and packed-refs.
func (r *Repo) headFromFiles() (string, error) { return r.refFromFiles("HEAD") }

// refFromFiles resolves the ref name (HEAD, or a full name under refs/) through
// loose refs and packed-refs: ErrNoCommits when it does not exist.
func (r *Repo) refFromFiles(name string) (string, error) {
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return "", errUnknownLayout
	}
	for range 5 {
		dir := r.CommonDir
		if name == "HEAD" || !strings.HasPrefix(name, "refs/") || perWorktreeRef(name) {
			dir = r.GitDir
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		switch {
		case err == nil:
			s := strings.TrimSpace(string(b))
			if target, ok := strings.CutPrefix(s, "ref: "); ok {
				name = strings.TrimSpace(target)
				continue
			}
			if isHash(s) {
				return s, nil
			}
			return "", errUnknownLayout
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			if name == "HEAD" {
				return "", errUnknownLayout
			}
			h, err := r.packedRef(name)
			if err != nil {
				return "", err
			}
			if h == "" {
				return "", ErrNoCommits
			}
			return h, nil
		default:
			return "", errUnknownLayout
		}
	}
	return "", errUnknownLayout
}

func perWorktreeRef(name string) bool {
	for _, p := range []string{"refs/worktree/", "refs/bisect/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// packedRef looks a ref up in packed-refs; "" means absent.
func (r *Repo) packedRef(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", errUnknownLayout
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == '#' || l[0] == '^' {
			continue
		}
		h, ref, ok := strings.Cut(l, " ")
		if ok && ref == name && isHash(h) {
			return h, nil
		}
	}
	return "", nil
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
