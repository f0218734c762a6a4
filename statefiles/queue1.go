package statefiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/strom-research/strom/schemas"
)

// Version 1 of queue.json held every task in the one file. strom reads it as it is
// (the read-only commands of a research not yet migrated) and migrates it at the
// first write of the queue: each task to its file under .strom/tasks/, then
// queue.json of version 2 in its place, then the harness's commit of both
// (Tree.OnMigrate). A migration cut short leaves version 1 in place, and the next
// write migrates again.

// ParseQueue validates the bytes of a version 1 queue.json (on disk, staged or
// committed: a history written before the tasks had files of their own), naming
// them shown in errors.
func ParseQueue(shown string, data []byte) (*Queue, error) {
	if v := queueVersion(data); v > QueueVersion {
		return nil, newerQueue(shown, v)
	} else if v == QueueVersion {
		return nil, &SchemaError{File: shown, Pointer: "/version", Rule: "version 2 holds the order only: its tasks are in .strom/tasks/"}
	}
	q := &Queue{Version: 1, NextID: 1, Tasks: []Task{}}
	if err := check(shown, schemas.Queue1, data); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, q); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if err := q.check(shown); err != nil {
		return nil, err
	}
	return q, nil
}

// EncodeQueue returns the bytes of q as a version 1 queue.json, checked: what a
// merge of two version 1 histories leaves behind.
func EncodeQueue(q *Queue) ([]byte, error) {
	v1 := *q
	v1.Version = 1
	data, err := marshal(&v1)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", QueueFile, err)
	}
	if _, err := ParseQueue(DirName+"/"+QueueFile, data); err != nil {
		return nil, err
	}
	return data, nil
}

// MigrateQueue migrates a version 1 queue.json now, under the lock; it does nothing
// to a current one.
func (t *Tree) MigrateQueue() error {
	return t.ensureCurrent()
}

// migrateLocked writes each task of the version 1 queue.json to its file, then
// queue.json of version 2, then lets OnMigrate commit them. When OnMigrate fails the
// research is put back as it was (version 1) and its error returned.
func (t *Tree) migrateLocked() error {
	shown := t.rel(QueueFile)
	data, err := os.ReadFile(t.Path(QueueFile))
	if err != nil {
		return fmt.Errorf("read %s: %w", shown, err)
	}
	q, err := ParseQueue(shown, data)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	if err := os.MkdirAll(t.Path(TasksDir), 0o755); err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	var wrote []string
	undo := func() {
		for _, id := range wrote {
			os.Remove(t.Path(TaskFile(id)))
		}
		os.Remove(t.Path(TasksDir)) // only when empty
	}
	ids := make([]string, len(q.Tasks))
	for i := range q.Tasks {
		task := &q.Tasks[i]
		ids[i] = task.ID
		old, _ := readOptional(t.Path(TaskFile(task.ID)))
		if old == nil {
			wrote = append(wrote, task.ID)
		}
		if _, err := t.writeTask(task, old); err != nil {
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	// Task files no version 1 task owns (left by a migration cut short, or a hand
	// edit) would break the order's rule; they go.
	if files, err := t.taskFiles(); err == nil {
		in := make(map[string]bool, len(ids))
		for _, id := range ids {
			in[id] = true
		}
		for _, id := range files {
			if !in[id] {
				os.Remove(t.Path(TaskFile(id)))
			}
		}
	}
	o := &Order{Version: QueueVersion, NextID: q.NextID, Order: ids}
	if err := t.writeOrder(o, nil, nil); err != nil {
		undo()
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	t.dropQueueIndex()
	if t.OnMigrate != nil {
		if err := t.OnMigrate(1, QueueVersion, len(ids)); err != nil {
			if werr := WriteAtomic(t.Path(QueueFile), data, 0o644); werr != nil {
				return errors.Join(err, werr)
			}
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	return nil
}
