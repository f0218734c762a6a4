package statefiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/strom-research/strom/schemas"
)

// The queue on disk (version 2): .strom/queue.json holds the order of the tasks and
// the next id, one id a line; each task is a file of its own, .strom/tasks/T-N.json.
// A session changes its task's file and nothing else, so its commit's diff shows
// that task, and a write costs what it changes: the targeted calls (UpdateTask,
// AddTask, FindTask) read and write one task's file; only LoadQueue and SaveQueue,
// for the callers that need the whole queue, read every file (and SaveQueue writes
// only the files whose bytes changed).
//
// What spans files is checked in code: every id in the order has its file and
// every file is in the order once, each file's name is its task's id, and next_id
// is past every id.

// QueueVersion is the version of queue.json this strom writes.
const QueueVersion = 2

// TasksDir is the folder of the task files under .strom/.
const TasksDir = "tasks"

// Order is .strom/queue.json of version 2: the tasks' ids in queue order.
type Order struct {
	Version int      `json:"version"`
	NextID  int      `json:"next_id"`
	Order   []string `json:"order"`
}

// TaskFile names a task's file relative to .strom/, e.g. "tasks/T-12.json".
func TaskFile(id string) string { return TasksDir + "/" + id + ".json" }

// TaskOfFile returns the id a path relative to .strom/ names when it is a task file
// ("tasks/T-12.json" → "T-12").
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

// validID reports whether id is written as strom writes ids: T- and a number
// without leading zeros.
func validID(id string) bool {
	n := idNumber(id)
	return n > 0 && id == "T-"+strconv.Itoa(n)
}

// queueVersion reads the version of queue.json bytes. strom writes it first, so
// the first bytes tell it; other layouts are decoded.
func queueVersion(data []byte) int {
	const prefix = "{\n  \"version\": "
	if rest, ok := bytes.CutPrefix(data, []byte(prefix)); ok {
		if i := bytes.IndexByte(rest[:min(len(rest), 12)], ','); i > 0 {
			if n, err := strconv.Atoi(string(rest[:i])); err == nil {
				return n
			}
		}
	}
	var v struct {
		Version json.Number `json:"version"`
	}
	if json.Unmarshal(data, &v) != nil {
		return 0
	}
	n, err := strconv.Atoi(string(v.Version))
	if err != nil {
		return 0
	}
	return n
}

// newerQueue is the error for a queue.json of a version this strom does not know.
func newerQueue(shown string, version int) error {
	return fmt.Errorf("%s is %w (version %d; this strom knows up to %d): update strom", shown, ErrNewerStrom, version, QueueVersion)
}

// ParseOrder validates the bytes of a version 2 queue.json (on disk, staged or
// committed), naming them shown in errors. It checks what the schema cannot say:
// no id twice, next_id past every id (raised when a hand edit left it behind).
func ParseOrder(shown string, data []byte) (*Order, error) {
	if v := queueVersion(data); v > QueueVersion {
		return nil, newerQueue(shown, v)
	}
	if err := check(shown, schemas.Queue, data); err != nil {
		return nil, err
	}
	o := &Order{}
	if err := json.Unmarshal(data, o); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if err := o.check(shown); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Order) check(shown string) error {
	seen := make(map[string]int, len(o.Order))
	for i, id := range o.Order {
		if j, dup := seen[id]; dup {
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i),
				Rule: fmt.Sprintf("task id %s is in the order twice (also at /order/%d)", id, j)}
		}
		if !validID(id) {
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i), Rule: fmt.Sprintf("%q is not a task id like T-12", id)}
		}
		seen[id] = i
		if n := idNumber(id); n >= o.NextID {
			o.NextID = n + 1
		}
	}
	return nil
}

// ParseTask validates the bytes of a task's file named rel under .strom/ (e.g.
// "tasks/T-12.json"), naming them shown in errors: the schema, and the file's
// name is the task's id.
func ParseTask(shown, rel string, data []byte) (*Task, error) {
	return parseTask(shown, rel, data, true)
}

// parseTask is ParseTask; memo says whether the memo of validated contents is asked
// and told (a queue read whole asks it once for all its files).
func parseTask(shown, rel string, data []byte, memo bool) (*Task, error) {
	if memo {
		if err := check(shown, schemas.Task, data); err != nil {
			return nil, err
		}
	} else if err := validate(shown, 0, schemas.Task, data); err != nil {
		return nil, err
	}
	var task Task
	if err := json.Unmarshal(data, &task); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if id, ok := TaskOfFile(rel); !ok || id != task.ID {
		return nil, &SchemaError{File: shown, Pointer: "/id", Rule: fmt.Sprintf("the task's id %s is not its file's name (%s)", task.ID, filepath.Base(rel))}
	}
	return &task, nil
}

