package statefiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/strom-research/strom/schemas"
)

// The queue on disk (version 3): .strom/queue.json holds the order of the tasks and
// the next id, one id a line; the tasks live in shard files of a hundred ids
// (shards.go), .strom/tasks/T-100-199.json. A session changes its task's lines in
// its task's shard and nothing else, so its commit's diff shows that task, and a
// write costs what it changes: the targeted calls (UpdateTask, AddTask, FindTask)
// read and write one shard; only LoadQueue and SaveQueue, for the callers that
// need the whole queue, read every shard (and SaveQueue writes only the shards
// whose bytes changed).
//
// What spans files is checked in code: every id in the order is in its shard once
// and every task of a shard is in the order, and next_id is past every id.

// QueueVersion is the version of queue.json this strom writes.
const QueueVersion = 3

// TasksDir is the folder of the task shards under .strom/.
const TasksDir = "tasks"

// Order is .strom/queue.json of version 3 (and 2, of the same shape): the tasks'
// ids in queue order.
type Order struct {
	Version int      `json:"version"`
	NextID  int      `json:"next_id"`
	Order   []string `json:"order"`
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

// ParseOrder validates the bytes of a queue.json of version 3 or 2 (on disk, staged
// or committed), naming them shown in errors. It checks what the schema cannot say:
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

// CheckFiles checks what spans the files of a version 3 queue: every id of the
// order is in its shard and every task of a shard (ids, the tasks of the shards
// read) is in the order. shown names the queue in errors. Within a shard no id is
// twice and every id is in its range (checkShard), so no id is in two places.
//
// A task of a shard that is not in the order and whose id is not below next_id is
// an add a killed strom left half written (its shard written, queue.json not yet,
// by a strom before the journal): CheckFiles puts it at the end of o's order, in
// id order, and moves next_id past it, so it reads as added and the next write of
// the queue completes the add.
func CheckFiles(shown string, o *Order, ids []string) error {
	in := make(map[string]bool, len(o.Order))
	for _, id := range o.Order {
		in[id] = true
	}
	var adopt []string
	for _, id := range ids {
		if !in[id] && idNumber(id) >= o.NextID {
			adopt = append(adopt, id)
		}
	}
	slices.SortFunc(adopt, func(a, b string) int { return idNumber(a) - idNumber(b) })
	for _, id := range adopt {
		o.Order = append(o.Order, id)
		in[id] = true
		o.NextID = idNumber(id) + 1
	}
	have := make(map[string]bool, len(ids))
	for _, id := range ids {
		have[id] = true
		if !in[id] {
			return &SchemaError{File: shown, Pointer: "/order",
				Rule: fmt.Sprintf("task %s of %s/%s is not in the order: add %q to the order, or take the task out of the file", id, DirName, ShardFile(id), id)}
		}
	}
	for i, id := range o.Order {
		if !have[id] {
			return &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i),
				Rule: fmt.Sprintf("task %s is not in its file %s/%s: restore it (git checkout HEAD -- %s/%s) or take %s out of the order", id, DirName, ShardFile(id), DirName, ShardFile(id), id)}
		}
	}
	return nil
}

