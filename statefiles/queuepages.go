package statefiles

import (
	"bytes"
	"context"
	"slices"
)

// QueueSummary is what queue.json says of the whole queue.
type QueueSummary struct {
	NextID int
	Total  int
	Counts map[State]int
}

// QueueSummary returns the counts of the queue, reading queue.json alone (a queue
// of an older version is read whole).
func (t *Tree) QueueSummary(ctx context.Context) (QueueSummary, error) {
	_, o, _, err := t.readOrder()
	if err != nil {
		return QueueSummary{}, err
	}
	if o == nil {
		q, err := t.LoadQueue()
		if err != nil {
			return QueueSummary{}, err
		}
		o = orderOf(q, q.NextID)
	}
	return QueueSummary{NextID: o.NextID, Total: o.Done + len(o.Live), Counts: o.Counts()}, nil
}

// QueuePage returns up to n tasks, skipping the first skip of them, only those in
// state want when it is set, and how many tasks match in all: the tasks not done
// in queue order, then the done ones, the newest first. It reads queue.json and
// the files of the tasks it returns (and, for done tasks, the files before them).
func (t *Tree) QueuePage(ctx context.Context, want State, skip, n int) ([]Task, int, error) {
	var states []State
	if want != "" {
		states = []State{want}
	}
	for try := 0; ; try++ {
		out := []Task{}
		total, healed, err := t.eachTask(states, skip, try == 0, func(task Task) bool {
			out = append(out, task)
			return len(out) < n
		})
		if err != nil || !healed {
			return out, total, err
		}
	}
}

// EachTask calls fn with the tasks in state want (all when it is ""), in the order
// of QueuePage, until fn returns false.
func (t *Tree) EachTask(ctx context.Context, want State, fn func(Task) bool) error {
	var states []State
	if want != "" {
		states = []State{want}
	}
	return t.EachTaskIn(ctx, states, fn)
}

// EachTaskIn is EachTask for the tasks in any of states (all when there are none).
func (t *Tree) EachTaskIn(ctx context.Context, states []State, fn func(Task) bool) error {
	given := map[string]bool{}
	more := true
	for try := 0; ; try++ {
		_, healed, err := t.eachTask(states, 0, try == 0, func(task Task) bool {
			if given[task.ID] {
				return true // given before queue.json was healed
			}
			given[task.ID] = true
			more = fn(task)
			return more
		})
		if err != nil || !healed || !more {
			return err
		}
	}
}

// eachTask gives fn the tasks in any of want (all when there are none), skipping
// the first skip of them, and returns how many there are. Where queue.json and the
// tasks' files disagree, and heal is set, it makes queue.json follow them and
// says healed: the caller asks again.
func (t *Tree) eachTask(want []State, skip int, heal bool, fn func(Task) bool) (total int, healed bool, err error) {
	wanted := func(s State) bool { return len(want) == 0 || slices.Contains(want, s) }
	_, o, data, err := t.readOrder()
	if err != nil {
		return 0, false, err
	}
	if o == nil { // an older queue: read whole
		q, err := t.LoadQueue()
		if err != nil {
			return 0, false, err
		}
		var tasks []Task
		for _, task := range q.Tasks {
			if wanted(task.State) {
				tasks = append(tasks, task)
			}
		}
		for _, task := range tasks[min(skip, len(tasks)):] {
			if !fn(task) {
				break
			}
		}
		return len(tasks), false, nil
	}
	for _, st := range States {
		if wanted(st) {
			total += o.Counts()[st]
		}
	}
	seen, more := 0, true
	var cur *shard
	stale := false
	read := func(id string) (Task, bool, error) {
		if rel := ShardFile(id); cur == nil || cur.rel != rel {
			if cur, err = t.readShard(rel); err != nil {
				return Task{}, false, err
			}
		}
		i := cur.find(id)
		if i < 0 {
			return Task{}, false, nil
		}
		return cur.tasks[i], true, nil
	}
	for _, e := range o.Live {
		if !more {
			break
		}
		if !wanted(e.State) {
			continue
		}
		task, ok, err := read(e.ID)
		if err != nil {
			return 0, false, err
		}
		if !ok || task.State != e.State {
			stale = true
			if !ok || task.State == Done || !wanted(task.State) {
				continue
			}
		}
		if seen++; seen > skip {
			more = fn(task)
		}
	}
	if more && wanted(Done) {
		rels, err := t.shardFiles()
		if err != nil {
			return 0, false, err
		}
		for i := len(rels) - 1; i >= 0 && more; i-- {
			if cur, err = t.readShard(rels[i]); err != nil {
				return 0, false, err
			}
			for j := len(cur.tasks) - 1; j >= 0 && more; j-- {
				task := cur.tasks[j]
				if task.State != Done {
					if o.index(task.ID) < 0 {
						stale = true // not done in its file, missing from queue.json
					}
					continue
				}
				if o.index(task.ID) >= 0 {
					stale = true // done in its file, listed as not done
				}
				if seen++; seen > skip {
					more = fn(task)
				}
			}
		}
	}
	if stale && heal {
		// queue.json and the tasks' files disagree: a whole read makes it follow them.
		if _, err := t.LoadQueue(); err != nil {
			return 0, false, err
		}
		if now, err := readOptional(t.Path(QueueFile)); err == nil && !bytes.Equal(now, data) {
			return total, true, nil
		}
	}
	return total, false, nil
}
