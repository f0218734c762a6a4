package statefiles

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/strom-research/strom/schemas"
)

// The index of the queue lives in .strom/run/queue/ (never committed): the counts
// of tasks in each state, and each task's state in queue order (order.bin) with its
// place by id number (ids.bin). `strom status`, a page of `strom task list` and a
// run looking for the next open task read the few bytes they need through it
// instead of every shard. It names the queue it was built from by the stamp
// of queue.json (stamp.go) and of the tasks' folder: every write strom makes and
// every checkout, merge or pull replaces files (a new entry in the folder changes
// its time), so an index whose stamps differ is built again from the files, under
// the lock. strom's own writes of a task keep it current in place. Beside it,
// spans.bin tells where each task lies in its shard, for the bytes it was computed
// from (taskspans.go).
//
// A shard edited in place by hand (without replacing the file) does not
// change the folder's time: the commands that show a task read its file and see the
// edit; the counts and the states of a page learn it at the next rebuild, and a
// page whose task read differs from its entry rebuilds the index at once.

const (
	queueIndexDir     = "queue"
	queueIndexState   = "state.json"
	queueIndexOrder   = "order.bin"
	queueIndexIDs     = "ids.bin"
	queueIndexVersion = 3
	orderEntry        = 8 // id number u32, state u32
)

var stateCodes = map[State]uint32{Open: 1, Started: 2, Waiting: 3, Done: 4, Parked: 5}

// codeStates is stateCodes the other way round: a page reads an entry's state for
// every task it passes, thousands of them.
var codeStates = func() (out [6]State) {
	for s, n := range stateCodes {
		out[n] = s
	}
	return out
}()

func stateOfCode(c uint32) State {
	if c < uint32(len(codeStates)) {
		return codeStates[c]
	}
	return ""
}

// dirStamp tells whether the tasks' folder has had entries added, removed or
// replaced since: its inode and modification time.
type dirStamp struct {
	Ino   uint64 `json:"ino"`
	MTime int64  `json:"mtime"`
}

func dirStampOf(path string) (dirStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return dirStamp{}, nil
	}
	if err != nil {
		return dirStamp{}, err
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	return dirStamp{Ino: ino, MTime: fi.ModTime().UnixNano()}, nil
}

type queueState struct {
	Version int           `json:"version"`
	Schema  string        `json:"schema"`
	Stamp   stamp         `json:"stamp"`
	Tasks   dirStamp      `json:"tasks"`
	NextID  int           `json:"next_id"`
	Total   int           `json:"total"`
	Counts  map[State]int `json:"counts"`
}

// QueueSummary is what the index knows of the whole queue.
type QueueSummary struct {
	NextID int
	Total  int
	Counts map[State]int
}

func queueSchemaSum() string {
	a, _ := schemaSum(schemas.Queue)
	b, _ := schemaSum(schemas.Task)
	c, _ := schemaSum(schemas.Shard)
	return hex.EncodeToString(a[:8]) + hex.EncodeToString(b[:8]) + hex.EncodeToString(c[:8])
}

func (t *Tree) queueIndexPath(elem ...string) string {
	return t.Path(append([]string{RunDir, queueIndexDir}, elem...)...)
}

// queueIndex is an open, fresh index.
type queueIndex struct {
	st    queueState
	order *os.File
	ids   *os.File
}

func (ix *queueIndex) Close() {
	for _, f := range []*os.File{ix.order, ix.ids} {
		if f != nil {
			f.Close()
		}
	}
}

// currentStamps reads the stamps of queue.json and the tasks' folder as they are.
func (t *Tree) currentStamps() (stamp, dirStamp, error) {
	qs, err := statStamp(t.Path(QueueFile))
	if err != nil {
		return stamp{}, dirStamp{}, err
	}
	ds, err := dirStampOf(t.Path(TasksDir))
	return qs, ds, err
}

// openFreshQueueIndex opens the index when it covers the queue as it stands; nil
// and false otherwise.
func (t *Tree) openFreshQueueIndex() (*queueIndex, bool) {
	b, err := os.ReadFile(t.queueIndexPath(queueIndexState))
	if err != nil {
		return nil, false
	}
	ix := &queueIndex{}
	if json.Unmarshal(b, &ix.st) != nil || ix.st.Version != queueIndexVersion || ix.st.Schema != queueSchemaSum() {
		return nil, false
	}
	qs, ds, err := t.currentStamps()
	if err != nil || !ix.st.Stamp.same(qs) || ds != ix.st.Tasks {
		return nil, false
	}
	if ix.order, err = os.Open(t.queueIndexPath(queueIndexOrder)); err != nil {
		ix.Close()
		return nil, false
	}
	if ix.ids, err = os.Open(t.queueIndexPath(queueIndexIDs)); err != nil {
		ix.Close()
		return nil, false
	}
	return ix, true
}