// readOrder reads queue.json as it stands: its version, and for version 2 and 3
// its order, and its bytes. A missing queue.json is version 0 with an empty order.
func (t *Tree) readOrder() (version int, o *Order, data []byte, err error) {
	shown := t.rel(QueueFile)
	data, err = readOptional(t.Path(QueueFile))
	if err != nil {
		return 0, nil, nil, readError(shown, err)
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
	return o.Version, o, data, nil
}

// readTask reads one task of a version 3 queue from its shard, decoding only its
// bytes where the index knows them (taskspans.go); a task its shard does not hold
// is ErrUnknownTask.
func (t *Tree) readTask(id string) (*Task, error) {
	s, err := t.readShardFor(ShardFile(id))
	if err != nil {
		return nil, err
	}
	task, ok, err := s.task(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, unknownTask(id)
	}
	return &task, nil
}

// writeOrder writes queue.json for o when its bytes differ from old. added names
// the ids new since old: with old known, only they are validated against the
// schema (the rest was valid when old was read), and the whole is checked in code.
func (t *Tree) writeOrder(o *Order, old []byte, added []string) ([]byte, error) {
	shown := t.rel(QueueFile)
	o.Version = QueueVersion
	if o.Order == nil {
		o.Order = []string{}
	}
	if err := o.check(shown); err != nil {
		return nil, fmt.Errorf("refuse to write invalid data: %w", err)
	}
	data, err := marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", shown, err)
	}
	if old != nil && bytes.Equal(old, data) {
		return data, nil
	}
	if err := checkWriteSize(shown, data); err != nil {
		return nil, err
	}
	if old != nil && queueVersion(old) == QueueVersion {
		mini, err := marshal(&Order{Version: o.Version, NextID: o.NextID, Order: append([]string{}, added...)})
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", shown, err)
		}
		if err := validate(shown, 0, schemas.Queue, mini); err != nil {
			return nil, fmt.Errorf("refuse to write invalid data: %w", err)
		}
		validated.remember(sumOf(schemas.Queue, data))
	} else if err := check(shown, schemas.Queue, data); err != nil {
		return nil, fmt.Errorf("refuse to write invalid data: %w", err)
	}
	return data, t.put(QueueFile, data)
}

