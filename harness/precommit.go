package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/strom-research/strom/statefiles"
)

// CheckStaged is the pre-commit hook's check: every staged .strom/ file is valid,
// no task of HEAD's queue is gone, and inside a session no task is reworded. A person
// may reword tasks (strom task edit); nobody deletes them.
func CheckStaged(ctx context.Context, r *Research, inSession bool) error {
	g, err := r.Git(ctx)
	if err != nil {
		return err
	}
	staged, err := g.StagedPaths(ctx, statefiles.DirName+"/")
	if err != nil {
		return err
	}
	var after *statefiles.Queue // the staged queue, when the commit changes it
	for _, p := range staged {
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		data, err := g.ReadBlob(ctx, ":"+p)
		if err != nil {
			if rel == statefiles.QueueFile {
				return fmt.Errorf("this commit deletes .strom/queue.json and with it every task: undo with git restore --staged --worktree .strom/queue.json")
			}
			continue // another state file deleted: its default applies
		}
		if rel == statefiles.QueueFile {
			if after, err = statefiles.ParseQueue(p, data); err != nil {
				return fmt.Errorf("commit refused: %w", err)
			}
			continue
		}
		if err := statefiles.Validate(rel, data); err != nil {
			return fmt.Errorf("commit refused: %w", err)
		}
	}
	if after == nil {
		return nil
	}
	queue := statefiles.DirName + "/" + statefiles.QueueFile
	old, err := g.ReadBlob(ctx, "HEAD:"+queue)
	if err != nil {
		return nil // no queue in HEAD yet (first commit): nothing to lose
	}
	before, err := statefiles.ParseQueue("HEAD:"+queue, old)
	if err != nil {
		return nil // HEAD's queue was broken already: the staged one is valid, let it mend it
	}
	if problem := QueueLoss(before, after, inSession); problem != "" {
		return fmt.Errorf("commit refused: %s: undo with git restore --staged --worktree .strom/queue.json (or git checkout HEAD -- .strom/queue.json)", problem)
	}
	return nil
}

// QueueLoss says how after lost or reworded a task of before ("" when nothing was).
// Rewording counts only when reworded is forbidden (an agent's change).
func QueueLoss(before, after *statefiles.Queue, rewordForbidden bool) string {
	have := make(map[string]*statefiles.Task, len(after.Tasks))
	for i := range after.Tasks {
		have[after.Tasks[i].ID] = &after.Tasks[i]
	}
	for _, t := range before.Tasks {
		n, ok := have[t.ID]
		if !ok {
			return fmt.Sprintf("task %s (%q) would be deleted", t.ID, t.Title)
		}
		if rewordForbidden && (n.Title != t.Title || n.Body != t.Body) {
			return fmt.Sprintf("task %s (%q) was reworded inside a session; only a person rewords tasks", t.ID, t.Title)
		}
	}
	return ""
}
