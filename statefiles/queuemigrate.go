package statefiles

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
)

// A queue of version 1 (every task in queue.json), 2 (a file per task,
// .strom/tasks/T-N.json) or 3 (the order of every task in queue.json, the tasks in
// files of a hundred) is migrated to version 4 at the first write of the queue,
// with a commit of its own (Tree.OnMigrate), before the write that caused it.
//
// A migration is one change (journal.go) whatever kills it: every file of the
// work tree's queue in version 4 (each file of a hundred, queue.json, the older
// task files removed) goes into the journal first, and from then on the next
// holder of the lock writes the rest. The commit holds the queue as the last
// commit had it (Tree.HeadQueue), migrated: when the work tree has changes not
// committed yet, that queue is written before the commit and the journal's over
// it after, so that those changes stay uncommitted. A kill before the commit
// leaves the migrated files to the next commit. A commit that fails puts the
// older layout back, as one change too, and the next write migrates again.

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
	// The files of the older layout as they stand: queue.json, version 2's task
	// files, and the files of a hundred (version 3's).
	older := map[string][]byte{QueueFile: data}
	ids2, err := t.taskFiles2()
	rels, serr := t.shardFiles()
	if err := errors.Join(err, serr); err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	for _, id := range ids2 {
		rels = append(rels, TaskFile(id))
	}
	for _, rel := range rels {
		if older[rel], err = readFile(t.Path(rel)); err != nil {
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	committed := q
	if t.OnMigrate != nil && t.HeadQueue != nil {
		if hq, err := t.HeadQueue(); err == nil && hq != nil {
			committed = hq
		}
	}
	work, err := t.layout4(q, older)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	head, err := t.layout4(committed, older)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	// Both change the same files (those neither changes are left out), so that
	// the journal's change, written after HEAD's, leaves nothing of it.
	for _, one := range []map[string][]byte{work, head} {
		for rel := range one {
			_, inWork := work[rel]
			_, inHead := head[rel]
			if !inWork {
				work[rel] = nil
			}
			if !inHead {
				head[rel] = nil
			}
		}
	}
	for rel, b := range work {
		if was, ok := older[rel]; ok == (b != nil) && bytes.Equal(b, was) && bytes.Equal(head[rel], was) {
			delete(work, rel)
			delete(head, rel)
		}
	}
	// From the journal on, a kill leaves the work tree's queue migrated.
	change := changesOf(work)
	if err := t.writeJournal(change); err != nil {
		return err
	}
	same := maps.EqualFunc(work, head, bytes.Equal)
	if t.OnMigrate != nil {
		var err error
		if same {
			err = t.replay(change)
		} else {
			err = t.applyAll(changesOf(head))
		}
		if err == nil {
			err = t.OnMigrate(from, QueueVersion, len(committed.Tasks))
		}
		if err != nil {
			return t.putBack(older, work, fmt.Errorf("migrate %s: %w", shown, err))
		}
	}
	if !same || t.OnMigrate == nil {
		if err := t.replay(change); err != nil {
			return err
		}
	}
	// The tasks the work tree changes from HEAD stay changes not yet committed.
	for rel, b := range work {
		if _, _, ok := ShardOfFile(rel); ok && b != nil {
			validated.remember(shardSum(b))
			was := rawTasks(head[rel])
			for id, one := range rawTasks(b) {
				if !bytes.Equal(was[id], one) {
					t.noteWritten(id)
				}
			}
		}
	}
	return nil
}

// layout4 returns the files of q in version 4 (its files of a hundred and
// queue.json, checked), and the removal of each other file of older.
func (t *Tree) layout4(q *Queue, older map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for rel := range older {
		out[rel] = nil
	}
	for rel, tasks := range byShard(q.Tasks) {
		data, _, err := encodeShard(t.rel(rel), rel, tasks, older[rel])
		if err != nil {
			return nil, fmt.Errorf("refuse to write invalid data: %w", err)
		}
		if err := checkWriteSize(t.rel(rel), data); err != nil {
			return nil, err
		}
		out[rel] = data
	}
	data, err := EncodeOrder(orderOf(q, q.NextID))
	if err != nil {
		return nil, err
	}
	if err := checkWriteSize(t.rel(QueueFile), data); err != nil {
		return nil, err
	}
	out[QueueFile] = data
	return out, nil
}

// putBack writes the older layout back, as one change, after a migration that
// failed with err: every file of it as it was, the files written removed.
func (t *Tree) putBack(older, written map[string][]byte, err error) error {
	back := maps.Clone(older)
	for rel := range written {
		if _, ok := older[rel]; !ok {
			back[rel] = nil
		}
	}
	if werr := t.writeChange(changesOf(back)); werr != nil {
		return errors.Join(err, werr)
	}
	os.Remove(t.Path(TasksDir)) // only when empty
	return err
}

// changesOf is the change that writes files (under .strom/; nil: removed), in the
// order of their names.
func changesOf(files map[string][]byte) []fileChange {
	out := make([]fileChange, 0, len(files))
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		out = append(out, fileChange{Path: rel, Data: files[rel], Remove: files[rel] == nil})
	}
	return out
}
