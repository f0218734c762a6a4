package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// CheckStaged is the pre-commit hook's check: every staged .strom/ file is valid,
// the order and the task files agree, no task of HEAD's queue is gone, and inside a
// session no task is reworded. A person may reword tasks (strom task edit); nobody
// deletes them. Only the staged files are read, and the index's list of task files
// when the queue's files changed.
func CheckStaged(ctx context.Context, r *Research, inSession bool) error {
	g, err := r.Git(ctx)
	if err != nil {
		return err
	}
	// git commit -a and git commit PATHS hand the hook an index of their own.
	g = g.WithIndex(r.Getenv("GIT_INDEX_FILE"))
	staged, err := g.StagedPaths(ctx, statefiles.DirName+"/")
	if err != nil {
		return err
	}
	queue := statefiles.DirName + "/" + statefiles.QueueFile
	var after *statefiles.Queue // the staged version 1 queue, when the commit changes it
	var order *statefiles.Order // the staged order, when the commit changes it
	queueFiles := false         // the commit changes the order or a task file
	for _, p := range staged {
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		data, err := g.ReadBlob(ctx, ":"+p)
		id, isTask := statefiles.TaskOfFile(rel)
		if err != nil {
			switch {
			case rel == statefiles.QueueFile:
				return messages.New("hooks.queue_deleted", nil)
			case isSegment(rel):
				return messages.New("hooks.records_deleted", messages.Args{"File": p})
			case isTask:
				title := ""
				if old, err := g.ReadBlob(ctx, "HEAD:"+p); err == nil {
					if t, err := statefiles.ParseTask("HEAD:"+p, rel, old); err == nil {
						title = t.Title
					}
				}
				return messages.New("hooks.task_file_deleted", messages.Args{"Task": id, "Title": title, "File": p})
			}
			continue // another state file deleted: its default applies
		}
		switch {
		case rel == statefiles.QueueFile && statefiles.QueueVersionOf(data) == 1:
			if after, err = statefiles.ParseQueue(p, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
		case rel == statefiles.QueueFile:
			if order, err = statefiles.ParseOrder(p, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
			queueFiles = true
		case isTask:
			t, err := statefiles.ParseTask(p, rel, data)
			if err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
			queueFiles = true
			if !inSession {
				continue
			}
			if old, err := g.ReadBlob(ctx, "HEAD:"+p); err == nil {
				if was, err := statefiles.ParseTask("HEAD:"+p, rel, old); err == nil && (was.Title != t.Title || was.Body != t.Body) {
					return messages.New("hooks.task_file_reworded", messages.Args{"Task": id, "Title": was.Title, "File": p})
				}
			}
		case isRecords(rel):
			if err := checkStagedRecords(ctx, g, p, rel, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
		default:
			if err := statefiles.Validate(rel, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
		}
	}
	if queueFiles {
		if err := checkStagedOrder(ctx, g, order); err != nil {
			return err
		}
	}
	if after == nil {
		return nil
	}
	old, err := g.ReadBlob(ctx, "HEAD:"+queue)
	if err != nil {
		return nil // no queue in HEAD yet (first commit): nothing to lose
	}
	before, err := statefiles.ParseQueue("HEAD:"+queue, old)
	if err != nil {
		return nil // HEAD's queue was broken already (or of the newer layout): let the staged one mend it
	}
	if problem := QueueLoss(before, after, inSession); problem != nil {
		return messages.New("hooks.refused_loss", messages.Args{"Problem": problem})
	}
	return nil
}

// isSegment reports whether a path under .strom/ is a segment of the records.
func isSegment(rel string) bool {
	_, ok := statefiles.SegmentOfFile(rel)
	return ok
}

// isRecords reports whether a path under .strom/ is a file of records: a segment
// or an older progress.jsonl.
func isRecords(rel string) bool {
	return isSegment(rel) || rel == statefiles.ProgressFile
}

// checkStagedRecords validates a staged file of records: when the commit only
// appends to HEAD's version, the new lines alone; else every line.
func checkStagedRecords(ctx context.Context, g *gitrepo.Repo, p, rel string, data []byte) error {
	old, err := g.ReadBlob(ctx, "HEAD:"+p)
	if err == nil && len(old) > 0 && old[len(old)-1] == '\n' && bytes.HasPrefix(data, old) {
		return statefiles.CheckProgressLines(p, data[len(old):], bytes.Count(old, []byte("\n"))+1)
	}
	return statefiles.Validate(rel, data)
}

// checkStagedOrder checks what spans the staged queue's files: the order (staged,
// or read from the index when the commit leaves it) and the task files in the index
// agree, and the order keeps every task of HEAD's.
func checkStagedOrder(ctx context.Context, g *gitrepo.Repo, order *statefiles.Order) error {
	queue := statefiles.DirName + "/" + statefiles.QueueFile
	if order == nil {
		data, err := g.ReadBlob(ctx, ":"+queue)
		if err != nil {
			return messages.New("hooks.order_missing", messages.Args{"Queue": queue, "Tasks": statefiles.DirName + "/" + statefiles.TasksDir})
		}
		if statefiles.QueueVersionOf(data) == 1 {
			return messages.New("hooks.order_version1", messages.Args{"Queue": queue})
		}
		if order, err = statefiles.ParseOrder(":"+queue, data); err != nil {
			return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
		}
	}
	paths, err := g.IndexPaths(ctx, statefiles.DirName+"/"+statefiles.TasksDir+"/")
	if err != nil {
		return err
	}
	var ids []string
	for _, p := range paths {
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		id, ok := statefiles.TaskOfFile(rel)
		if !ok {
			err := statefiles.Validate(rel, nil)
			return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
		}
		ids = append(ids, id)
	}
	staged := make(map[string]bool, len(ids))
	for _, id := range ids {
		staged[id] = true
	}
	for _, id := range order.Order {
		p := statefiles.DirName + "/" + statefiles.TaskFile(id)
		if _, err := os.Stat(filepath.Join(g.Root, filepath.FromSlash(p))); !staged[id] && err == nil {
			return messages.New("hooks.task_not_staged", messages.Args{"Task": id, "File": p})
		}
	}
	if err := statefiles.CheckFiles(queue, order, ids); err != nil {
		return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
	}
	old, err := g.ReadBlob(ctx, "HEAD:"+queue)
	if err != nil {
		return nil // no queue in HEAD yet: nothing to lose
	}
	in := make(map[string]bool, len(order.Order))
	for _, id := range order.Order {
		in[id] = true
	}
	var was []string
	if statefiles.QueueVersionOf(old) == 1 {
		before, err := statefiles.ParseQueue("HEAD:"+queue, old)
		if err != nil {
			return nil
		}
		for _, t := range before.Tasks {
			was = append(was, t.ID)
		}
	} else if before, err := statefiles.ParseOrder("HEAD:"+queue, old); err == nil {
		was = before.Order
	}
	for _, id := range was {
		if !in[id] {
			return messages.New("hooks.order_drops", messages.Args{"Task": id, "Queue": queue})
		}
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
