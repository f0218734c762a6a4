package statefiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// Version 2 of the queue gave each task a file of its own, .strom/tasks/T-N.json,
// beside queue.json's order. strom reads it as it is (the read-only commands of a
// research not yet migrated, a history's older commits, a merge of two older
// histories) and migrates it to version 3 at the first write (queuemigrate.go).

// TaskFile names a task's file of version 2 relative to .strom/, e.g.
// "tasks/T-12.json".
func TaskFile(id string) string { return TasksDir + "/" + id + ".json" }

// TaskOfFile returns the id a path relative to .strom/ names when it is a task
// file of version 2 ("tasks/T-12.json" → "T-12").
func TaskOfFile(rel string) (string, bool) {
	name, ok := strings.CutPrefix(rel, TasksDir+"/")
	if !ok || strings.Contains(name, "/") {
		return "", false
	}
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || !validID(id) {
		return "", false
	}
	return id, true
}

// ParseTask validates the bytes of a version 2 task's file named rel under .strom/
// (e.g. "tasks/T-12.json"), naming them shown in errors: the schema, and the
// file's name is the task's id.
func ParseTask(shown, rel string, data []byte) (*Task, error) {
	if err := check(shown, schemas.Task, data); err != nil {
		return nil, err
	}
	return decodeTask2(shown, rel, data)
}

// decodeTask2 decodes a version 2 task's file whose bytes are valid, and checks
// that its name is the task's id.
func decodeTask2(shown, rel string, data []byte) (*Task, error) {
	var task Task
	if err := json.Unmarshal(data, &task); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if id, ok := TaskOfFile(rel); !ok || id != task.ID {
		return nil, &SchemaError{File: shown, Pointer: "/id", Rule: fmt.Sprintf("the task's id %s is not its file's name (%s)", task.ID, filepath.Base(rel))}
	}
	return &task, nil
}

// ParseTaskObject validates one task's JSON object against the task schema, as a
// shard holds it or a task's file of version 2 did, without asking the memo.
func ParseTaskObject(shown string, data []byte) (*Task, error) {
	if err := validate(shown, 0, schemas.Task, data); err != nil {
		return nil, err
	}
	var task Task
	if err := json.Unmarshal(data, &task); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	return &task, nil
}

// EncodeTask returns the bytes of a version 2 task's file, checked: what a merge of
// two version 2 histories leaves behind.
func EncodeTask(task *Task) ([]byte, error) {
	rel := TaskFile(task.ID)
	return encodeValid(task, "task "+task.ID, func(data []byte) error {
		_, err := ParseTask(DirName+"/"+rel, rel, data)
		return err
	})
}

// taskFiles2 lists the ids of the version 2 task files in .strom/tasks/.
func (t *Tree) taskFiles2() ([]string, error) {
	rels, err := t.filesIn(TasksDir, func(name string) (int, bool) {
		id, ok := TaskOfFile(TasksDir + "/" + name)
		return idNumber(id), ok
	})
	ids := make([]string, len(rels))
	for i, rel := range rels {
		ids[i], _ = TaskOfFile(rel)
	}
	return ids, err
}

// readTask2 reads and validates one task's file of version 2; a missing file is
// ErrUnknownTask.
func (t *Tree) readTask2(id string) (*Task, error) {
	rel := TaskFile(id)
	data, err := readFile(t.Path(rel))
	if errors.Is(err, os.ErrNotExist) {
		return nil, unknownTask(id)
	}
	if err != nil {
		return nil, readError(t.rel(rel), err)
	}
	return ParseTask(t.rel(rel), rel, data)
}

// loadTasks2 reads every task file of a version 2 order. A set of files read before
// (the same bytes under the same schema, memo.go) is not validated again.
func (t *Tree) loadTasks2(o *Order3) (*Queue, error) {
	files, err := t.taskFiles2()
	if err != nil {
		return nil, err
	}
	if err := CheckTaskFiles2(t.rel(QueueFile), o, files); err != nil {
		return nil, err
	}
	rels := make([]string, len(o.Order))
	for i, id := range o.Order {
		rels[i] = TaskFile(id)
	}
	q := &Queue{Version: 2, NextID: o.NextID, Tasks: make([]Task, 0, len(rels))}
	err = t.readSet(rels, func(rel string, data []byte, valid bool) error {
		if !valid {
			if err := validate(t.rel(rel), 0, schemas.Task, data); err != nil {
				return err
			}
		}
		task, err := decodeTask2(t.rel(rel), rel, data)
		if err == nil {
			q.Tasks = append(q.Tasks, *task)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// CheckTaskFiles2 checks what spans the files of a version 2 queue: every id of
// the order has a task file and every task file is in the order.
func CheckTaskFiles2(shown string, o *Order3, files []string) error {
	in := make(map[string]bool, len(o.Order))
	for _, id := range o.Order {
		in[id] = true
	}
	have := make(map[string]bool, len(files))
	for _, id := range files {
		have[id] = true
		if !in[id] {
			return &SchemaError{File: shown, Pointer: "/order",
				Rule: fmt.Sprintf("the task file %s/%s is not in the order: add %q to the order, or remove the file", DirName, TaskFile(id), id)}
		}
	}
	for i, id := range o.Order {
		if !have[id] {
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i),
				Rule: fmt.Sprintf("task %s has no file %s/%s: restore it (git checkout HEAD -- %s/%s) or take %s out of the order", id, DirName, TaskFile(id), DirName, TaskFile(id), id)}
		}
	}
	return nil
}
