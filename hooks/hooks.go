// Package hooks holds what strom installs around git and around the agent: the git
// pre-commit hook that keeps a broken queue out of history, and the Claude Code
// settings overlay. Installing never replaces a hook the user already has: strom's
// hook runs it first and only then does its own check.
package hooks

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strom-research/strom/internal/shellword"

	"github.com/strom-research/strom/messages"
)

//go:embed pre-commit.sh
var preCommit []byte

// Marker is a line every hook strom writes carries, so a second install can tell its
// own hook from the user's.
const Marker = "# strom-hook: pre-commit"

// ChainedSuffix names the user's own hook once strom's hook runs it.
const ChainedSuffix = ".strom-chained"

// Options tune Install.
type Options struct {
	// Strom is the absolute path of the strom binary the hook falls back to when
	// strom is not on PATH; "" = this process's executable.
	Strom string
}

// Result says what Install did.
type Result struct {
	Path    string // the hook
	Chained string // the user's own hook, now run first; "" if there was none
	Changed bool   // false when everything was already in place
}

// Install puts the pre-commit hook into dir, the hooks folder git uses
// (gitrepo.Repo.HooksDir: core.hooksPath included). A hook the user already has is
// kept beside it as pre-commit.strom-chained and run first. Running Install twice
// changes nothing.
func Install(dir string, o Options) (Result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("install hook: %w", err)
	}
	if o.Strom == "" {
		o.Strom, _ = os.Executable()
	}
	want := bytes.ReplaceAll(preCommit, []byte("@STROM@"), []byte(shellword.Quote(o.Strom)))
	path := filepath.Join(dir, "pre-commit")
	chained := path + ChainedSuffix
	_, err := os.Stat(chained)
	hasChained := err == nil
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return res, fmt.Errorf("read hook %s: %w", path, err)
	case bytes.Contains(old, []byte(Marker)):
		if bytes.Equal(old, want) {
			if hasChained {
				res.Chained = chained
			}
			return res, nil
		}
	default: // the user's own hook
		if hasChained {
			return res, messages.New("hooks.both_exist", messages.Args{"Path": path, "Chained": chained})
		}
		if err := os.Rename(path, chained); err != nil {
			return res, fmt.Errorf("keep the user's hook: %w", err)
		}
		hasChained = true
	}
	if hasChained {
		res.Chained = chained
	}
	tmp, err := os.CreateTemp(dir, ".pre-commit.strom-*")
	if err != nil {
		return res, fmt.Errorf("write hook: %w", err)
	}
	_, werr := tmp.Write(want)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o755), os.Rename(tmp.Name(), path)); err != nil {
		os.Remove(tmp.Name())
		return res, fmt.Errorf("write hook: %w", err)
	}
	res.Changed = true
	return res, nil
}