// EncodeTask returns the bytes strom writes for a task's file, checked.
func EncodeTask(task *Task) ([]byte, error) {
	data, err := marshal(task)
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", task.ID, err)
	}
	rel := TaskFile(task.ID)
	if _, err := ParseTask(DirName+"/"+rel, rel, data); err != nil {
		return nil, err
	}
	return data, nil
}

// EncodeOrder returns the bytes strom writes for queue.json, checked.
func EncodeOrder(o *Order) ([]byte, error) {
	o.Version = QueueVersion
	if o.Order == nil {
		o.Order = []string{}
	}
	data, err := marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", QueueFile, err)
	}
	if _, err := ParseOrder(DirName+"/"+QueueFile, data); err != nil {
		return nil, err
	}
	return data, nil
}

// CheckFiles checks what spans the files of a queue: every id of the order has a
// task file and every task file (files, the ids of the task files present) is in
// the order. shown names the queue in errors.
func CheckFiles(shown string, o *Order, files []string) error {
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

// taskFiles lists the ids of the task files in .strom/tasks/.
func (t *Tree) taskFiles() ([]string, error) {
	ents, err := os.ReadDir(t.Path(TasksDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.rel(TasksDir), err)
	}
	ids := make([]string, 0, len(ents))
	for _, e := range ents {
		if id, ok := TaskOfFile(TasksDir + "/" + e.Name()); ok && !e.IsDir() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// readOrder reads queue.json as it stands: its version, and for version 2 its
// order and bytes. A missing queue.json is version 0 with no order.
func (t *Tree) readOrder() (version int, o *Order, data []byte, err error) {
	shown := t.rel(QueueFile)
	data, err = readOptional(t.Path(QueueFile))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read %s: %w", shown, err)
	}
	if data == nil {
		return 0, &Order{Version: QueueVersion, NextID: 1, Order: []string{}}, nil, nil
	}
	switch v := queueVersion(data); {
	case v > QueueVersion:
		return v, nil, data, newerQueue(shown, v)
	case v == 1:
		return 1, nil, data, nil
	}
	o, err = ParseOrder(shown, data)
	if err != nil {
		return 0, nil, data, err
	}
	return QueueVersion, o, data, nil
}

// readTask reads and validates one task's file; a missing file is ErrUnknownTask.
func (t *Tree) readTask(id string) (*Task, []byte, error) {
	rel := TaskFile(id)
	data, err := os.ReadFile(t.Path(rel))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, unknownTask(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", t.rel(rel), err)
	}
	task, err := ParseTask(t.rel(rel), rel, data)
	if err != nil {
		return nil, nil, err
	}
	return task, data, nil
}

// writeTask validates a task and writes its file when its bytes differ from old
// (nil: unknown). It reports whether it wrote.
func (t *Tree) writeTask(task *Task, old []byte) (bool, error) {
	data, err := marshal(task)
	if err != nil {
		return false, fmt.Errorf("encode %s: %w", t.rel(TaskFile(task.ID)), err)
	}
	if old != nil && bytes.Equal(old, data) {
		return false, nil
	}
	rel := TaskFile(task.ID)
	if _, err := ParseTask(t.rel(rel), rel, data); err != nil {
		return false, fmt.Errorf("refuse to write invalid data: %w", err)
	}
	if err := os.MkdirAll(t.Path(TasksDir), 0o755); err != nil {
		return false, fmt.Errorf("write %s: %w", t.rel(rel), err)
	}
	if err := WriteAtomic(t.Path(rel), data, 0o644); err != nil {
		return false, err
	}
	t.noteWritten(task.ID)
	return true, nil
}

// writeOrder writes queue.json for o when its bytes differ from old. added names
// the ids new since old: with old known, only they are validated against the
// schema (the rest was valid when old was read), and the whole is checked in code.
func (t *Tree) writeOrder(o *Order, old []byte, added []string) error {
	shown := t.rel(QueueFile)
	o.Version = QueueVersion
	if o.Order == nil {
		o.Order = []string{}
	}
	if err := o.check(shown); err != nil {
		return fmt.Errorf("refuse to write invalid data: %w", err)
	}
	data, err := marshal(o)
	if err != nil {
		return fmt.Errorf("encode %s: %w", shown, err)
	}
	if old != nil && bytes.Equal(old, data) {
		return nil
	}
	if old != nil && queueVersion(old) == QueueVersion {
		mini, err := marshal(&Order{Version: o.Version, NextID: o.NextID, Order: append([]string{}, added...)})
		if err != nil {
			return fmt.Errorf("encode %s: %w", shown, err)
		}
		if err := validate(shown, 0, schemas.Queue, mini); err != nil {
			return fmt.Errorf("refuse to write invalid data: %w", err)
		}
		validated.remember(sumOf(schemas.Queue, data))
	} else if err := check(shown, schemas.Queue, data); err != nil {
		return fmt.Errorf("refuse to write invalid data: %w", err)
	}
	return WriteAtomic(t.Path(QueueFile), data, 0o644)
}

// ensureCurrent migrates a queue.json of version 1 (migrate.go). Hold the lock.
func (t *Tree) ensureCurrent() error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	v, err := t.headVersion()
	if err != nil {
		return err
	}
	if v == 1 {
		return t.migrateLocked()
	}
	return nil
}

// QueueVersionOnDisk returns the version of queue.json as it stands (0 when there
// is none).
func (t *Tree) QueueVersionOnDisk() (int, error) {
	v, _, _, err := t.readOrder()
	return v, err
}

// LoadQueue reads and validates the whole queue: the order and every task's file.
// A missing queue is empty; a version 1 queue.json is read as it is, not migrated
// (the first write migrates it).
func (t *Tree) LoadQueue() (*Queue, error) {
	v, o, data, err := t.readOrder()
	if err != nil {
		return nil, err
	}
	if v == 1 {
		return ParseQueue(t.rel(QueueFile), data)
	}
	q, raw, err := t.loadTasks(o)
	if err != nil {
		return nil, err
	}
	t.rememberQueue(q, data, raw)
	return q, nil
}

// loadTasks reads every task file of the order. A set of files read before (the
// same bytes under the same schema, memo.go) is not validated again.
func (t *Tree) loadTasks(o *Order) (*Queue, [][]byte, error) {
	files, err := t.taskFiles()
	if err != nil {
		return nil, nil, err
	}
	if err := CheckFiles(t.rel(QueueFile), o, files); err != nil {
		return nil, nil, err
	}
	raw := make([][]byte, len(o.Order))
	for i, id := range o.Order {
		if raw[i], err = os.ReadFile(t.Path(TaskFile(id))); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", t.rel(TaskFile(id)), err)
		}
	}
	set, known := validated.knownSet(schemas.Task, o.Order, raw)
	q := &Queue{Version: QueueVersion, NextID: o.NextID, Tasks: make([]Task, len(o.Order))}
	for i, id := range o.Order {
		rel := TaskFile(id)
		if !known {
			task, err := parseTask(t.rel(rel), rel, raw[i], false)
			if err != nil {
				return nil, nil, err
			}
			q.Tasks[i] = *task
			continue
		}
		if err := json.Unmarshal(raw[i], &q.Tasks[i]); err != nil || q.Tasks[i].ID != id {
			return nil, nil, &SchemaError{File: t.rel(rel), Rule: fmt.Sprintf("not the task %s", id)}
		}
	}
	validated.remember(set)
	return q, raw, nil
}