// dropQueueIndex makes the next reader build the index again.
func (t *Tree) dropQueueIndex() {
	os.Remove(t.queueIndexPath(queueIndexState))
}

// queueIndex returns a fresh index, building it under the lock when needed; the
// caller closes it. For a queue of version 1 or 2 it returns nil: the callers
// read it whole.
func (t *Tree) queueIndex(ctx context.Context) (*queueIndex, error) {
	if ix, ok, err := t.noQueue(); ok || err != nil {
		return ix, err
	}
	if ix, ok := t.openFreshQueueIndex(); ok {
		return ix, nil
	}
	if err := t.Locked(ctx, t.indexQueueLocked); err != nil {
		return nil, err
	}
	return t.queueIndexLocked()
}

// queueIndexLocked is queueIndex for a caller that holds the lock.
func (t *Tree) queueIndexLocked() (*queueIndex, error) {
	if ix, ok, err := t.noQueue(); ok || err != nil {
		return ix, err
	}
	if ix, ok := t.openFreshQueueIndex(); ok {
		return ix, nil
	}
	if err := t.indexQueueLocked(); err != nil {
		return nil, err
	}
	if ix, ok := t.openFreshQueueIndex(); ok {
		return ix, nil
	}
	return nil, fmt.Errorf("index %s: it changed while it was read; run the command again", t.rel(QueueFile))
}

// noQueue answers for a research without queue.json (an empty index) and for a
// queue of version 1 or 2 (nil, true): one not migrated yet is read whole.
func (t *Tree) noQueue() (*queueIndex, bool, error) {
	v, err := t.headVersion()
	switch {
	case err != nil:
		return nil, false, err
	case v == 0:
		return &queueIndex{st: queueState{NextID: 1, Counts: NewQueue().Count()}}, true, nil
	case v == 1, v == 2:
		return nil, true, nil
	}
	return nil, false, nil
}

// indexQueueLocked reads and validates the whole queue and builds its index.
func (t *Tree) indexQueueLocked() error {
	qs, ds, err := t.currentStamps()
	if err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	v, o, _, err := t.readOrder()
	if err != nil {
		return err
	}
	if v == 1 || v == 2 {
		return nil // read whole by its callers
	}
	q, _, err := t.loadShards(o)
	if err != nil {
		return err
	}
	return t.writeQueueIndex(q, qs, ds)
}

// indexWholeQueue builds the index of the queue strom just wrote whole.
func (t *Tree) indexWholeQueue(q *Queue) {
	qs, ds, err := t.currentStamps()
	if err != nil {
		return
	}
	_ = t.writeQueueIndex(q, qs, ds)
}

func (t *Tree) writeQueueIndex(q *Queue, qs stamp, ds dirStamp) error {
	st := queueState{Version: queueIndexVersion, Schema: queueSchemaSum(), Stamp: qs, Tasks: ds, NextID: q.NextID, Total: len(q.Tasks), Counts: q.Count()}
	order := make([]byte, orderEntry*len(q.Tasks))
	maxID := 0
	for _, task := range q.Tasks {
		maxID = max(maxID, idNumber(task.ID))
	}
	ids := make([]byte, 4*(maxID+1))
	for i, task := range q.Tasks {
		e := order[i*orderEntry:]
		n := idNumber(task.ID)
		binary.LittleEndian.PutUint32(e[0:], uint32(n))
		binary.LittleEndian.PutUint32(e[4:], stateCodes[task.State])
		binary.LittleEndian.PutUint32(ids[4*n:], uint32(i+1))
	}
	stb, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	run := t.Path(RunDir)
	if err := os.MkdirAll(run, 0o755); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	tmp, err := os.MkdirTemp(run, ".tmp-"+queueIndexDir+"-*")
	if err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{queueIndexOrder: order, queueIndexIDs: ids, queueIndexState: append(stb, '\n')} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
		}
	}
	// The spans of the tasks name the bytes they were computed from: they stay
	// (taskspans.go).
	if os.Rename(t.queueIndexPath(queueIndexSpans), filepath.Join(tmp, queueIndexSpans)) != nil {
		if err := os.WriteFile(filepath.Join(tmp, queueIndexSpans), nil, 0o644); err != nil {
			return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
		}
	}
	dir := t.queueIndexPath()
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	return nil
}

// saveState writes the index's state.json with the stamps as they are now.
func (t *Tree) saveIndexState(st queueState) error {
	qs, ds, err := t.currentStamps()
	if err != nil {
		return err
	}
	st.Stamp, st.Tasks = qs, ds
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return WriteTransient(t.queueIndexPath(queueIndexState), append(b, '\n'))
}

