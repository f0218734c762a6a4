package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// Staged is a path whose staged content differs from HEAD.
type Staged struct {
	Path string // relative to the work tree top, with forward slashes
	Link bool   // staged as a symbolic link (git's mode 120000)
}

// StagedPaths lists the paths under pathspec whose staged content differs from HEAD
// (deleted ones included), as `git diff --cached --raw` names them.
func (r *Repo) StagedPaths(ctx context.Context, pathspec string) ([]Staged, error) {
	out, err := r.git(ctx, []string{"diff", "--cached", "--raw", "--no-renames", "-z", "--", pathspec}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("list staged paths: %w", err)
	}
	return parseRaw(splitNUL(out)), nil
}

// parseRaw reads `git diff --raw -z` without renames: ":<old mode> <new mode> <old
// id> <new id> <status>", then the path, each field ending in NUL.
func parseRaw(fields []string) []Staged {
	var out []Staged
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(fields[i])
		out = append(out, Staged{Path: fields[i+1], Link: len(meta) > 1 && meta[1] == "120000"})
	}
	return out
}

// ReadBlob returns the content git names by spec: ":path" for the staged version,
// "HEAD:path" for the committed one. A missing file is an error.
func (r *Repo) ReadBlob(ctx context.Context, spec string) ([]byte, error) {
	out, err := r.git(ctx, []string{"cat-file", "blob", spec}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", spec, err)
	}
	return out, nil
}

// IndexPaths lists the paths under pathspec that the index holds, as `git ls-files`
// names them.
func (r *Repo) IndexPaths(ctx context.Context, pathspec string) ([]string, error) {
	out, err := r.git(ctx, []string{"ls-files", "-z", "--", pathspec}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("list the index: %w", err)
	}
	return splitNUL(out), nil
}
