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
// write that caused it. The commit holds the queue as the last commit had it
// (Tree.HeadQueue), migrated; the work tree's changes not committed yet are written
// after it, and stay uncommitted. A migration cut short, or whose commit fails,
// leaves the older layout in place, and the next write migrates again.

// MigrateQueue migrates a queue of an older version now, under the lock; it does
// nothing to a current one.
func (t *Tree) MigrateQueue() error {
	return t.ensureCurrent()
}

// migrateLocked migrates the queue of version from (1 or 2) to version 3. When
// OnMigrate fails the research is put back as it was and its error returned.
func (t *Tree) migrateLocked(from int) error {
	shown := t.rel(QueueFile)
	data, err := readFile(t.Path(QueueFile))
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
		b, err := readFile(t.Path(TaskFile(id)))
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
		b, err := readFile(t.Path(rel))
		if err != nil {
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
		older[rel] = b
	}
	// The commit holds the queue as HEAD has it, migrated; the work tree's
	// changes not committed yet are written over it after the commit.
	committed := q
	if t.OnMigrate != nil && t.HeadQueue != nil {
		if hq, err := t.HeadQueue(); err == nil && hq != nil {
			committed = hq
		}
	}
	written := map[string][]byte{}
	undo := func() {
		for rel := range written {
			os.Remove(t.Path(rel))
		}
		for rel, b := range older {
			_ = WriteAtomic(t.Path(rel), b, 0o644)
		}
		os.Remove(t.Path(TasksDir)) // only when empty
	}
	// write writes q in the layout of version 3 over what the last write left
	// (note: the tasks that differ from it go to the list of tasks written).
	write := func(q *Queue, note bool) error {
		groups := byShard(q.Tasks)
		for _, rel := range slices.Sorted(maps.Keys(groups)) {
			data, _, err := t.writeShardNoting(rel, groups[rel], written[rel], note)
			if err != nil {
				return err
			}
			written[rel] = data
		}
		for _, rels := range []map[string][]byte{written, older} {
			for rel := range rels {
				if _, ok := groups[rel]; !ok {
					if err := os.Remove(t.Path(rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
						return err
					}
					delete(written, rel)
				}
			}
		}
		ids := make([]string, len(q.Tasks))
		for i := range q.Tasks {
			ids[i] = q.Tasks[i].ID
		}
		_, err := t.writeOrder(&Order{Version: QueueVersion, NextID: q.NextID, Order: ids}, nil, nil)
		return err
	}
	if err := write(committed, false); err != nil {
		undo()
		if werr := WriteAtomic(t.Path(QueueFile), data, 0o644); werr != nil {
			return errors.Join(err, werr)
		}
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	t.dropQueueIndex()
	if t.OnMigrate != nil {
		if err := t.OnMigrate(from, QueueVersion, len(committed.Tasks)); err != nil {
			if werr := WriteAtomic(t.Path(QueueFile), data, 0o644); werr != nil {
				return errors.Join(err, werr)
			}
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	if committed != q {
		if err := write(q, true); err != nil {
			// Nothing is lost: the older files of the work tree stay beside.
			for rel, b := range older {
				if _, _, isShard := ShardOfFile(rel); !isShard {
					_ = WriteAtomic(t.Path(rel), b, 0o644)
				}
			}
			return fmt.Errorf("migrate %s: the changes not committed yet were not written in the new layout (the older task files are kept in %s): %w", shown, t.rel(TasksDir), err)
		}
		t.dropQueueIndex()
	}
	return nil
}