// loadedQueue is what the tree's last loaded Queue was read from: each task's
// bytes and queue.json's. SaveQueue writes only the files whose bytes differ.
type loadedQueue struct {
	q     *Queue
	order []byte
	tasks map[string][]byte
}

func (t *Tree) rememberQueue(q *Queue, order []byte, raw [][]byte) {
	l := &loadedQueue{q: q, order: order, tasks: make(map[string][]byte, len(raw))}
	for i, b := range raw {
		l.tasks[q.Tasks[i].ID] = b
	}
	loadedMu.Lock()
	loaded[t.Dir] = l
	loadedMu.Unlock()
}

func (t *Tree) loadedOf(q *Queue) *loadedQueue {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if l := loaded[t.Dir]; l != nil && l.q == q {
		return l
	}
	return nil
}

func (t *Tree) forgetQueue() {
	loadedMu.Lock()
	delete(loaded, t.Dir)
	loadedMu.Unlock()
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

// SaveQueue writes the whole queue. Hold the lock. It writes the task files whose
// bytes changed (validating them), removes the files of tasks no longer in q, and
// writes queue.json when the order or next_id changed. A version 1 queue.json is
// migrated first.
func (t *Tree) SaveQueue(q *Queue) error {
	shown := t.rel(QueueFile)
	if err := q.check(shown); err != nil {
		return err
	}
	if err := t.ensureCurrent(); err != nil {
		return err
	}
	_, disk, oldOrder, err := t.readOrder()
	if err != nil {
		return err
	}
	l := t.loadedOf(q)
	if l != nil && !bytes.Equal(l.order, oldOrder) {
		l = nil // another writer changed the queue since: compare with the files
	}
	ids := make([]string, len(q.Tasks))
	for i := range q.Tasks {
		task := &q.Tasks[i]
		ids[i] = task.ID
		var old []byte
		if l != nil {
			old = l.tasks[task.ID]
		} else {
			old, _ = readOptional(t.Path(TaskFile(task.ID)))
		}
		if _, err := t.writeTask(task, old); err != nil {
			return err
		}
	}
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		keep[id] = true
	}
	was := make(map[string]bool, len(disk.Order))
	for _, id := range disk.Order {
		was[id] = true
		if !keep[id] {
			if err := os.Remove(t.Path(TaskFile(id))); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", t.rel(TaskFile(id)), err)
			}
		}
	}
	var added []string
	for _, id := range ids {
		if !was[id] {
			added = append(added, id)
		}
	}
	o := &Order{Version: QueueVersion, NextID: max(q.NextID, disk.NextID), Order: ids}
	if err := t.writeOrder(o, oldOrder, added); err != nil {
		return err
	}
	q.Version, q.NextID = QueueVersion, o.NextID
	t.forgetQueue()
	t.indexWholeQueue(q)
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