// ensureCurrent migrates a queue of version 1 or 2 (queuemigrate.go). Hold the lock.
func (t *Tree) ensureCurrent() error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	v, err := t.headVersion()
	if err != nil {
		return err
	}
	if v == 1 || v == 2 {
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

// LoadQueue reads and validates the whole queue: the order and every shard. A
// missing queue is empty; a queue of version 1 or 2 is read as it is, not migrated
// (the first write migrates it).
func (t *Tree) LoadQueue() (*Queue, error) {
	at := folderClock().UnixNano()
	v, o, data, err := t.readOrder()
	if err != nil {
		return nil, err
	}
	switch v {
	case 1:
		return ParseQueue(t.rel(QueueFile), data)
	case 2:
		return t.loadTasks2(o)
	}
	q, shards, err := t.loadShards(o)
	if err != nil {
		return nil, err
	}
	t.rememberQueue(&loadedQueue{q: q, order: data, shards: shards, at: at})
	return q, nil
}

// loadShards reads every shard of a version 3 queue and puts its tasks in the
// order's order. A set of shards read before (the same bytes under the same
// schemas, memo.go) is not validated again. It returns the shards' bytes by name.
func (t *Tree) loadShards(o *Order) (*Queue, map[string][]byte, error) {
	rels, err := t.shardFiles()
	if err != nil {
		return nil, nil, err
	}
	raw := make([][]byte, len(rels))
	for i, rel := range rels {
		if raw[i], err = readFile(t.Path(rel)); err != nil {
			return nil, nil, readError(t.rel(rel), err)
		}
	}
	set := shardSetSum(rels, raw)
	known := validated.knownSum(set)
	byID := make(map[string]Task, len(o.Order))
	ids := make([]string, 0, len(o.Order))
	shards := make(map[string][]byte, len(rels))
	for i, rel := range rels {
		shards[rel] = raw[i]
		var tasks []Task
		if known {
			if tasks, err = unmarshalShard(raw[i]); err != nil {
				return nil, nil, &SchemaError{File: t.rel(rel), Rule: err.Error()}
			}
		} else if tasks, err = parseShard(t.rel(rel), rel, raw[i], false); err != nil {
			return nil, nil, err
		}
		for _, task := range tasks {
			byID[task.ID] = task
			ids = append(ids, task.ID)
		}
	}
	if err := CheckFiles(t.rel(QueueFile), o, ids); err != nil {
		// A change being written, or left half written by a kill, spans these
		// files: once it is whole (under the lock) they are read again.
		if pending, ferr := t.FinishPending(context.Background()); ferr != nil {
			return nil, nil, ferr
		} else if pending {
			if _, o, _, err = t.readOrder(); err != nil {
				return nil, nil, err
			}
			return t.loadShards(o)
		}
		return nil, nil, err
	}
	q := &Queue{Version: QueueVersion, NextID: o.NextID, Tasks: make([]Task, len(o.Order))}
	for i, id := range o.Order {
		q.Tasks[i] = byID[id]
	}
	validated.remember(set)
	return q, shards, nil
}

// loadedQueue is what the tree's last loaded Queue was read from: each shard's
// bytes and queue.json's. SaveQueue writes only the shards whose bytes differ.
type loadedQueue struct {
	q      *Queue
	order  []byte
	shards map[string][]byte
	at     int64 // folderClock's reading before they were read
}

func (t *Tree) rememberQueue(l *loadedQueue) {
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

// byShard groups tasks by the shard file that holds them.
func byShard(tasks []Task) map[string][]Task {
	out := map[string][]Task{}
	for _, task := range tasks {
		rel := ShardFile(task.ID)
		out[rel] = append(out[rel], task)
	}
	return out
}

// SaveQueue writes the whole queue. Hold the lock. It writes the shards whose
// bytes changed (validating the tasks that changed), removes the shards no task of
// q is in any more, and writes queue.json when the order or next_id changed. A
// queue of version 1 or 2 is migrated first.
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
	at := folderClock().UnixNano()
	_, disk, oldOrder, err := t.readOrder()
	if err != nil {
		return err
	}
	l := t.loadedOf(q)
	if l != nil && !bytes.Equal(l.order, oldOrder) {
		l = nil // another writer changed the queue since: compare with the files
	}
	if l != nil {
		at = l.at // the shards not written are as they were read then
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
	written := make(map[string][]byte, len(groups))
	var order []byte
	err = t.journaled(func() error {
		return t.saveQueueFiles(q, disk, oldOrder, l, groups, written, &order)
	})
	if err != nil {
		t.forgetQueue()
		t.dropQueueIndex()
		return err
	}
	t.forgetQueue()
	t.indexWholeQueue(q, order, written, at)
	return nil
}

// saveQueueFiles writes SaveQueue's files: the shards of groups whose bytes
// changed, and queue.json; run inside journaled, so that they are written whole.
func (t *Tree) saveQueueFiles(q *Queue, disk *Order, oldOrder []byte, l *loadedQueue, groups map[string][]Task, written map[string][]byte, order *[]byte) error {
	for _, rel := range slices.Sorted(maps.Keys(groups)) {
		var old []byte
		if l != nil {
			old = l.shards[rel]
		} else {
			old, _ = readOptional(t.Path(rel))
		}
		now, _, err := t.writeShard(rel, groups[rel], old)
		if err != nil {
			return err
		}
		written[rel] = now
	}
	ids := make([]string, len(q.Tasks))
	for i := range q.Tasks {
		ids[i] = q.Tasks[i].ID
	}
	was := make(map[string]bool, len(disk.Order))
	for _, id := range disk.Order {
		was[id] = true
	}
	var added []string
	for _, id := range ids {
		if !was[id] {
			added = append(added, id)
		}
	}
	o := &Order{Version: QueueVersion, NextID: max(q.NextID, disk.NextID), Order: ids}
	data, err := t.writeOrder(o, oldOrder, added)
	if err != nil {
		return err
	}
	*order = data
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

// headVersion reads the version from the first bytes of queue.json, without
// reading the order (0: no queue.json).
func (t *Tree) headVersion() (int, error) {
	f, err := OpenRead(t.Path(QueueFile))
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
// example "queue.json", "tasks/T-100-199.json" or "gates/claude-usage/hold.json").
// Files strom does not own are not checked. What spans files (the order and the
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
		return &SchemaError{File: shown, Rule: notShard}
	}
	return nil
}

// QueueVersionOf returns the version queue.json bytes say they are (0 when they
// say none).
func QueueVersionOf(data []byte) int { return queueVersion(data) }

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
