// Package precommit is the check the research's pre-commit hook runs on what is
// staged under .strom/.
//
// Its guarantee: no commit a person or an agent makes holds an invalid state file,
// a queue whose order and shards disagree, a task of HEAD's queue gone, or inside a
// session a task reworded.
package precommit

import (
	"bytes"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// CheckStaged is the pre-commit hook's check: every staged .strom/ file is valid,
// the order and the shards agree, no task of HEAD's queue is gone, and inside a
// session no task is reworded. A person may reword tasks (strom task edit); nobody
// deletes them. Only the staged files are read, and of the others the shards whose
// ranges the order changed in.
func CheckStaged(ctx context.Context, r *research.Research, inSession bool) error {
	g, err := r.Git(ctx)
	if err != nil {
		return err
	}
	// git commit -a and git commit PATHS hand the hook an index of their own.
	g = g.WithIndex(r.Getenv("GIT_INDEX_FILE"))
	changed, err := g.StagedPaths(ctx, statefiles.DirName)
	if err != nil {
		return err
	}
	// strom follows no link under .strom/: none goes into the history either.
	staged := make([]string, len(changed))
	for i, c := range changed {
		if c.Link {
			return messages.New("hooks.link", messages.Args{"File": c.Path})
		}
		staged[i] = c.Path
	}
	queue := statefiles.DirName + "/" + statefiles.QueueFile
	var after *statefiles.Queue // the staged version 1 queue, when the commit changes it
	var order *statefiles.Order // the staged order, when the commit changes it
	queueFiles := false         // the commit changes the order, a shard or a task file
	var shards []string         // the shards the commit changes, relative to .strom/
	var deleted2 []string       // the task files of version 2 the commit deletes
	for _, p := range staged {
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		data, err := g.ReadBlob(ctx, ":"+p)
		id, isTask := statefiles.TaskOfFile(rel)
		_, _, isShard := statefiles.ShardOfFile(rel)
		if err != nil {
			switch {
			case rel == statefiles.QueueFile:
				return messages.New("hooks.queue_deleted", nil)
			case isSegment(rel) || statefiles.RecordsOfFile(rel):
				return messages.New("hooks.records_deleted", messages.Args{"File": p})
			case isShard:
				queueFiles = true
				shards = append(shards, rel)
				if old, err := g.ReadBlob(ctx, "HEAD:"+p); err == nil {
					if tasks, err := statefiles.ParseShard("HEAD:"+p, rel, old); err == nil && len(tasks) > 0 {
						return messages.New("hooks.task_file_deleted", messages.Args{"Task": tasks[0].ID, "Title": termsafe.Line(tasks[0].Title), "File": p})
					}
				}
			case isTask:
				deleted2 = append(deleted2, p)
			}
			continue // another state file deleted: its default applies
		}
		switch {
		case rel == statefiles.QueueFile && statefiles.QueueVersionOf(data) == 1:
			if after, err = statefiles.ParseQueue(p, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
		case rel == statefiles.QueueFile && statefiles.QueueVersionOf(data) < statefiles.QueueVersion:
			if err := statefiles.Validate(rel, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
			queueFiles = true
		case rel == statefiles.QueueFile:
			if order, err = statefiles.ParseOrder(p, data); err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
			queueFiles = true
		case isShard:
			tasks, err := statefiles.ParseShard(p, rel, data)
			if err != nil {
				return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
			}
			queueFiles = true
			shards = append(shards, rel)
			old, err := g.ReadBlob(ctx, "HEAD:"+p)
			if err != nil {
				continue
			}
			before, err := statefiles.ParseShard("HEAD:"+p, rel, old)
			if err != nil {
				continue // HEAD's shard was broken already: let the staged one mend it
			}
			now := make(map[string]statefiles.Task, len(tasks))
			for _, t := range tasks {
				now[t.ID] = t
			}
			for _, was := range before {
				t, ok := now[was.ID]
				switch {
				case !ok:
					return messages.New("hooks.task_file_deleted", messages.Args{"Task": was.ID, "Title": termsafe.Line(was.Title), "File": p})
				case inSession && (was.Title != t.Title || was.Body != t.Body):
					return messages.New("hooks.task_file_reworded", messages.Args{"Task": was.ID, "Title": termsafe.Line(was.Title), "File": p})
				}
			}
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
					return messages.New("hooks.task_file_reworded", messages.Args{"Task": id, "Title": termsafe.Line(was.Title), "File": p})
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
	if len(deleted2) > 0 {
		queueFiles = true
	}
	if queueFiles {
		if err := checkStagedOrder(ctx, g, order, shards, deleted2); err != nil {
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

// isRecords reports whether a path under .strom/ is a file of records: a file of
// a hundred, or an older segment or progress.jsonl.
func isRecords(rel string) bool {
	return statefiles.RecordsOfFile(rel) || isSegment(rel) || rel == statefiles.ProgressFile
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

// checkStagedOrder checks what spans the staged queue's files: queue.json (staged,
// or read from the index when the commit leaves it) says of every task in the
// shards it checks what their files say. It checks the shards the commit changes
// and those of the tasks whose line in queue.json changed since HEAD's (every
// shard when HEAD's queue is of another version). A queue of an older version is
// committed as it is: strom checks it when it migrates it.
func checkStagedOrder(ctx context.Context, g *gitrepo.Repo, order *statefiles.Order, shards, deleted2 []string) error {
	queue := statefiles.DirName + "/" + statefiles.QueueFile
	if len(deleted2) > 0 { // the first deleted task file is the one named
		p := deleted2[0]
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		id, _ := statefiles.TaskOfFile(rel)
		title := ""
		if old, err := g.ReadBlob(ctx, "HEAD:"+p); err == nil {
			if t, err := statefiles.ParseTask("HEAD:"+p, rel, old); err == nil {
				title = t.Title
			}
		}
		return messages.New("hooks.task_file_deleted", messages.Args{"Task": id, "Title": termsafe.Line(title), "File": p})
	}
	if order == nil {
		data, err := g.ReadBlob(ctx, ":"+queue)
		if err != nil {
			return messages.New("hooks.order_missing", messages.Args{"Queue": queue, "Tasks": statefiles.DirName + "/" + statefiles.TasksDir})
		}
		switch v := statefiles.QueueVersionOf(data); {
		case v <= 2 && len(shards) > 0:
			return messages.New("hooks.order_version1", messages.Args{"Queue": queue})
		case v >= 1 && v < statefiles.QueueVersion:
			return nil
		}
		if order, err = statefiles.ParseOrder(":"+queue, data); err != nil {
			return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
		}
	}
	var head *statefiles.Order
	if old, err := g.ReadBlob(ctx, "HEAD:"+queue); err == nil && statefiles.QueueVersionOf(old) == statefiles.QueueVersion {
		head, _ = statefiles.ParseOrder("HEAD:"+queue, old)
	}
	paths, err := g.IndexPaths(ctx, statefiles.DirName+"/"+statefiles.TasksDir+"/")
	if err != nil {
		return err
	}
	inIndex := make(map[string]bool, len(paths))
	for _, p := range paths {
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		if _, _, ok := statefiles.ShardOfFile(rel); !ok {
			err := statefiles.NotShard(p)
			return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
		}
		inIndex[rel] = true
	}
	check := map[string]bool{}
	for _, rel := range shards {
		check[rel] = true
	}
	if head == nil {
		for rel := range inIndex {
			check[rel] = true
		}
		for _, e := range order.Live {
			check[statefiles.ShardFile(e.ID)] = true
		}
	} else {
		was := make(map[string]statefiles.State, len(head.Live))
		for _, e := range head.Live {
			was[e.ID] = e.State
		}
		now := make(map[string]bool, len(order.Live))
		for _, e := range order.Live {
			now[e.ID] = true
			if st, ok := was[e.ID]; !ok || st != e.State {
				check[statefiles.ShardFile(e.ID)] = true
			}
		}
		for _, e := range head.Live {
			if !now[e.ID] {
				check[statefiles.ShardFile(e.ID)] = true
			}
		}
	}
	var tasks []statefiles.Task
	read := map[string]bool{}
	have := map[string]bool{}
	for _, rel := range slices.Sorted(maps.Keys(check)) {
		read[rel] = true
		if !inIndex[rel] {
			continue
		}
		p := statefiles.DirName + "/" + rel
		data, err := g.ReadBlob(ctx, ":"+p)
		if err != nil {
			return err
		}
		some, err := statefiles.ParseShard(p, rel, data)
		if err != nil {
			return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
		}
		for _, t := range some {
			have[t.ID] = true
		}
		tasks = append(tasks, some...)
	}
	for _, e := range order.Live {
		if have[e.ID] || !read[statefiles.ShardFile(e.ID)] {
			continue
		}
		// A task only the work tree's shard holds: the commit left the file out.
		rel := statefiles.ShardFile(e.ID)
		p := statefiles.DirName + "/" + rel
		if data, err := statefiles.ReadFile(filepath.Join(g.Root, filepath.FromSlash(p))); err == nil {
			if some, err := statefiles.ParseShard(p, rel, data); err == nil && slices.ContainsFunc(some, func(t statefiles.Task) bool { return t.ID == e.ID }) {
				return messages.New("hooks.task_not_staged", messages.Args{"Task": e.ID, "File": p})
			}
		}
	}
	if err := statefiles.CheckFiles(queue, order, tasks, read); err != nil {
		return messages.Errorf(err, "hooks.refused", messages.Args{"Error": err})
	}
	return nil
}

// QueueLoss says how after lost or reworded a task of before (nil when nothing
// was). Rewording counts only when reworded is forbidden (an agent's change).
func QueueLoss(before, after *statefiles.Queue, rewordForbidden bool) error {
	for _, l := range lostTasks(before, after) {
		if l.at < 0 {
			return messages.New("hooks.task_deleted", messages.Args{"Task": l.was.ID, "Title": termsafe.Line(l.was.Title)})
		}
		if rewordForbidden {
			return messages.New("hooks.task_reworded", messages.Args{"Task": l.was.ID, "Title": termsafe.Line(l.was.Title)})
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