// UpdateTask changes one task under the lock: it reads the task's file, lets fn
// change the task and writes the file when fn returns nil. Nothing else of the
// queue is read or written.
func (t *Tree) UpdateTask(ctx context.Context, id string, fn func(*Task) error) (Task, error) {
	var out Task
	err := t.Locked(ctx, func() error {
		var err error
		out, err = t.UpdateTaskLocked(id, fn)
		return err
	})
	return out, err
}

// UpdateTaskLocked is UpdateTask for a caller that holds the lock. A version 1
// queue.json is migrated first.
func (t *Tree) UpdateTaskLocked(id string, fn func(*Task) error) (Task, error) {
	id = NormalizeID(id)
	if err := t.ensureCurrent(); err != nil {
		return Task{}, err
	}
	if !validID(id) {
		return Task{}, unknownTask(id)
	}
	ix, fresh := t.openFreshQueueIndex()
	task, old, err := t.readTask(id)
	if err != nil {
		if ix != nil {
			ix.Close()
		}
		return Task{}, err
	}
	was := task.State
	if err := fn(task); err != nil {
		if ix != nil {
			ix.Close()
		}
		return *task, err
	}
	if task.ID != id {
		if ix != nil {
			ix.Close()
		}
		return *task, fmt.Errorf("change task %s: a task's id does not change", id)
	}
	wrote, err := t.writeTask(task, old)
	if ix != nil {
		if fresh && err == nil && wrote {
			t.indexTaskChanged(ix, id, was, task.State)
		} else if err == nil && wrote {
			t.dropQueueIndex()
		}
		ix.Close()
	}
	return *task, err
}

// PutTaskLocked writes a whole task's file as given (the harness restoring a task
// a session deleted or broke) and puts it in the order when it is not there. Hold
// the lock.
func (t *Tree) PutTaskLocked(task Task) error {
	if err := t.ensureCurrent(); err != nil {
		return err
	}
	_, o, data, err := t.readOrder()
	if err != nil {
		return err
	}
	old, _ := readOptional(t.Path(TaskFile(task.ID)))
	if _, err := t.writeTask(&task, old); err != nil {
		return err
	}
	if !slices.Contains(o.Order, task.ID) {
		o.Order = append(o.Order, task.ID)
		if err := t.writeOrder(o, data, []string{task.ID}); err != nil {
			return err
		}
	}
	t.dropQueueIndex()
	return nil
}

// AddTask adds a task at the end of the queue under the lock: build makes it for
// the id it is given (never one used before). Only the new task's file and
// queue.json are written.
func (t *Tree) AddTask(ctx context.Context, build func(id string) (Task, error)) (Task, error) {
	var out Task
	err := t.Locked(ctx, func() error {
		var err error
		out, err = t.AddTaskLocked(build)
		return err
	})
	return out, err
}

