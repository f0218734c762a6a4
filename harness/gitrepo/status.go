package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// ChangeKind says what kind of entry a Change is in `git status --porcelain=v2`.
type ChangeKind int

// The kinds of Change.
const (
	Changed   ChangeKind = iota // an ordinary changed entry ("1")
	Renamed                     // renamed or copied ("2"); OrigPath is the source
	Unmerged                    // an unmerged entry left by a conflict ("u")
	Untracked                   // an untracked file ("?")
	Ignored                     // an ignored file ("!"); Status does not ask for these
)

var kindNames = [...]string{"changed", "renamed", "unmerged", "untracked", "ignored"}

func (k ChangeKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("ChangeKind(%d)", int(k))
	}
	return kindNames[k]
}

// Change is one entry of the work tree's status.
type Change struct {
	Kind     ChangeKind
	Path     string // relative to the work tree top, with forward slashes
	OrigPath string // for Renamed: the path it was renamed or copied from
	// Index and Worktree are git's XY codes: '.' unchanged, 'M' modified,
	// 'T' type changed, 'A' added, 'D' deleted, 'R' renamed, 'C' copied,
	// 'U' updated but unmerged; '?' for untracked files.
	Index, Worktree byte
}

// Status lists the changes in the work tree and index, untracked files one by one,
// from `GIT_OPTIONAL_LOCKS=0 git status --porcelain=v2 -z`. It takes no lock, so it is
// safe beside a running git.
func (r *Repo) Status(ctx context.Context) ([]Change, error) {
	return r.StatusOf(ctx)
}

// StatusOf is Status limited to the paths under pathspecs (relative to the top):
// git looks at those files only.
func (r *Repo) StatusOf(ctx context.Context, pathspecs ...string) ([]Change, error) {
	args := []string{"status", "--porcelain=v2", "-z", "--untracked-files=all"}
	if len(pathspecs) > 0 {
		args = append(append(args, "--"), pathspecs...)
	}
	out, err := r.git(ctx, args, nil, []string{"GIT_OPTIONAL_LOCKS=0"})
	if err != nil {
		return nil, fmt.Errorf("read status: %w", err)
	}
	ch, err := parseStatus(out)
	if err != nil {
		return nil, fmt.Errorf("read status: %w", err)
	}
	return ch, nil
}

// parseStatus parses porcelain v2 -z output.
func parseStatus(out []byte) ([]Change, error) {
	recs := splitNUL(out)
	var changes []Change
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if rec == "" {
			continue
		}
		var c Change
		switch rec[0] {
		case '#':
			continue
		case '1', '2', 'u':
			fields := map[byte]int{'1': 8, '2': 9, 'u': 10}[rec[0]]
			parts := strings.SplitN(rec, " ", fields+1)
			if len(parts) != fields+1 || len(parts[1]) != 2 {
				return nil, fmt.Errorf("parse status entry %q: unexpected format", rec)
			}
			c.Index, c.Worktree = parts[1][0], parts[1][1]
			c.Path = parts[fields]
			switch rec[0] {
			case '1':
				c.Kind = Changed
			case 'u':
				c.Kind = Unmerged
			case '2':
				c.Kind = Renamed
				if i+1 >= len(recs) {
					return nil, fmt.Errorf("parse status entry %q: missing original path", rec)
				}
				i++
				c.OrigPath = recs[i]
			}
		case '?', '!':
			if len(rec) < 3 {
				return nil, fmt.Errorf("parse status entry %q: unexpected format", rec)
			}
			c.Kind, c.Index, c.Worktree = Untracked, '?', '?'
			if rec[0] == '!' {
				c.Kind, c.Index, c.Worktree = Ignored, '!', '!'
			}
			c.Path = rec[2:]
		default:
			return nil, fmt.Errorf("parse status entry %q: unknown entry type", rec)
		}
		changes = append(changes, c)
	}
	return changes, nil
}
