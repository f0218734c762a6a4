package statefiles

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// The spans of the tasks: where each task lies in its shard file, so that a
// command that needs one task (strom task, strom record, a page of strom task
// list) decodes that task's bytes and not the file's hundred. They belong to the
// queue's index, in .strom/run/queue/spans.bin (never committed), one slot of
// fixed size a shard (T-1-99's first, T-100-199's second, …): the memo's name of
// the shard's bytes they were computed from (shardSum, the sum the memo of
// validated contents keeps) and each task's byte range by id.
//
// A slot serves only the bytes it names. A shard changed in any byte (an edit by
// hand, a pull, a merge, with its size or without) has another name, so it is read
// whole as before (validated unless the memo knows its bytes) and its slot written
// again; a slot never vouches for bytes, the memo does, as for a read of the whole
// shard. So a slot needs no stamp of its own. A task read from its range is
// checked besides: the range lies in the file and decodes, as one JSON value, to
// a task of the id asked. In bytes the memo knows valid only a task's own object
// does (the schemas allow no other key "id", nor another case of it, and a shard
// holds an id once), so a slot of any bytes at all (of a torn write, a broken disk,
// ranges of other bytes) gives the task or nothing; nothing reads the shard whole.
// A change of the slot's layout takes another file name.
//
// Slots are written by strom's writes of a shard and by any read of a shard whole
// (the reading commands take no lock: a slot written from bytes a writer has
// replaced meanwhile names those bytes and so serves no one).

const (
	queueIndexSpans = "spans.bin"
	spanSlotSize    = sha256.Size + ShardSize*8 // the sum, the ranges
)

// taskSpan is a task's bytes in its shard file, [start, end); the zero span is
// no task.
type taskSpan struct{ start, end uint32 }

// spanSlot is one shard's slot: the sum of the bytes and the span of T-n at n
// modulo ShardSize.
type spanSlot struct {
	sum   [sha256.Size]byte
	spans [ShardSize]taskSpan
}

// encode returns the slot's bytes as spans.bin holds them: the sum, then each
// span's start and end, little-endian.
func (s *spanSlot) encode() []byte {
	b := make([]byte, spanSlotSize)
	copy(b, s.sum[:])
	for j, sp := range s.spans {
		binary.LittleEndian.PutUint32(b[sha256.Size+8*j:], sp.start)
		binary.LittleEndian.PutUint32(b[sha256.Size+8*j+4:], sp.end)
	}
	return b
}

// parseSpanSlot reads a slot's bytes; false when they are not a slot's size. Any
// ranges read: task checks the one it uses.
func parseSpanSlot(b []byte) (spanSlot, bool) {
	var s spanSlot
	if len(b) != spanSlotSize {
		return s, false
	}
	copy(s.sum[:], b)
	for j := range s.spans {
		s.spans[j] = taskSpan{binary.LittleEndian.Uint32(b[sha256.Size+8*j:]), binary.LittleEndian.Uint32(b[sha256.Size+8*j+4:])}
	}
	return s, true
}

// spansOf computes the slot of a shard's bytes, named s, whose tasks (as the
// bytes hold them, in their order) are tasks. Bytes whose layout it cannot follow
// (a key written with escapes, a file past 4 GiB) have no slot.
func spansOf(data []byte, s sum, tasks []Task) (spanSlot, bool) {
	var slot spanSlot
	ranges, ok := taskRanges(data)
	if !s.ok || !ok || len(ranges) != len(tasks) || len(data) > math.MaxUint32 {
		return slot, false
	}
	slot.sum = s.k
	for i, r := range ranges {
		slot.spans[idNumber(tasks[i].ID)%ShardSize] = taskSpan{uint32(r[0]), uint32(r[1])}
	}
	return slot, true
}

