package statefiles

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
)

// A queue of version 1 (every task in queue.json), 2 (a file per task,
// .strom/tasks/T-N.json) or 3 (the order of every task in queue.json, the tasks in
// files of a hundred) is migrated to version 4 at the first write of the queue:
// every task into its file of a hundred, the older task files removed, queue.json
// of version 4 in its place, then the harness's commit of all of it
// (Tree.OnMigrate), before the write that caused it. The commit holds the queue as
// the last commit had it (Tree.HeadQueue), migrated; the work tree's changes not
// committed yet are written after it, and stay uncommitted. A migration cut
// short, or whose commit fails, leaves the older layout in place, and the next
// write migrates again.

// MigrateQueue migrates a queue of an older version now, under the lock; it does
// nothing to a current one.
func (t *Tree) MigrateQueue() error {
	return t.ensureCurrent()
}

// readOlder reads a queue of version from (1, 2 or 3) whole.
func (t *Tree) readOlder(from int, data []byte) (*Queue, error) {
	shown := t.rel(QueueFile)
	if from == 1 {
		return ParseQueue(shown, data)
	}
	o, err := ParseOrder3(shown, data)
	if err != nil {
		return nil, err
	}
	if from == 2 {
		return t.loadTasks2(o)
	}
	return t.loadShards3(o)
}

// migrateLocked migrates the queue of version from (1, 2 or 3) to version 4. When
// OnMigrate fails the research is put back as it was and its error returned.
func (t *Tree) migrateLocked(from int) error {
	shown := t.rel(QueueFile)
	data, err := readFile(t.Path(QueueFile))
	if err != nil {
		return fmt.Errorf("read %s: %w", shown, err)
	}
	q, err := t.readOlder(from, data)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	// The files of the older layout, kept to put back: version 2's task files,
	// and the shards (version 3's, or those a migration cut short left).
	ids2, err := t.taskFiles2()
	shards, serr := t.shardFiles()
	if err := errors.Join(err, serr); err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	for _, id := range ids2 {
		shards = append(shards, TaskFile(id))
	}
	older := map[string][]byte{}
	for _, rel := range shards {
		if older[rel], err = readFile(t.Path(rel)); err != nil {
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	// The commit holds the queue as HEAD has it, migrated; the work tree's
	// changes not committed yet are written over it after the commit.
	committed := q
	if t.OnMigrate != nil && t.HeadQueue != nil {
		if hq, err := t.HeadQueue(); err == nil && hq != nil {
			committed = hq
		}
	}
	cur := maps.Clone(older) // every file's bytes as they stand
	written := map[string]bool{}
	// write writes q in the layout of version 4 over what stands, queue.json last
	// (note: the tasks that differ from it go to the list of tasks written).
	write := func(q *Queue, note bool) error {
		groups := byShard(q.Tasks)
		for rel := range cur {
			if _, ok := groups[rel]; !ok {
				groups[rel] = nil // removed
			}
		}
		for _, rel := range slices.Sorted(maps.Keys(groups)) {
			b, wrote, err := t.writeShard(rel, groups[rel], cur[rel], note)
			if err != nil {
				return err
			}
			if cur[rel], written[rel] = b, written[rel] || wrote; b == nil {
				delete(cur, rel)
			}
		}
		_, err := t.writeOrder(orderOf(q, q.NextID), nil)
		return err
	}
	putBack := func(err error) error {
		back := maps.Clone(older)
		back[QueueFile] = data
		for rel := range written {
			if _, ok := older[rel]; !ok {
				back[rel] = nil
			}
		}
		if werr := t.writeFiles(back); werr != nil {
			return errors.Join(err, werr)
		}
		os.Remove(t.Path(TasksDir)) // only when empty
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	if err := write(committed, false); err != nil {
		return putBack(err)
	}
	if t.OnMigrate != nil {
		if err := t.OnMigrate(from, QueueVersion, len(committed.Tasks)); err != nil {
			return putBack(err)
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
	}
	return nil
}
