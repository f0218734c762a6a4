package statefiles

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// The queue on disk (version 4): .strom/queue.json holds next_id, how many tasks
// are done, and the tasks that are not done, in queue order, each with its state
// ("T-17 open"); every task, done or not, lives in its file of a hundred ids under
// .strom/tasks/ (shards.go). So the commands read what the live work needs: strom
// status reads queue.json alone, a run's next task is queue.json and one file, a
// page of strom task list the files of the tasks it shows. A done task leaves
// queue.json and stays in its file.
//
// A task's file is the truth of its state; queue.json says the same of the tasks
// that are not done, and every write that changes a task's state writes both as
// one change (the journal). Where they still disagree — the two files merged from
// two histories, or edited by hand — the reader that meets it (a whole read, a
// page, a write of the task) makes queue.json follow the tasks' files under the
// lock and says so in one line (OnHeal).

// QueueVersion is the version of queue.json this strom writes.
const QueueVersion = 4

// TasksDir is the folder of the task shards under .strom/.
const TasksDir = "tasks"

// reconcile builds the queue from o and every task (by id, all of them): the
// tasks not done in o's order, those o lacks after them by id, then the done
// ones by id. It returns the ids where o said otherwise (none when only the count
// of done tasks differs). A task o lists that no file holds is an error.
func reconcile(shown string, o *Order, all map[string]Task) (*Queue, []string, error) {
	q := &Queue{Version: QueueVersion, NextID: o.NextID, Tasks: make([]Task, 0, len(all))}
	var healed []string
	in := make(map[string]bool, len(o.Live))
	for i, e := range o.Live {
		task, ok := all[e.ID]
		if !ok {
			return nil, nil, notInFile(shown, fmt.Sprintf("/tasks/%d", i), e.ID, "queue")
		}
		in[e.ID] = true
		if task.State != e.State {
			healed = append(healed, e.ID)
		}
		if task.State != Done {
			q.Tasks = append(q.Tasks, task)
		}
	}
	var done []Task
	for _, id := range slices.SortedFunc(maps.Keys(all), func(a, b string) int { return idNumber(a) - idNumber(b) }) {
		switch task := all[id]; {
		case task.State == Done:
			done = append(done, task)
		case !in[id]:
			healed = append(healed, id)
			q.Tasks = append(q.Tasks, task)
		}
	}
	q.Tasks = append(q.Tasks, done...)
	return q, healed, q.check(shown)
}

// notInFile is the error for task id, which the queue (or the order: list) lists
// at ptr, missing from its file.
func notInFile(shown, ptr, id, list string) error {
	return &SchemaError{File: shown, Pointer: ptr,
		Rule: fmt.Sprintf("task %s is not in its file %s/%s: restore it (git checkout HEAD -- %s/%s) or take %s out of the %s", id, DirName, ShardFile(id), DirName, ShardFile(id), id, list)}
}

// readOrder reads queue.json as it stands: its version, for version 4 its order,
// and its bytes. A missing queue.json is version 0 with an empty order.
func (t *Tree) readOrder() (version int, o *Order, data []byte, err error) {
	if err := t.settle(); err != nil {
		return 0, nil, nil, err
	}
	shown := t.rel(QueueFile)
	data, err = readOptional(t.Path(QueueFile))
	if err != nil {
		return 0, nil, nil, readError(shown, err)
	}
	if data == nil {
		return 0, &Order{Version: QueueVersion, NextID: 1}, nil, nil
	}
	switch v := QueueVersionOf(data); {
	case v > QueueVersion:
		return v, nil, data, newerQueue(shown, v)
	case v >= 1 && v < QueueVersion:
		return v, nil, data, nil
	}
	o, err = ParseOrder(shown, data)
	if err != nil {
		return 0, nil, data, err
	}
	return o.Version, o, data, nil
}

