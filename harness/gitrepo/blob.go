package gitrepo

import (
	"context"
	"fmt"
)

// StagedPaths lists the paths under pathspec whose staged content differs from HEAD
// (deleted ones included), as `git diff --cached --name-only` names them.
func (r *Repo) StagedPaths(ctx context.Context, pathspec string) ([]string, error) {
	out, err := r.git(ctx, []string{"diff", "--cached", "--name-only", "--no-renames", "-z", "--", pathspec}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("list staged paths: %w", err)
	}
	return splitNUL(out), nil
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
