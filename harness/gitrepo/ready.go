package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadyToCommit checks, without starting git, what a commit made later needs: no
// merge, rebase or similar in progress, no git lock file held, HEAD on a branch,
// and a git dir (and its objects folder) this process can write. The first
// failure is returned as one sentence: an *InProgressError or a *NotReadyError.
func (r *Repo) ReadyToCommit(ctx context.Context) error {
	if op, err := r.InProgress(ctx); err != nil {
		return err
	} else if op != "" {
		return &InProgressError{Op: op, Dir: r.Root}
	}
	if lock := r.heldLock(); lock != "" {
		return &NotReadyError{Err: ErrLocked, Msg: fmt.Sprintf("another git process holds %s: wait for it to finish (or delete the file if no git is running), then run strom again", lock)}
	}
	if err := r.OnBranch(); err != nil {
		return err
	}
	return r.Writable()
}

// OnBranch refuses a detached HEAD.
func (r *Repo) OnBranch() error {
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	if strings.HasPrefix(strings.TrimSpace(string(b)), "ref: ") {
		return nil
	}
	return &NotReadyError{Err: ErrDetachedHead, Msg: fmt.Sprintf("HEAD is detached in %s, so strom's commits would belong to no branch: switch to a branch (git switch BRANCH, or git switch -c BRANCH for a new one), then run strom again", r.Root)}
}

// Writable checks that files can be made in the git dir and its objects folder, by
// making one and removing it: permissions alone say nothing on a read-only
// mount or for root.
func (r *Repo) Writable() error {
	for _, dir := range []string{r.GitDir, filepath.Join(r.CommonDir, "objects")} {
		f, err := os.CreateTemp(dir, "strom-write-check-*")
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && dir != r.GitDir {
				continue
			}
			return &NotReadyError{Err: ErrGitDirReadOnly, Msg: fmt.Sprintf("strom cannot write in %s, so no commit can be made: make it writable (or work in a clone), then run strom again", dir)}
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// Filter is a clean filter of the repository's git config that git must run on
// every file its attributes give it to (filter.<name>.required): if it fails, git
// add fails. Where Process is set git runs it and never Clean.
type Filter struct {
	Name    string // filter.<Name>
	Clean   string // its clean command, as git runs it through the shell
	Process string // its long-running process, which speaks git's filter protocol
}

// gitBool is a boolean of git's config as git reads it: true, yes, on in any case,
// a key with no value, or a number other than 0.
func gitBool(value string) bool {
	switch strings.ToLower(value) {
	case "true", "yes", "on", "":
		return true
	}
	n, err := strconv.ParseInt(strings.TrimSpace(value), 0, 64)
	return err == nil && n != 0
}

// RequiredFilters lists the filters of the git config that are required, each
// with its clean command and its process.
func (r *Repo) RequiredFilters(ctx context.Context) ([]Filter, error) {
	clean := map[string]string{}
	process := map[string]string{}
	required := map[string]bool{}
	var names []string
	err := r.configRegexp(ctx, false, `^filter\.`, func(key, value string) {
		rest := strings.TrimPrefix(key, "filter.")
		i := strings.LastIndexByte(rest, '.')
		if i <= 0 {
			return
		}
		name, field := rest[:i], rest[i+1:]
		if _, seen := clean[name]; !seen {
			names = append(names, name)
			clean[name] = ""
		}
		switch field {
		case "clean":
			clean[name] = value
		case "process":
			process[name] = value
		case "required":
			required[name] = gitBool(value)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the filters of git's config: %w", err)
	}
	var fs []Filter
	for _, n := range names {
		if required[n] {
			fs = append(fs, Filter{Name: n, Clean: clean[n], Process: process[n]})
		}
	}
	return fs, nil
}