// writeOrder writes queue.json for o when its bytes differ from old.
func (t *Tree) writeOrder(o *Order, old []byte) ([]byte, error) {
	data, err := EncodeOrder(o)
	if err != nil {
		return nil, err
	}
	if old != nil && bytes.Equal(old, data) {
		return data, nil
	}
	if err := checkWriteSize(t.rel(QueueFile), data); err != nil {
		return nil, err
	}
	return data, t.put(QueueFile, data)
}

// ensureCurrent migrates the records of an older layout, and a queue of version
// 1, 2 or 3 (queuemigrate.go). Hold the lock.
func (t *Tree) ensureCurrent() error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	v, err := t.headVersion()
	if err != nil {
		return err
	}
	if v >= 1 && v < QueueVersion {
		return t.migrateLocked(v)
	}
	return nil
}

// QueueVersionOnDisk returns the version of queue.json as it stands (0 when there
// is none).
func (t *Tree) QueueVersionOnDisk() (int, error) {
	v, _, _, err := t.readOrder()
	return v, err
}

// LoadQueue reads and validates the whole queue: queue.json and every task's file.
// The tasks come in queue order, the done ones after the others by id. A missing
// queue is empty; a queue of an older version is read as it is, not migrated (the
// first write migrates it). Where queue.json does not say what the tasks' files
// say, it is made to (heal).
func (t *Tree) LoadQueue() (*Queue, error) {
	v, o, data, err := t.readOrder()
	if err != nil {
		return nil, err
	}
	if v < QueueVersion {
		return t.readOlder(v, data)
	}
	all, err := t.readAllShards()
	if err != nil {
		return nil, err
	}
	q, healed, err := reconcile(t.rel(QueueFile), o, all)
	if err != nil {
		// A change being written, or left half written by a kill, spans these
		// files: once it is whole (under the lock) they are read again.
		if pending, ferr := t.FinishPending(context.Background()); ferr != nil {
			return nil, ferr
		} else if pending {
			return t.LoadQueue()
		}
		return nil, err
	}
	if right := orderOf(q, o.NextID); len(healed) > 0 || right.Done != o.Done {
		t.heal(data, right, healed)
	}
	return q, nil
}

