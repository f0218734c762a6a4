package statefiles

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
)

// A queue of version 1 (every task in queue.json) or 2 (a file per task,
// .strom/tasks/T-N.json) is migrated to version 3 at the first write of the queue:
// every task into its shard, the older task files removed, queue.json of version 3
// in its place, then the harness's commit of all of it (Tree.OnMigrate), before the
// write that caused it. A migration cut short, or whose commit fails, leaves the
// older layout in place, and the next write migrates again.

// MigrateQueue migrates a queue of an older version now, under the lock; it does
// nothing to a current one.
func (t *Tree) MigrateQueue() error {
	return t.ensureCurrent()
}

// migrateLocked migrates the queue of version from (1 or 2) to version 3. When
// OnMigrate fails the research is put back as it was and its error returned.
func (t *Tree) migrateLocked(from int) error {
	shown := t.rel(QueueFile)
	data, err := os.ReadFile(t.Path(QueueFile))
	if err != nil {
		return fmt.Errorf("read %s: %w", shown, err)
	}
	var q *Queue
	if from == 1 {
		q, err = ParseQueue(shown, data)
	} else {
		var o *Order
		if o, err = ParseOrder(shown, data); err == nil {
			q, err = t.loadTasks2(o)
		}
	}
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	// The files of the older layout, kept to put back: version 2's task files,
	// and shards a migration cut short left.
	older := map[string][]byte{}
	ids2, err := t.taskFiles2()
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	for _, id := range ids2 {
		b, err := os.ReadFile(t.Path(TaskFile(id)))
		if err != nil {
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
		older[TaskFile(id)] = b
	}
	left, err := t.shardFiles()
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	for _, rel := range left {
		b, err := os.ReadFile(t.Path(rel))
		if err != nil {
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
		older[rel] = b
	}
	groups := byShard(q.Tasks)
	undo := func() {
		for rel := range groups {
			os.Remove(t.Path(rel))
		}
		for rel, b := range older {
			_ = WriteAtomic(t.Path(rel), b, 0o644)
		}
		os.Remove(t.Path(TasksDir)) // only when empty
	}
	for _, rel := range slices.Sorted(maps.Keys(groups)) {
		if _, _, err := t.writeShardNoting(rel, groups[rel], nil, false); err != nil {
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	for rel := range older {
		if _, ok := groups[rel]; !ok {
			if err := os.Remove(t.Path(rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
				undo()
				return fmt.Errorf("migrate %s: %w", shown, err)
			}
		}
	}
	ids := make([]string, len(q.Tasks))
	for i := range q.Tasks {
		ids[i] = q.Tasks[i].ID
	}
	o := &Order{Version: QueueVersion, NextID: q.NextID, Order: ids}
	if err := t.writeOrder(o, nil, nil); err != nil {
		undo()
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	t.dropQueueIndex()
	if t.OnMigrate != nil {
		if err := t.OnMigrate(from, QueueVersion, len(ids)); err != nil {
			if werr := WriteAtomic(t.Path(QueueFile), data, 0o644); werr != nil {
				return errors.Join(err, werr)
			}
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	return nil
}
