package statefiles

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/strom-research/strom/schemas"
)

// The index of queue.json lives in .strom/run/queue/ (never committed): the counts
// of tasks in each state, and where each task's JSON object is in queue.json, in
// queue order (order.bin) and by id number (ids.bin). The commands an agent runs
// often — `strom task` in a session, `strom record`, `strom status`, a page of
// `strom task list` — read the few bytes they need through it instead of the whole
// queue. Like the progress index, it names the version of queue.json it was built
// from by its stamp (stamp.go); a queue.json with another stamp is read and
// validated whole and the index built again. strom's own writes of the queue build
// it from the bytes they write.

const (
	queueIndexDir     = "queue"
	queueIndexState   = "state.json"
	queueIndexOrder   = "order.bin"
	queueIndexIDs     = "ids.bin"
	queueIndexVersion = 1
	orderEntry        = 20 // id number u32, state u32, offset u64, length u32
)

var stateCodes = map[State]uint32{Open: 1, Started: 2, Waiting: 3, Done: 4, Parked: 5}

func stateOfCode(c uint32) State {
	for s, n := range stateCodes {
		if n == c {
			return s
		}
	}
	return ""
}

type queueState struct {
	Version int           `json:"version"`
	Schema  string        `json:"schema"`
	Stamp   stamp         `json:"stamp"`
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
	s, _ := schemaSum(schemas.Queue)
	return hex.EncodeToString(s[:])
}

func (t *Tree) queueIndexPath(elem ...string) string {
	return t.Path(append([]string{RunDir, queueIndexDir}, elem...)...)
}

// queueIndex is an open, fresh index.
type queueIndex struct {
	st    queueState
	order *os.File
	ids   *os.File
	queue *os.File
}

func (ix *queueIndex) Close() {
	for _, f := range []*os.File{ix.order, ix.ids, ix.queue} {
		if f != nil {
			f.Close()
		}
	}
}

