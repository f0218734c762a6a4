package statefiles

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// The older layouts of the queue: version 1 (every task in queue.json), 2 (a file
// per task) and 3 (the order of every task in queue.json, the tasks in files of a
// hundred). strom reads them as they are (the read-only commands of a research
// not yet migrated, a history's older commits, a merge of two older histories)
// and migrates them to version 4 at the first write (queuemigrate.go).

// Version 1 of queue.json held every task in the one file.

// ParseQueue validates the bytes of a version 1 queue.json (on disk, staged or
// committed: a history written before the tasks had files of their own), naming
// them shown in errors.
func ParseQueue(shown string, data []byte) (*Queue, error) {
	if v := QueueVersionOf(data); v > QueueVersion {
		return nil, newerQueue(shown, v)
	} else if v == 2 || v == QueueVersion {
		return nil, &SchemaError{File: shown, Pointer: "/version", Rule: fmt.Sprintf("version %d holds the order only: its tasks are in .strom/tasks/", v)}
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
	return encodeValid(&v1, QueueFile, func(data []byte) error {
		_, err := ParseQueue(DirName+"/"+QueueFile, data)
		return err
	})
}

// Version 2 of the queue gave each task a file of its own, .strom/tasks/T-N.json,
// beside queue.json's order.

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

// A queue.json of version 3 (and 2, of the same shape) held the order of every
// task, done or not; version 3 kept the tasks in the same files of a hundred as
// version 4, version 2 in a file each.

// Order3 is queue.json of version 3 or 2: every task's id in queue order.
type Order3 struct {
	Version int      `json:"version"`
	NextID  int      `json:"next_id"`
	Order   []string `json:"order"`
}

// ParseOrder3 validates the bytes of a queue.json of version 3 or 2 (on disk, or
// of two histories a merge meets), naming them shown in errors: no id twice;
// next_id is raised past every id.
func ParseOrder3(shown string, data []byte) (*Order3, error) {
	if err := check(shown, schemas.Queue3, data); err != nil {
		return nil, err
	}
	o := &Order3{}
	if err := json.Unmarshal(data, o); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	seen := make(map[string]int, len(o.Order))
	for i, id := range o.Order {
		if j, dup := seen[id]; dup {
			return nil, &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i),
				Rule: fmt.Sprintf("task id %s is in the order twice (also at /order/%d)", id, j)}
		}
		if !validID(id) {
			return nil, &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i), Rule: fmt.Sprintf("%q is not a task id like T-12", id)}
		}
		seen[id] = i
		if n := idNumber(id); n >= o.NextID {
			o.NextID = n + 1
		}
	}
	return o, nil
}

// EncodeOrder3 returns the bytes of a queue.json of version 3 for o, checked.
func EncodeOrder3(o *Order3) ([]byte, error) {
	o.Version = 3
	if o.Order == nil {
		o.Order = []string{}
	}
	return encodeValid(o, QueueFile, func(data []byte) error {
		_, err := ParseOrder3(DirName+"/"+QueueFile, data)
		return err
	})
}

// loadShards3 reads every shard of a version 3 queue and puts its tasks in the
// order's order. A task of a shard that is not in the order and whose id is not
// below next_id is an add a killed strom (one without the journal) left half
// written: it is put at the end, as added.
func (t *Tree) loadShards3(o *Order3) (*Queue, error) {
	all, err := t.readAllShards()
	if err != nil {
		return nil, err
	}
	shown := t.rel(QueueFile)
	in := make(map[string]bool, len(o.Order))
	for _, id := range o.Order {
		in[id] = true
	}
	ids := slices.SortedFunc(maps.Keys(all), func(a, b string) int { return idNumber(a) - idNumber(b) })
	order := slices.Clone(o.Order)
	for _, id := range ids {
		if in[id] {
			continue
		}
		if idNumber(id) < o.NextID {
			return nil, &SchemaError{File: shown, Pointer: "/order",
				Rule: fmt.Sprintf("task %s of %s/%s is not in the order: add %q to the order, or take the task out of the file", id, DirName, ShardFile(id), id)}
		}
		order = append(order, id)
		in[id] = true
	}
	q := &Queue{Version: 3, NextID: o.NextID, Tasks: make([]Task, len(order))}
	for i, id := range order {
		task, ok := all[id]
		if !ok {
			return nil, notInFile(shown, fmt.Sprintf("/order/%d", i), id, "order")
		}
		q.Tasks[i] = task
		q.NextID = max(q.NextID, idNumber(id)+1)
	}
	return q, nil
}