// task decodes task id from its range in data, the bytes the slot names; false
// when the slot has no range for it or the range is not the task's.
func (s *spanSlot) task(data []byte, id string) (Task, bool) {
	n := idNumber(id)
	if n <= 0 {
		return Task{}, false
	}
	sp := s.spans[n%ShardSize]
	if sp.end == 0 || int(sp.end) > len(data) || sp.start >= sp.end {
		return Task{}, false
	}
	var task Task
	if json.Unmarshal(data[sp.start:sp.end], &task) != nil || task.ID != id {
		return Task{}, false
	}
	return task, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// taskRanges returns the byte ranges of the tasks of a shard's valid bytes, in
// their order: the elements of the array of {"tasks": [ … ]}. Bytes of another
// layout give false.
func taskRanges(data []byte) ([][2]int, bool) {
	i := skipSpace(data, 0)
	const key = `"tasks"`
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if len(data)-i < len(key) || string(data[i:i+len(key)]) != key {
		return nil, false
	}
	i = skipSpace(data, i+len(key))
	if i >= len(data) || data[i] != ':' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	var out [][2]int
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		i++
	} else {
		for {
			end, ok := skipObject(data, i)
			if !ok {
				return nil, false
			}
			out = append(out, [2]int{i, end})
			i = skipSpace(data, end)
			if i >= len(data) {
				return nil, false
			}
			if data[i] == ']' {
				i++
				break
			}
			if data[i] != ',' {
				return nil, false
			}
			i = skipSpace(data, i+1)
		}
	}
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != '}' || skipSpace(data, i+1) != len(data) {
		return nil, false
	}
	return out, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// skipObject returns the end of the JSON object that starts at i.
func skipObject(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '{' {
		return 0, false
	}
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// spanSlotAt is the place of the slot of the shard that holds T-n in spans.bin.
func spanSlotAt(n int) int64 { return int64(n/ShardSize) * spanSlotSize }

// readSpanSlot reads the slot of the shard that holds T-n; false when there is
// none or it does not read as one.
func (t *Tree) readSpanSlot(n int) (spanSlot, bool) {
	f, err := os.Open(t.queueIndexPath(queueIndexSpans))
	if err != nil {
		return spanSlot{}, false
	}
	defer f.Close()
	b := make([]byte, spanSlotSize)
	if _, err := f.ReadAt(b, spanSlotAt(n)); err != nil {
		return spanSlot{}, false
	}
	return parseSpanSlot(b)
}

// noteSpans writes the slot of the shard rel from its bytes data, named s, and its
// tasks in their order, unless the slot is was (the one read; nil: none). Only an
// index's spans.bin is written to: without one, or on failure, the slot is left
// out (a read then decodes the shard whole).
func (t *Tree) noteSpans(rel string, data []byte, s sum, tasks []Task, was *spanSlot) {
	lo, _, ok := ShardOfFile(rel)
	if !ok {
		return
	}
	slot, ok := spansOf(data, s, tasks)
	if !ok || (was != nil && *was == slot) {
		return
	}
	_ = writeBytesAt(t.queueIndexPath(queueIndexSpans), spanSlotAt(lo), slot.encode())
}

// shardRead is a shard file read for some of its tasks: with a slot that names
// its bytes (and bytes the memo knows), each task is decoded from its range;
// without one, the shard is read whole.
type shardRead struct {
	t     *Tree
	rel   string
	data  []byte // nil: the file does not exist
	sum   sum
	slot  *spanSlot // the slot that names data, while its ranges hold
	tasks []Task    // the tasks read whole
}

// readShardFor reads the shard file rel for some of its tasks.
func (t *Tree) readShardFor(rel string) (*shardRead, error) {
	lo, _, ok := ShardOfFile(rel)
	if !ok {
		return nil, NotShard(t.rel(rel))
	}
	data, err := readOptional(t.Path(rel))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.rel(rel), err)
	}
	r := &shardRead{t: t, rel: rel, data: data}
	if data == nil {
		return r, nil
	}
	r.sum = shardSum(data)
	if slot, ok := t.readSpanSlot(lo); ok && r.sum.ok && slot.sum == r.sum.k && validated.knownSum(r.sum) {
		r.slot = &slot
		return r, nil
	}
	return r, r.readWhole(nil)
}

// readWhole decodes the whole shard as readShard does (validated unless the memo
// knows its bytes) and writes its slot when it is not was.
func (r *shardRead) readWhole(was *spanSlot) error {
	tasks, err := parseShardSum(r.t.rel(r.rel), r.rel, r.data, r.sum, true)
	if err != nil {
		return err
	}
	r.tasks, r.slot = tasks, nil
	r.t.noteSpans(r.rel, r.data, r.sum, tasks, was)
	return nil
}

// task returns task id of the shard; false when the shard does not hold it. A
// range that is not the task's reads the shard whole.
func (r *shardRead) task(id string) (Task, bool, error) {
	if r.slot != nil {
		if task, ok := r.slot.task(r.data, id); ok {
			return task, true, nil
		}
		if err := r.readWhole(r.slot); err != nil {
			return Task{}, false, err
		}
	}
	for i := range r.tasks {
		if r.tasks[i].ID == id {
			return r.tasks[i], true, nil
		}
	}
	return Task{}, false, nil
}
