package harness

import (
	"context"
	"strings"

	"github.com/strom-research/strom/statefiles"
)

// readyForSession checks everything a session's commit needs, before a task is
// taken: every state file reads and validates (queue, progress, park, mode, the
// settings), and git can commit (nothing in progress, no lock held, HEAD on a
// branch, the git dir writable). The first failure comes back as one sentence;
// nothing has changed then, and no agent starts.
func (r *Research) readyForSession(ctx context.Context) error {
	// Through the index: a fresh one says the queue as it stands was validated;
	// a stale one is built again, validating the queue whole.
	if _, err := r.Tree.QueueSummary(ctx); err != nil {
		return err
	}
	if err := r.checkRecords(ctx); err != nil {
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
	return g.ReadyToCommit(ctx)
}

// checkRecords validates the records' files changed since the last commit (git
// status of .strom's records): what was committed was checked on its way in, and
// what a command reads it validates; a file broken by hand since would stop the
// session's commit after the agent worked.
func (r *Research) checkRecords(ctx context.Context) error {
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
