package session

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/procgroup"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"

	"github.com/strom-research/strom/statefiles"
)

// ReadyForSession checks everything a session's commit needs, before a task is
// taken: every state file reads and validates (queue, progress, park, mode, the
// settings), and git can commit (nothing in progress, no lock held, HEAD on a
// branch, the git dir writable). The first failure comes back as one sentence;
// nothing has changed then, and no agent starts.
func ReadyForSession(ctx context.Context, r *research.Research) error {
	// The queue whole: queue.json and every task's file (a set of files validated
	// before costs their hash), queue.json made to follow the files where a hand
	// edit or a merge made them disagree.
	if err := r.Tree.HealQueue(); err != nil {
		return err
	}
	if err := CheckRecords(ctx, r); err != nil {
		return err
	}
	if _, err := r.Tree.LoadPark(); err != nil {
		return err
	}
	if _, err := r.Tree.LoadMode(); err != nil {
		return err
	}
	if _, err := r.Settings(); err != nil {
		return err
	}
	g, err := r.Git(ctx)
	if err != nil {
		return err
	}
	if err := g.ReadyToCommit(ctx); err != nil {
		return err
	}
	return checkFilters(ctx, r, g)
}

// filterTimeout bounds a required clean filter's run on empty input.
const filterTimeout = 30 * time.Second

// checkFilters runs every required filter of git's config (filter.<name>.
// required) as git add would on a file its attributes give it to: a clean command
// on empty input, a process filter (filter.<name>.process, git-lfs's way, which
// git runs instead of the clean command) through its greeting and the clean of an
// empty file. One that fails would refuse the session's commit after the agent
// worked. A filter that is not required cannot stop a commit (git keeps the file
// as it is), and is not run.
func checkFilters(ctx context.Context, r *research.Research, g *gitrepo.Repo) error {
	filters, err := g.RequiredFilters(ctx)
	if err != nil {
		return err
	}
	for _, f := range filters {
		if f.Clean == "" && f.Process == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, filterTimeout)
		out := &capped.Tail{N: 4 << 10}
		var cause string
		if f.Process != "" {
			cause = probeProcessFilter(ctx, r.Tree.Root, f.Process, out)
		} else {
			cmd := exec.CommandContext(ctx, "sh", "-c", strings.ReplaceAll(f.Clean, "%f", "strom-filter-probe"))
			cmd.Dir = r.Tree.Root
			cmd.Stdout, cmd.Stderr = io.Discard, out
			if err := procgroup.Run(cmd); err != nil {
				cause = err.Error()
			}
		}
		cancel()
		if cause != "" {
			if said := lastLine(out.String()); said != "" {
				cause = said
			}
			return messages.New("run.filter_fails", messages.Args{"Name": f.Name, "Cause": termsafe.Excerpt(cause)})
		}
	}
	return nil
}

// lastLine is the last line of a program's output that says something.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// CheckRecords validates the records' files changed since the last commit (git
// status of .strom's records): what was committed was checked on its way in, and
// what a command reads it validates; a file broken by hand since would stop the
// session's commit after the agent worked.
func CheckRecords(ctx context.Context, r *research.Research) error {
	g, err := r.Git(ctx)
	if err != nil {
		return err
	}
	dir := statefiles.DirName + "/"
	changes, err := g.StatusOf(ctx, dir+statefiles.RecordsDir, dir+statefiles.ProgressDir, dir+statefiles.ProgressFile)
	if err != nil {
		return err
	}
	var rels []string
	for _, c := range changes {
		if rel, ok := strings.CutPrefix(c.Path, dir); ok && c.Worktree != 'D' && c.Index != 'D' {
			rels = append(rels, rel)
		}
	}
	return r.Tree.CheckRecordFiles(rels)
}
