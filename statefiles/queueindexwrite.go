package statefiles

// Building the queue's index (queueindex.go) and keeping it current after
// strom's own writes.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// indexQueueLocked reads and validates the whole queue and builds its index.
func (t *Tree) indexQueueLocked() error {
	cur, err := t.checkQueueFiles(queueState{}, true)
	if err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	v, o, data, err := t.readOrder()
	if err != nil {
		return err
	}
	if v == 1 || v == 2 {
		return nil // read whole by its callers
	}
	q, shards, err := t.loadShards(o)
	if err != nil {
		return err
	}
	st := cur.state(shards)
	st.QueueSum = sha256.Sum256(data)
	return t.writeQueueIndex(q, st)
}

// state is the state of an index built from the shards' bytes data, read after
// the check cur stamped them.
func (cur queueFiles) state(data map[string][]byte) queueState {
	return queueState{At: cur.at, Queue: cur.queue, Folder: cur.folder, Shards: cur.stamped(data)}
}

// indexWholeQueue builds the index of the queue strom just wrote whole, its
// queue.json's bytes now order and its shards' by name, those it did not write
// as they were read at the time at (folderClock's): a stamp is trusted by a stat
// alone only when it had not changed for folderSettled then.
func (t *Tree) indexWholeQueue(q *Queue, order []byte, shards map[string][]byte, at int64) {
	cur, err := t.checkQueueFiles(queueState{}, true)
	if err != nil {
		return
	}
	st := cur.state(shards)
	st.QueueSum = sha256.Sum256(order)
	st.At = min(st.At, at)
	_ = t.writeQueueIndex(q, st)
}

// writeQueueIndex writes the index of q, whose files st stamps.
func (t *Tree) writeQueueIndex(q *Queue, st queueState) error {
	st.NextID, st.Total, st.Counts = q.NextID, len(q.Tasks), q.Count()
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
	run := t.Path(RunDir)
	if err := MkdirAll(run, 0o755); err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	tmp, err := os.MkdirTemp(run, ".tmp-"+queueIndexDir+"-*")
	if err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{queueIndexOrder: order, queueIndexIDs: ids, queueIndexState: st.encode()} {
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

// saveIndexState writes the state of the fresh index ix after strom wrote the
// shard rel, whose bytes are now data, and queue.json when order (its bytes now)
// is not nil: their stamps read again, the other shards' kept as the check found
// them, the folder's left for the next check to list (the write changed it).
func (t *Tree) saveIndexState(ix *queueIndex, st queueState, rel string, data, order []byte) error {
	st.At, st.Folder = ix.checked, stamp{}
	if order != nil {
		qs, err := statStamp(t.Path(QueueFile))
		if err != nil {
			return err
		}
		st.Queue, st.QueueSum = qs, sha256.Sum256(order)
	}
	lo, _, ok := ShardOfFile(rel)
	if !ok {
		return NotShard(t.rel(rel))
	}
	s, err := statOnlyPath(t.Path(rel))
	if err != nil {
		return err
	}
	one := shardStamp{Lo: lo, Stamp: s, Sum: sha256.Sum256(data)}
	shards := make([]shardStamp, 0, len(st.Shards)+1)
	for _, o := range st.Shards {
		if o.Lo < lo {
			shards = append(shards, o)
		}
	}
	shards = append(shards, one)
	for _, o := range st.Shards {
		if o.Lo > lo {
			shards = append(shards, o)
		}
	}
	st.Shards = shards
	return t.writeQueueState(st)
}

// statOnlyPath is the stamp of the file at path without its tail.
func statOnlyPath(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stampOfInfo(fi, fi.Size()), nil
}

// indexTaskChanged keeps a fresh index current after strom wrote one task into
// its shard (now data), its state gone from was to now. On any failure the index
// is dropped.
func (t *Tree) indexTaskChanged(ix *queueIndex, id string, was, now State, data []byte) {
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
	if t.saveIndexState(ix, st, ShardFile(id), data, nil) != nil {
		t.dropQueueIndex()
	}
}

// indexTaskAdded keeps a fresh index current after strom added task T-n to its
// shard (now data) and queue.json (now order).
func (t *Tree) indexTaskAdded(ix *queueIndex, n int, state State, nextID int, data, order []byte) {
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
	if t.saveIndexState(ix, st, shardOf(n), data, order) != nil {
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
	f, err := OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
