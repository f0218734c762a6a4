package statefiles

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/strom-research/strom/schemas"
)

// The index of the queue lives in .strom/run/queue/ (never committed): the counts
// of tasks in each state, and each task's state in queue order (order.bin) with its
// place by id number (ids.bin). `strom status`, a page of `strom task list` and a
// run looking for the next open task read the few bytes they need through it
// instead of every shard. Its state (queuestate.go) names the files it was built
// from by their stamps: queue.json's, the tasks' folder's and every shard's, and
// every use checks them (queuefresh.go). A shard changed in any way (replaced by
// an editor, a checkout, a merge or a pull, or edited in place, its size and
// time kept) has its tasks' entries brought up to date, under the lock; a
// queue.json changed builds the index again from the files. strom's own writes
// of a task keep it current in place. Beside it, slots.bin tells where each task
// lies in its shard, for the bytes it was computed from (taskspans.go). A page
// whose task read differs from its entry (a shard changed between the check and
// the read) builds the index again at once.

const (
	queueIndexDir     = "queue"
	queueIndexState   = "state" // queuestate.go
	queueIndexOrder   = "order.bin"
	queueIndexIDs     = "ids.bin"
	queueIndexVersion = 6
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
	st      queueState
	checked int64 // folderClock's reading when the check found it fresh
	order   *os.File
	ids     *os.File
}

func (ix *queueIndex) Close() {
	for _, f := range []*os.File{ix.order, ix.ids} {
		if f != nil {
			f.Close()
		}
	}
}

// readQueueState returns the index's state; ok is false when there is none this
// strom can use.
func (t *Tree) readQueueState() (queueState, bool) {
	b, err := ReadFile(t.queueIndexPath(queueIndexState))
	if err != nil {
		return queueState{}, false
	}
	return parseQueueState(b)
}

func (t *Tree) writeQueueState(st queueState) error {
	if err := WriteTransient(t.queueIndexPath(queueIndexState), st.encode()); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	return nil
}

// openFreshQueueIndex opens the index when it covers the queue as it stands
// (queuefresh.go); nil and false otherwise.
func (t *Tree) openFreshQueueIndex() (*queueIndex, bool) {
	st, ok := t.readQueueState()
	if !ok {
		return nil, false
	}
	cur, err := t.checkQueueFiles(st, false)
	if err != nil || !cur.fresh() {
		return nil, false
	}
	if cur.settles(st) {
		// Stamps the next checks can trust by a stat: recorded for them. A writer's
		// state this replaces is older in no stamp it has, so the next check
		// brings the index up to its files again.
		st.At, st.Folder = cur.at, cur.folder
		_ = t.writeQueueState(st)
	}
	ix := &queueIndex{st: st, checked: cur.at}
	if ix.order, err = OpenRead(t.queueIndexPath(queueIndexOrder)); err != nil {
		ix.Close()
		return nil, false
	}
	if ix.ids, err = OpenRead(t.queueIndexPath(queueIndexIDs)); err != nil {
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
	if err := t.Locked(ctx, t.updateQueueIndexLocked); err != nil {
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
	if err := t.updateQueueIndexLocked(); err != nil {
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