// indexTaskChanged keeps a fresh index current after strom wrote one task,
// whose state went from was to now. On any failure the index is dropped.
func (t *Tree) indexTaskChanged(ix *queueIndex, id string, was, now State) {
	st := ix.st
	if was != now {
		pos, ok := ix.pos(idNumber(id))
		if !ok || writeAt(t.queueIndexPath(queueIndexOrder), int64(pos)*orderEntry+4, stateCodes[now]) != nil {
			t.dropQueueIndex()
			return
		}
		st.Counts = copyCounts(st.Counts)
		st.Counts[was]--
		st.Counts[now]++
	}
	if t.saveIndexState(st) != nil {
		t.dropQueueIndex()
	}
}

// indexTaskAdded keeps a fresh index current after strom added task T-n.
func (t *Tree) indexTaskAdded(ix *queueIndex, n int, state State, nextID int) {
	st := ix.st
	pos := st.Total
	var e [orderEntry]byte
	binary.LittleEndian.PutUint32(e[0:], uint32(n))
	binary.LittleEndian.PutUint32(e[4:], stateCodes[state])
	ok := writeBytesAt(t.queueIndexPath(queueIndexOrder), int64(pos)*orderEntry, e[:]) == nil &&
		writeAt(t.queueIndexPath(queueIndexIDs), int64(4*n), uint32(pos+1)) == nil
	if !ok {
		t.dropQueueIndex()
		return
	}
	st.Total++
	st.NextID = nextID
	st.Counts = copyCounts(st.Counts)
	st.Counts[state]++
	if t.saveIndexState(st) != nil {
		t.dropQueueIndex()
	}
}

func copyCounts(c map[State]int) map[State]int {
	out := make(map[State]int, len(States))
	for _, s := range States {
		out[s] = c[s]
	}
	return out
}

func writeAt(path string, off int64, v uint32) error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return writeBytesAt(path, off, b[:])
}

