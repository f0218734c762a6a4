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

// checkFilters runs every required clean filter of git's config (filter.<name>.
// required) on empty input, as git add would on a file its attributes give it to:
// one that fails would refuse the session's commit after the agent worked. A
// filter that is not required cannot stop a commit (git keeps the file as it is),
// and a process filter (filter.<name>.process alone) speaks a protocol that
// empty input does not try: neither is run.
func checkFilters(ctx context.Context, r *research.Research, g *gitrepo.Repo) error {
	filters, err := g.RequiredFilters(ctx)
	if err != nil {
		return err
	}
	for _, f := range filters {
		if f.Clean == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, filterTimeout)
		cmd := exec.CommandContext(ctx, "sh", "-c", strings.ReplaceAll(f.Clean, "%f", "strom-filter-probe"))
		cmd.Dir = r.Tree.Root
		out := &capped.Tail{N: 4 << 10}
		cmd.Stdout, cmd.Stderr = io.Discard, out
		err := procgroup.Run(cmd)
		cancel()
		if err != nil {
			cause := strings.TrimSpace(out.String())
			if i := strings.LastIndex(cause, "\n"); i >= 0 {
				cause = cause[i+1:]
			}
			if cause == "" {
				cause = err.Error()
			}
			return messages.New("run.filter_fails", messages.Args{"Name": f.Name, "Cause": termsafe.Excerpt(cause)})
		}
	}
	return nil
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