// readAllShards reads every shard, validating a set of them not read before (the
// same bytes under the same schemas, memo.go), and returns their tasks by id.
func (t *Tree) readAllShards() (map[string]Task, error) {
	rels, err := t.shardFiles()
	if err != nil {
		return nil, err
	}
	all := map[string]Task{}
	err = t.readSet(rels, func(rel string, data []byte, valid bool) error {
		tasks, err := parseShard(t.rel(rel), rel, data, valid)
		for _, task := range tasks {
			all[task.ID] = task
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// heal writes right as queue.json, under the lock, when queue.json still has the
// bytes was it was read with, and tells OnHeal which tasks it followed. A heal
// that cannot be written now is left to the next reader.
func (t *Tree) heal(was []byte, right *Order, ids []string) {
	write := func() error {
		if cur, err := readOptional(t.Path(QueueFile)); err != nil || !bytes.Equal(cur, was) {
			return err
		}
		if _, err := t.writeOrder(right, was); err != nil {
			return err
		}
		if t.OnHeal != nil {
			t.OnHeal(ids)
		}
		return nil
	}
	if t.locked.Load() {
		_ = write()
		return
	}
	_ = t.Locked(context.Background(), write)
}

// HealQueue makes queue.json say what the tasks' files say, reading them all: for
// the harness after a merge of two histories, whose queue.json and tasks' files
// were merged apart. It takes the lock where it writes.
func (t *Tree) HealQueue() error {
	_, err := t.LoadQueue()
	return err
}

// check enforces what the schema cannot say of a whole queue: ids are unique, and
// the next id is past every id.
func (q *Queue) check(file string) error {
	seen := make(map[string]int, len(q.Tasks))
	for i, task := range q.Tasks {
		if j, dup := seen[task.ID]; dup {
			return &SchemaError{File: file, Pointer: fmt.Sprintf("/tasks/%d/id", i),
				Rule: fmt.Sprintf("duplicate task id %s (also at /tasks/%d)", task.ID, j)}
		}
		seen[task.ID] = i
		if n := idNumber(task.ID); n >= q.NextID {
			q.NextID = n + 1
		}
	}
	return nil
}

// byShard groups tasks by the shard file that holds them.
func byShard(tasks []Task) map[string][]Task {
	out := map[string][]Task{}
	for _, task := range tasks {
		rel := ShardFile(task.ID)
		out[rel] = append(out[rel], task)
	}
	return out
}

// orderOf is the queue.json that says what q's tasks say, its next id at least
// next.
func orderOf(q *Queue, next int) *Order {
	o := &Order{Version: QueueVersion, NextID: max(q.NextID, next)}
	for _, task := range q.Tasks {
		if task.State == Done {
			o.Done++
		} else {
			o.Live = append(o.Live, Entry{ID: task.ID, State: task.State})
		}
	}
	return o
}

// SaveQueue writes the whole queue as one change. Hold the lock. It writes the
// shards whose bytes changed (validating the tasks that changed), removes the
// shards no task of q is in any more, and writes queue.json when it changed. A
// queue of an older version is migrated first.
func (t *Tree) SaveQueue(q *Queue) error {
	shown := t.rel(QueueFile)
	if err := q.check(shown); err != nil {
		return err
	}
	for i := range q.Tasks {
		if !validID(q.Tasks[i].ID) {
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/tasks/%d/id", i), Rule: fmt.Sprintf("%q is not a task id like T-12", q.Tasks[i].ID)}
		}
	}
	if err := t.ensureCurrent(); err != nil {
		return err
	}
	_, disk, oldOrder, err := t.readOrder()
	if err != nil {
		return err
	}
	present, err := t.shardFiles()
	if err != nil {
		return err
	}
	groups := byShard(q.Tasks)
	for _, rel := range present {
		if _, ok := groups[rel]; !ok {
			groups[rel] = nil
		}
	}
	o := orderOf(q, disk.NextID)
	err = t.journaled(func() error {
		for _, rel := range slices.Sorted(maps.Keys(groups)) {
			old, err := readOptional(t.Path(rel))
			if err != nil {
				return readError(t.rel(rel), err)
			}
			if _, _, err := t.writeShard(rel, groups[rel], old, true); err != nil {
				return err
			}
		}
		_, err := t.writeOrder(o, oldOrder)
		return err
	})
	if err != nil {
		return err
	}
	q.Version, q.NextID = QueueVersion, o.NextID
	return nil
}

// UpdateQueue loads the whole queue under the lock, lets fn change it, and saves it
// when fn returns nil.
func (t *Tree) UpdateQueue(ctx context.Context, fn func(*Queue) error) error {
	return t.Locked(ctx, func() error {
		q, err := t.LoadQueue()
		if err != nil {
			return err
		}
		if err := fn(q); err != nil {
			return err
		}
		return t.SaveQueue(q)
	})
}

// headVersion reads the version from the first bytes of queue.json, where strom
// writes it, without reading the rest; other bytes are read whole (0: no
// queue.json).
func (t *Tree) headVersion() (int, error) {
	var head [64]byte
	n := 0
	if f, err := OpenRead(t.Path(QueueFile)); err == nil {
		n, _ = f.Read(head[:])
		f.Close()
	}
	if v := QueueVersionOf(head[:n]); v > 0 && v <= QueueVersion {
		return v, nil
	}
	v, _, _, err := t.readOrder()
	return v, err
}

// Validate checks bytes of a state file named like its place under .strom/ (for
// example "queue.json", "tasks/T-100-199.json" or "gates/claude-usage/hold.json").
// Files strom does not own are not checked. What spans files (queue.json and the
// shards) is checked by CheckFiles. A task's file of version 2 ("tasks/T-3.json")
// is checked as that version wrote it: a history holds them.
func Validate(rel string, data []byte) error {
	shown := DirName + "/" + rel
	if ok, err := validateProgressFile(rel, shown, data); ok {
		return err
	}
	if _, _, ok := ShardOfFile(rel); ok {
		_, err := ParseShard(shown, rel, data)
		return err
	}
	if _, ok := TaskOfFile(rel); ok {
		_, err := ParseTask(shown, rel, data)
		return err
	}
	switch {
	case rel == QueueFile:
		switch QueueVersionOf(data) {
		case 1:
			_, err := ParseQueue(shown, data)
			return err
		case 2, 3:
			_, err := ParseOrder3(shown, data)
			return err
		}
		_, err := ParseOrder(shown, data)
		return err
	case rel == ConfigFile:
		return check(shown, schemas.Config, data)
	case rel == ParkFile:
		return check(shown, schemas.Park, data)
	case rel == ModeFile:
		return check(shown, schemas.Mode, data)
	case rel == NoteFile:
		return check(shown, schemas.Note, data)
	case strings.HasPrefix(rel, GatesDir+"/") && strings.HasSuffix(rel, "/"+HoldFile):
		return check(shown, schemas.Hold, data)
	case strings.HasPrefix(rel, TasksDir+"/") && !strings.HasPrefix(path.Base(rel), ".tmp-"):
		return &SchemaError{File: shown, Rule: notShard}
	}
	return nil
}

// CheckFiles checks queue.json's order o against tasks, the tasks of the shards
// the caller read (the pre-commit hook: the shards a commit changes): each of
// them that is not done is in o with its state, each done one is not, and each
// task o lists whose shard was read is in it. shown names queue.json in errors.
func CheckFiles(shown string, o *Order, tasks []Task, read map[string]bool) error {
	byID := make(map[string]Task, len(tasks))
	for _, task := range tasks {
		byID[task.ID] = task
	}
	for i, e := range o.Live {
		task, ok := byID[e.ID]
		switch {
		case !read[ShardFile(e.ID)]:
		case !ok:
			return notInFile(shown, fmt.Sprintf("/tasks/%d", i), e.ID, "queue")
		case task.State != e.State:
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/tasks/%d", i),
				Rule: fmt.Sprintf("task %s is %s in its file %s/%s but %s in the queue: make them agree (any strom command that reads the task does)", e.ID, task.State, DirName, ShardFile(e.ID), e.State)}
		}
	}
	for _, task := range tasks {
		i := o.index(task.ID)
		switch {
		case task.State == Done && i >= 0:
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/tasks/%d", i),
				Rule: fmt.Sprintf("task %s is done in its file %s/%s but still in the queue: take it out of the queue", task.ID, DirName, ShardFile(task.ID))}
		case task.State != Done && i < 0:
			return &SchemaError{File: shown, Pointer: "/tasks",
				Rule: fmt.Sprintf("task %s of %s/%s is not in the queue: add %q to the queue, or take the task out of the file", task.ID, DirName, ShardFile(task.ID), task.ID+" "+string(task.State))}
		}
	}
	return nil
}

// writtenFile, under .strom/run/, lists the ids of the tasks strom wrote since
// the harness last cleared it (at a session's commit), one a line: the tasks a new
// session's snapshot keeps as they read, without asking git which files changed.
const writtenFile = "tasks-written"

// noteWritten adds id to the list of tasks written; failing to is not an
// error (a snapshot then keeps HEAD's version of that task).
func (t *Tree) noteWritten(id string) {
	path := t.Path(RunDir, writtenFile)
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(id + "\n")
	_ = f.Close()
}

// WrittenTasks returns the ids of the tasks strom wrote since ClearWrittenTasks,
// each once.
func (t *Tree) WrittenTasks() []string {
	data, _ := ReadFile(t.Path(RunDir, writtenFile))
	seen := map[string]bool{}
	var ids []string
	for _, l := range strings.Split(string(data), "\n") {
		if validID(l) && !seen[l] {
			seen[l] = true
			ids = append(ids, l)
		}
	}
	return ids
}

// ClearWrittenTasks empties the list of tasks written: they are committed.
func (t *Tree) ClearWrittenTasks() { os.Remove(t.Path(RunDir, writtenFile)) }