// openFreshQueueIndex opens the index when it covers queue.json as it stands.
func (t *Tree) openFreshQueueIndex() (*queueIndex, bool) {
	b, err := os.ReadFile(t.queueIndexPath(queueIndexState))
	if err != nil {
		return nil, false
	}
	ix := &queueIndex{}
	if json.Unmarshal(b, &ix.st) != nil || ix.st.Version != queueIndexVersion || ix.st.Schema != queueSchemaSum() {
		return nil, false
	}
	if ix.queue, err = os.Open(t.Path(QueueFile)); err != nil {
		return nil, false
	}
	fi, err := ix.queue.Stat()
	if err != nil || fi.Size() != ix.st.Stamp.Size || fi.ModTime().UnixNano() != ix.st.Stamp.MTime {
		ix.Close()
		return nil, false
	}
	if tail, err := tailAt(ix.queue, fi.Size()); err != nil || tail != ix.st.Stamp.Tail {
		ix.Close()
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

// queueIndex returns a fresh index, building it under the lock when needed; the
// caller closes it.
func (t *Tree) queueIndex(ctx context.Context) (*queueIndex, error) {
	if ix, ok := t.noQueue(); ok {
		return ix, nil
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
	if ix, ok := t.noQueue(); ok {
		return ix, nil
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

// noQueue is the index of a research without queue.json: no tasks.
func (t *Tree) noQueue() (*queueIndex, bool) {
	if _, err := os.Stat(t.Path(QueueFile)); !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	return &queueIndex{st: queueState{NextID: 1, Counts: NewQueue().Count()}}, true
}

// indexQueueLocked reads and validates queue.json whole and builds its index.
func (t *Tree) indexQueueLocked() error {
	path := t.Path(QueueFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	q, err := ParseQueue(t.rel(QueueFile), data)
	if err != nil {
		return err
	}
	spans, err := taskSpans(data)
	if err != nil || len(spans) != len(q.Tasks) {
		return fmt.Errorf("index %s: the tasks could not be located", t.rel(QueueFile))
	}
	cur := stamp{Ino: inode(fi), Size: int64(len(data)), MTime: fi.ModTime().UnixNano(), Tail: tailSum(data[max(0, len(data)-stampTail):])}
	return t.writeQueueIndex(q, spans, cur)
}

// indexSavedQueue builds the index of the queue strom just wrote as data.
func (t *Tree) indexSavedQueue(q *Queue, data []byte) {
	cur, err := stampOf(t.Path(QueueFile))
	if err != nil || cur.Size != int64(len(data)) || cur.Tail != tailSum(data[max(0, len(data)-stampTail):]) {
		return // someone else's bytes: the next reader indexes them
	}
	spans := indentedSpans(data)
	if len(spans) != len(q.Tasks) {
		return
	}
	_ = t.writeQueueIndex(q, spans, cur)
}

type span struct{ off, n int64 }

// indentedSpans finds the tasks in a queue as marshal writes it: each task's object
// opens with a line "    {" and closes with "    }" (strings never hold a raw
// newline, and deeper objects are indented further).
func indentedSpans(data []byte) []span {
	var out []span
	var start int64 = -1
	pos := int64(0)
	for l := range bytes.Lines(data) {
		s := bytes.TrimRight(l, "\n")
		switch {
		case bytes.Equal(s, []byte("    {")):
			start = pos + 4
		case start >= 0 && (bytes.Equal(s, []byte("    }")) || bytes.Equal(s, []byte("    },"))):
			out = append(out, span{start, pos + 5 - start})
			start = -1
		}
		pos += int64(len(l))
	}
	return out
}

// taskSpans finds the tasks in any valid queue.json, however it is laid out.
func taskSpans(data []byte) ([]span, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []span
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "tasks" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil, errors.New("tasks is not an array")
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			end := dec.InputOffset()
			out = append(out, span{end - int64(len(raw)), int64(len(raw))})
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *Tree) writeQueueIndex(q *Queue, spans []span, cur stamp) error {
	st := queueState{Version: queueIndexVersion, Schema: queueSchemaSum(), Stamp: cur, NextID: q.NextID, Total: len(q.Tasks), Counts: q.Count()}
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
		binary.LittleEndian.PutUint64(e[8:], uint64(spans[i].off))
		binary.LittleEndian.PutUint32(e[16:], uint32(spans[i].n))
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
	dir := t.queueIndexPath()
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	return nil
}

// entry reads the order entry at position i.
func (ix *queueIndex) entry(i int) (id int, st State, sp span, err error) {
	var e [orderEntry]byte
	if _, err := ix.order.ReadAt(e[:], int64(i)*orderEntry); err != nil {
		return 0, "", span{}, err
	}
	return int(binary.LittleEndian.Uint32(e[0:])), stateOfCode(binary.LittleEndian.Uint32(e[4:])),
		span{int64(binary.LittleEndian.Uint64(e[8:])), int64(binary.LittleEndian.Uint32(e[16:]))}, nil
}

// task decodes the task at span sp of queue.json.
func (ix *queueIndex) task(sp span) (Task, error) {
	b := make([]byte, sp.n)
	if _, err := ix.queue.ReadAt(b, sp.off); err != nil {
		return Task{}, err
	}
	var task Task
	err := json.Unmarshal(b, &task)
	return task, err
}

// find returns the task with id through the index.
func (ix *queueIndex) find(id string) (Task, error) {
	id = NormalizeID(id)
	unknown := fmt.Errorf("%w %s: strom task list shows the ids", ErrUnknownTask, id)
	n := idNumber(id)
	if n <= 0 || id != "T-"+fmt.Sprint(n) {
		return Task{}, unknown
	}
	if ix.ids == nil {
		return Task{}, unknown
	}
	var b [4]byte
	if _, err := ix.ids.ReadAt(b[:], int64(4*n)); err != nil {
		return Task{}, unknown // past the end: no such id
	}
	pos := int(binary.LittleEndian.Uint32(b[:]))
	if pos == 0 {
		return Task{}, unknown
	}
	got, _, sp, err := ix.entry(pos - 1)
	if err != nil || got != n {
		return Task{}, fmt.Errorf("read the index of %s: %w", QueueFile, errIndexBroken)
	}
	task, err := ix.task(sp)
	if err != nil || task.ID != id {
		return Task{}, fmt.Errorf("read the index of %s: %w", QueueFile, errIndexBroken)
	}
	return task, nil
}

var errIndexBroken = errors.New("the index does not match the file; run the command again")

// FindTask returns one task of the queue, reading only its bytes of queue.json.
func (t *Tree) FindTask(ctx context.Context, id string) (Task, error) {
	ix, err := t.queueIndex(ctx)
	if err != nil {
		return Task{}, err
	}
	defer ix.Close()
	task, err := ix.find(id)
	if errors.Is(err, errIndexBroken) {
		os.Remove(t.queueIndexPath(queueIndexState))
	}
	return task, err
}

// FindTaskLocked is FindTask for a caller that holds the lock.
func (t *Tree) FindTaskLocked(id string) (Task, error) {
	ix, err := t.queueIndexLocked()
	if err != nil {
		return Task{}, err
	}
	defer ix.Close()
	task, err := ix.find(id)
	if errors.Is(err, errIndexBroken) {
		os.Remove(t.queueIndexPath(queueIndexState))
	}
	return task, err
}

// QueueSummary returns the counts of the queue without reading it.
func (t *Tree) QueueSummary(ctx context.Context) (QueueSummary, error) {
	ix, err := t.queueIndex(ctx)
	if err != nil {
		return QueueSummary{}, err
	}
	defer ix.Close()
	c := make(map[State]int, len(States))
	for _, s := range States {
		c[s] = ix.st.Counts[s]
	}
	return QueueSummary{NextID: ix.st.NextID, Total: ix.st.Total, Counts: c}, nil
}

// QueuePage returns up to n tasks in queue order, skipping the first skip of them,
// only those in state want when it is set, and how many tasks match in all. It reads
// the index's entries and the bytes of the tasks it returns.
func (t *Tree) QueuePage(ctx context.Context, want State, skip, n int) ([]Task, int, error) {
	ix, err := t.queueIndex(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer ix.Close()
	total := ix.st.Total
	if want != "" {
		total = ix.st.Counts[want]
	}
	out := []Task{}
	seen := 0
	for i := 0; i < ix.st.Total && len(out) < n && seen < skip+n; i++ {
		_, st, sp, err := ix.entry(i)
		if err != nil {
			return nil, 0, fmt.Errorf("read the index of %s: %w", t.rel(QueueFile), err)
		}
		if want != "" && st != want {
			continue
		}
		seen++
		if seen <= skip {
			continue
		}
		task, err := ix.task(sp)
		if err != nil {
			os.Remove(t.queueIndexPath(queueIndexState))
			return nil, 0, fmt.Errorf("read the index of %s: %w", t.rel(QueueFile), errIndexBroken)
		}
		out = append(out, task)
	}
	return out, total, nil
}
