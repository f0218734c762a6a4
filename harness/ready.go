package harness

import (
	"context"
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
	if err := r.Tree.CheckProgress(ctx); err != nil {
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