// AddTaskLocked is AddTask for a caller that holds the lock.
func (t *Tree) AddTaskLocked(build func(id string) (Task, error)) (Task, error) {
	if err := t.ensureCurrent(); err != nil {
		return Task{}, err
	}
	_, o, data, err := t.readOrder()
	if err != nil {
		return Task{}, err
	}
	n := o.NextID
	// A file left without its place in the order (a hand edit) keeps its id.
	for {
		if _, err := os.Lstat(t.Path(TaskFile("T-" + strconv.Itoa(n)))); errors.Is(err, os.ErrNotExist) {
			break
		}
		n++
	}
	id := "T-" + strconv.Itoa(n)
	task, err := build(id)
	if err != nil {
		return Task{}, err
	}
	if task.ID != id {
		return Task{}, fmt.Errorf("add task %s: the new task's id is %s", id, task.ID)
	}
	ix, fresh := t.openFreshQueueIndex()
	if ix != nil {
		defer ix.Close()
	}
	if _, err := t.writeTask(&task, nil); err != nil {
		return Task{}, err
	}
	o.Order = append(o.Order, id)
	o.NextID = n + 1
	if err := t.writeOrder(o, data, []string{id}); err != nil {
		os.Remove(t.Path(TaskFile(id)))
		return Task{}, err
	}
	if fresh {
		t.indexTaskAdded(ix, n, task.State, o.NextID)
	} else {
		t.dropQueueIndex()
	}
	return task, nil
}

// FindTask returns one task of the queue, reading only its file. It takes no lock:
// strom writes files whole (WriteAtomic).
func (t *Tree) FindTask(ctx context.Context, id string) (Task, error) {
	return t.FindTaskLocked(id)
}

// FindTaskLocked is FindTask for a caller that holds the lock.
func (t *Tree) FindTaskLocked(id string) (Task, error) {
	id = NormalizeID(id)
	if !validID(id) {
		return Task{}, unknownTask(id)
	}
	v, err := t.headVersion()
	if err != nil {
		return Task{}, err
	}
	if v == 1 {
		q, err := t.LoadQueue()
		if err != nil {
			return Task{}, err
		}
		task, err := q.Find(id)
		if err != nil {
			return Task{}, err
		}
		return *task, nil
	}
	task, _, err := t.readTask(id)
	if err != nil {
		return Task{}, err
	}
	return *task, nil
}

// headVersion reads the version from the first bytes of queue.json, without
// reading the order (0: no queue.json).
func (t *Tree) headVersion() (int, error) {
	f, err := os.Open(t.Path(QueueFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	defer f.Close()
	var b [64]byte
	n, _ := f.Read(b[:])
	if v := queueVersion(b[:n]); v != 0 {
		if v > QueueVersion {
			return v, newerQueue(t.rel(QueueFile), v)
		}
		return v, nil
	}
	v, _, _, err := t.readOrder()
	return v, err
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*loadedQueue{} // by tree
)

// Validate checks bytes of a state file named like its place under .strom/ (for
// example "queue.json", "tasks/T-3.json" or "gates/claude-usage/hold.json"). Files
// strom does not own are not checked. What spans files (the order and the task
// files) is checked by CheckFiles.
func Validate(rel string, data []byte) error {
	shown := DirName + "/" + rel
	if ok, err := validateProgressFile(rel, shown, data); ok {
		return err
	}
	if _, ok := TaskOfFile(rel); ok {
		_, err := ParseTask(shown, rel, data)
		return err
	}
	switch {
	case rel == QueueFile:
		if queueVersion(data) == 1 {
			_, err := ParseQueue(shown, data)
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
	case strings.HasPrefix(rel, GatesDir+"/") && strings.HasSuffix(rel, "/"+HoldFile):
		return check(shown, schemas.Hold, data)
	case strings.HasPrefix(rel, TasksDir+"/") && !strings.HasPrefix(path.Base(rel), ".tmp-"):
		return &SchemaError{File: shown, Rule: "only task files named like T-12.json belong in " + DirName + "/" + TasksDir}
	}
	return nil
}

// QueueVersionOf returns the version queue.json bytes say they are (0 when they
// say none).
func QueueVersionOf(data []byte) int { return queueVersion(data) }

// writtenFile, under .strom/run/, lists the ids of the task files strom wrote since
// the harness last cleared it (at a session's commit), one a line: the tasks a new
// session's snapshot keeps as they read, without asking git which files changed.
const writtenFile = "tasks-written"

// noteWritten adds id to the list of task files written; failing to is not an
// error (a snapshot then keeps HEAD's version of that task).
func (t *Tree) noteWritten(id string) {
	path := t.Path(RunDir, writtenFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(id + "\n")
	_ = f.Close()
}

// WrittenTasks returns the ids of the task files strom wrote since ClearWrittenTasks,
// each once.
func (t *Tree) WrittenTasks() []string {
	data, _ := os.ReadFile(t.Path(RunDir, writtenFile))
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

// ClearWrittenTasks empties the list of task files written: they are committed.
func (t *Tree) ClearWrittenTasks() { os.Remove(t.Path(RunDir, writtenFile)) }