// writeBytesAt writes b at off of path, extending it with zeros when it is shorter.
func writeBytesAt(path string, off int64, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pos returns the place in queue order of task T-n.
func (ix *queueIndex) pos(n int) (int, bool) {
	if n <= 0 || ix.ids == nil {
		return 0, false
	}
	var b [4]byte
	if _, err := ix.ids.ReadAt(b[:], int64(4*n)); err != nil {
		return 0, false
	}
	p := int(binary.LittleEndian.Uint32(b[:]))
	if p == 0 {
		return 0, false
	}
	got, _, err := ix.entry(p - 1)
	if err != nil || got != n {
		return 0, false
	}
	return p - 1, true
}

// entry reads the order entry at position i.
func (ix *queueIndex) entry(i int) (id int, st State, err error) {
	var e [orderEntry]byte
	if _, err := ix.order.ReadAt(e[:], int64(i)*orderEntry); err != nil {
		return 0, "", err
	}
	return int(binary.LittleEndian.Uint32(e[0:])), stateOfCode(binary.LittleEndian.Uint32(e[4:])), nil
}

var errIndexBroken = errors.New("the index does not match the files; run the command again")

// QueueSummary returns the counts of the queue without reading it.
func (t *Tree) QueueSummary(ctx context.Context) (QueueSummary, error) {
	ix, err := t.queueIndex(ctx)
	if err != nil {
		return QueueSummary{}, err
	}
	if ix == nil {
		q, err := t.LoadQueue()
		if err != nil {
			return QueueSummary{}, err
		}
		return QueueSummary{NextID: q.NextID, Total: len(q.Tasks), Counts: q.Count()}, nil
	}
	defer ix.Close()
	return QueueSummary{NextID: ix.st.NextID, Total: ix.st.Total, Counts: copyCounts(ix.st.Counts)}, nil
}

// QueuePage returns up to n tasks in queue order, skipping the first skip of them,
// only those in state want when it is set, and how many tasks match in all. It reads
// the index's entries and the files of the tasks it returns.
func (t *Tree) QueuePage(ctx context.Context, want State, skip, n int) ([]Task, int, error) {
	out := []Task{}
	var states []State
	if want != "" {
		states = []State{want}
	}
	total, err := t.eachTask(ctx, states, skip, func() { out = out[:0] }, func(task Task) bool {
		out = append(out, task)
		return len(out) < n
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// EachTask calls fn with the tasks in state want (all when it is ""), in queue
// order, until fn returns false. It reads the index and the files of the tasks fn
// is given.
func (t *Tree) EachTask(ctx context.Context, want State, fn func(Task) bool) error {
	var states []State
	if want != "" {
		states = []State{want}
	}
	return t.EachTaskIn(ctx, states, fn)
}

// EachTaskIn is EachTask for the tasks in any of states (all when there are none).
func (t *Tree) EachTaskIn(ctx context.Context, states []State, fn func(Task) bool) error {
	given := map[string]bool{}
	_, err := t.eachTask(ctx, states, 0, func() {}, func(task Task) bool {
		if given[task.ID] {
			return true // given before the index was built again
		}
		given[task.ID] = true
		return fn(task)
	})
	return err
}

// eachTask runs eachTaskOnce, and once more on an index found not to match the
// files (after reset), built again.
func (t *Tree) eachTask(ctx context.Context, want []State, skip int, reset func(), fn func(Task) bool) (int, error) {
	for try := 0; ; try++ {
		total, err := t.eachTaskOnce(ctx, want, skip, fn)
		if errors.Is(err, errIndexBroken) && try == 0 {
			t.dropQueueIndex()
			reset()
			continue
		}
		return total, err
	}
}

func (t *Tree) eachTaskOnce(ctx context.Context, want []State, skip int, fn func(Task) bool) (int, error) {
	wanted := func(s State) bool { return len(want) == 0 || slices.Contains(want, s) }
	ix, err := t.queueIndex(ctx)
	if err != nil {
		return 0, err
	}
	if ix == nil {
		q, err := t.LoadQueue()
		if err != nil {
			return 0, err
		}
		total, seen := 0, 0
		more := true
		for _, task := range q.Tasks {
			if !wanted(task.State) {
				continue
			}
			total++
			if seen++; seen > skip && more {
				more = fn(task)
			}
		}
		return total, nil
	}
	defer ix.Close()
	total := ix.st.Total
	if len(want) > 0 {
		total = 0
		for _, s := range want {
			total += ix.st.Counts[s]
		}
	}
	if ix.st.Total == 0 || ix.order == nil {
		return total, nil
	}
	// The entries in one read: 8 bytes a task.
	entries := make([]byte, ix.st.Total*orderEntry)
	if _, err := ix.order.ReadAt(entries, 0); errors.Is(err, io.EOF) {
		return 0, errIndexBroken
	} else if err != nil {
		return 0, fmt.Errorf("read the index of %s: %w", t.rel(QueueFile), err)
	}
	seen := 0
	// The shard read last, for the tasks wanted of it (taskspans.go): a page's
	// tasks are mostly in one.
	var cur *shardRead
	for i := 0; i < ix.st.Total; i++ {
		e := entries[i*orderEntry:]
		n, st := int(binary.LittleEndian.Uint32(e[0:])), stateOfCode(binary.LittleEndian.Uint32(e[4:]))
		if !wanted(st) {
			continue
		}
		if seen++; seen <= skip {
			continue
		}
		if rel := shardOf(n); cur == nil || cur.rel != rel {
			if cur, err = t.readShardFor(rel); err != nil {
				return 0, err
			}
		}
		task, ok, err := cur.task("T-" + strconv.Itoa(n))
		if err != nil {
			return 0, err
		}
		if !ok || task.State != st {
			return 0, errIndexBroken
		}
		if !fn(task) {
			break
		}
	}
	return total, nil
}

// DropQueueIndex makes the next reader of the queue build its index again: for a
// caller that replaced a shard itself.
func (t *Tree) DropQueueIndex() { t.dropQueueIndex() }

// readQueueCache keeps, per tree, the last queue ReadQueue read and the stamps of
// queue.json and the tasks' folder it was read at.
var (
	readQueueMu    sync.Mutex
	readQueueCache = map[string]readQueueEntry{}
)

type readQueueEntry struct {
	q     *Queue
	stamp stamp
	tasks dirStamp
}

// ReadQueue is LoadQueue for a reader that only looks, again and again (the app's
// overview, every second): while queue.json and the tasks' folder keep their
// stamps, the queue read last is given again without reading a file. The tasks
// must not be changed (their slices are shared). A shard edited in place is
// seen at the next change of the folder, as the index sees it.
func (t *Tree) ReadQueue() (*Queue, error) {
	qs, ds, err := t.currentStamps()
	if err != nil {
		return t.LoadQueue()
	}
	readQueueMu.Lock()
	e, ok := readQueueCache[t.Dir]
	readQueueMu.Unlock()
	if ok && e.stamp.same(qs) && e.tasks == ds {
		c := *e.q
		c.Tasks = append([]Task(nil), e.q.Tasks...)
		return &c, nil
	}
	q, err := t.LoadQueue()
	if err != nil {
		return nil, err
	}
	t.forgetQueue() // not kept for a save: this queue is only looked at
	// A folder changed in the last second is not kept: a file system's times are
	// coarse, and a change in the same tick would keep the folder's time.
	if time.Since(time.Unix(0, max(ds.MTime, qs.MTime))) < time.Second {
		return q, nil
	}
	c := *q
	c.Tasks = append([]Task(nil), q.Tasks...)
	readQueueMu.Lock()
	readQueueCache[t.Dir] = readQueueEntry{q: &c, stamp: qs, tasks: ds}
	readQueueMu.Unlock()
	return q, nil
}
