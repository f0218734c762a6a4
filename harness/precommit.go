package harness

import (
	"context"
	"strings"

	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
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
				return messages.New("hooks.queue_deleted", nil)
			}
			continue // another state file deleted: its default applies
		}
		if rel == statefiles.QueueFile {
			if after, err = statefiles.ParseQueue(p, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
			continue
		}
		if err := statefiles.Validate(rel, data); err != nil {
			return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
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
	if problem := QueueLoss(before, after, inSession); problem != nil {
		return messages.New("hooks.refused_loss", messages.Args{"Problem": problem})
	}
	return nil
}

// QueueLoss says how after lost or reworded a task of before (nil when nothing
// was). Rewording counts only when reworded is forbidden (an agent's change).
func QueueLoss(before, after *statefiles.Queue, rewordForbidden bool) error {
	for _, l := range lostTasks(before, after) {
		if l.at < 0 {
			return messages.New("hooks.task_deleted", messages.Args{"Task": l.was.ID, "Title": l.was.Title})
		}
		if rewordForbidden {
			return messages.New("hooks.task_reworded", messages.Args{"Task": l.was.ID, "Title": l.was.Title})
		}
	}
	return nil
}

// lostTask is a task of an earlier queue that a later one deleted (at -1) or
// reworded (at is its index in the later queue); was is the earlier version.
type lostTask struct {
	was statefiles.Task
	at  int
}

// lostTasks lists, in before's order, the tasks after deleted or reworded: the
// changes to the queue that only a person may make.
func lostTasks(before, after *statefiles.Queue) []lostTask {
	at := make(map[string]int, len(after.Tasks))
	for i, t := range after.Tasks {
		at[t.ID] = i
	}
	var out []lostTask
	for _, t := range before.Tasks {
		i, ok := at[t.ID]
		switch {
		case !ok:
			out = append(out, lostTask{was: t, at: -1})
		case after.Tasks[i].Title != t.Title || after.Tasks[i].Body != t.Body:
			out = append(out, lostTask{was: t, at: i})
		}
	}
	return out
}
