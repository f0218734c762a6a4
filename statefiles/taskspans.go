package statefiles

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sync/atomic"
)

// The spans of the tasks: where each task lies in its shard file, so that a
// command that needs one task (strom task, strom record, a page of strom task
// list) decodes that task's bytes and not the file's hundred. They belong to the
// queue's index, in .strom/run/queue/slots.bin (never committed), one slot of
// fixed size a shard (T-1-99's first, T-100-199's second, …): the memo's name of
// the shard's bytes they were computed from (shardSum, the sum the memo of
// validated contents keeps), the stamp of the file those bytes were read from,
// each task's byte range by id, and a CRC-32 of the slot.
//
// A slot serves only the bytes it names. A shard changed in any byte (an edit by
// hand, a pull, a merge, with its size or without) has another name, so it is read
// whole as before (validated unless the memo knows its bytes) and its slot written
// again; a slot never vouches for bytes, the memo does, as for a read of the whole
// shard. A task read from its range is checked besides: the range lies in the file
// and decodes, as one JSON value, to a task of the id asked. In bytes the memo
// knows valid only a task's own object does (the schemas allow no other key "id",
// nor another case of it, and a shard holds an id once), so a slot of any bytes at
// all (ranges of other bytes) gives the task or nothing; nothing reads the shard
// whole. A slot whose CRC-32 fails (a torn write, a broken disk) is no slot.
//
// The stamp spares the hash of the bytes (a third of a strom task on a big
// research). It is kept only when it had settled as the bytes were read
// (folderSettled: no change for a second before): a file whose inode, size,
// modification and change times are still those holds the bytes named, since any
// later write moves its change time, which no tool can set back. A file whose
// stamp differs, or a slot without a settled stamp, is hashed as before, and a
// read that finds the bytes named and their stamp settled by now keeps the stamp.
// A change of the slot's layout takes another file name.
//
// Slots are written by strom's writes of a shard (without a stamp: the file is
// new) and by any read of a shard whole (the reading commands take no lock: a slot
// written from bytes a writer has replaced meanwhile names those bytes and so
// serves no one, and their stamp is not the new file's).

const (
	queueIndexSpans = "slots.bin"
	slotStampSize   = 4 * 8                                         // inode, size, modification and change times
	spanSlotSize    = sha256.Size + slotStampSize + ShardSize*8 + 4 // the sum, the stamp, the ranges, the CRC-32
)

// taskSpan is a task's bytes in its shard file, [start, end); the zero span is
// no task.
type taskSpan struct{ start, end uint32 }

// spanSlot is one shard's slot: the sum of the bytes, the settled stamp of the
// file they were read from (zero: none) and the span of T-n at n modulo
// ShardSize.
type spanSlot struct {
	sum   [sha256.Size]byte
	stamp stamp // Ino, Size, MTime and CTime only
	spans [ShardSize]taskSpan
}

// encode returns the slot's bytes as slots.bin holds them, little-endian: the
// sum, the stamp's inode, size and two times, each span's start and end, and
// the CRC-32 (IEEE) of all before it.
func (s *spanSlot) encode() []byte {
	b := make([]byte, spanSlotSize)
	copy(b, s.sum[:])
	at := sha256.Size
	for _, v := range [4]uint64{s.stamp.Ino, uint64(s.stamp.Size), uint64(s.stamp.MTime), uint64(s.stamp.CTime)} {
		binary.LittleEndian.PutUint64(b[at:], v)
		at += 8
	}
	for _, sp := range s.spans {
		binary.LittleEndian.PutUint32(b[at:], sp.start)
		binary.LittleEndian.PutUint32(b[at+4:], sp.end)
		at += 8
	}
	binary.LittleEndian.PutUint32(b[at:], crc32.ChecksumIEEE(b[:at]))
	return b
}

// parseSpanSlot reads a slot's bytes; false when they are not a slot's size or
// their CRC-32 fails. Any ranges read: task checks the one it uses.
func parseSpanSlot(b []byte) (spanSlot, bool) {
	var s spanSlot
	if len(b) != spanSlotSize || crc32.ChecksumIEEE(b[:spanSlotSize-4]) != binary.LittleEndian.Uint32(b[spanSlotSize-4:]) {
		return s, false
	}
	copy(s.sum[:], b)
	at := sha256.Size
	var v [4]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(b[at:])
		at += 8
	}
	s.stamp = stamp{Ino: v[0], Size: int64(v[1]), MTime: int64(v[2]), CTime: int64(v[3])}
	for j := range s.spans {
		s.spans[j] = taskSpan{binary.LittleEndian.Uint32(b[at:]), binary.LittleEndian.Uint32(b[at+4:])}
		at += 8
	}
	return s, true
}

// vouches reports whether the slot's stamp says the file stamped cur holds the
// bytes the slot names: a stamp kept, and cur's inode, size and times the same.
func (s *spanSlot) vouches(cur stamp) bool {
	r := s.stamp
	return r.CTime != 0 && r.Ino == cur.Ino && r.Size == cur.Size && r.MTime == cur.MTime && r.CTime == cur.CTime
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
	if unmarshalTask(data[sp.start:sp.end], &task) != nil || task.ID != id {
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

// spanSlotAt is the place of the slot of the shard that holds T-n in slots.bin.
func spanSlotAt(n int) int64 { return int64(n/ShardSize) * spanSlotSize }

// readSpanSlot reads the slot of the shard that holds T-n; false when there is
// none or it does not read as one.
func (t *Tree) readSpanSlot(n int) (spanSlot, bool) {
	f, err := OpenRead(t.queueIndexPath(queueIndexSpans))
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

// noteSpans writes the slot of the shard rel from its bytes data, named s, its
// tasks in their order and the settled stamp of the file read (zero: none),
// unless the slot is was (the one read; nil: none). Only an index's slots.bin is
// written to: without one, or on failure, the slot is left out (a read then
// decodes the shard whole).
func (t *Tree) noteSpans(rel string, data []byte, s sum, tasks []Task, settled stamp, was *spanSlot) {
	lo, _, ok := ShardOfFile(rel)
	if !ok {
		return
	}
	slot, ok := spansOf(data, s, tasks)
	if !ok {
		return
	}
	slot.stamp = settled
	if was == nil || *was != slot {
		t.writeSpanSlot(lo, &slot)
	}
}

// writeSpanSlot writes the slot of the shard that holds T-n.
func (t *Tree) writeSpanSlot(n int, slot *spanSlot) {
	_ = writeBytesAt(t.queueIndexPath(queueIndexSpans), spanSlotAt(n), slot.encode())
}

// shardRead is a shard file read for some of its tasks: with a slot that names
// its bytes (and bytes the memo knows), each task is decoded from its range;
// without one, the shard is read whole.
type shardRead struct {
	t       *Tree
	rel     string
	data    []byte // nil: the file does not exist
	sum     sum
	settled stamp     // the file's stamp as read, when settled by then
	slot    *spanSlot // the slot that names data, while its ranges hold
	tasks   []Task    // the tasks read whole
}

// readShardFor reads the shard file rel for some of its tasks.
func (t *Tree) readShardFor(rel string) (*shardRead, error) {
	lo, _, ok := ShardOfFile(rel)
	if !ok {
		return nil, NotShard(t.rel(rel))
	}
	at := folderClock().UnixNano()
	data, cur, err := readStamped(t.Path(rel))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.rel(rel), err)
	}
	r := &shardRead{t: t, rel: rel, data: data}
	if data == nil {
		return r, nil
	}
	if cur.settledAt(at) {
		r.settled = cur
	}
	slot, haveSlot := t.readSpanSlot(lo)
	if haveSlot && slot.vouches(cur) {
		r.sum = sum{k: slot.sum, ok: true}
	} else {
		r.sum = shardSum(data)
		hashedShards.Add(1)
	}
	if haveSlot && r.sum.ok && slot.sum == r.sum.k && validated.knownSum(r.sum) {
		if slot.stamp != r.settled {
			// The bytes named, hashed: their stamp, settled by now, spares the
			// next read the hash (or a stamp no longer the file's goes).
			slot.stamp = r.settled
			t.writeSpanSlot(lo, &slot)
		}
		r.slot = &slot
		return r, nil
	}
	return r, r.readWhole(nil)
}

// hashedShards counts the shards readShardFor hashed, for the tests that show a
// settled stamp spares the hash.
var hashedShards atomic.Int64

// readStamped reads the file at path and its stamp (inode, size, times), taken
// after the read: a write during the read moves the times. A missing file has nil
// bytes.
func readStamped(path string) ([]byte, stamp, error) {
	f, err := openPlain(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, stamp{}, nil
	}
	if err != nil {
		return nil, stamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, stamp{}, err
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return nil, stamp{}, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if fi, err = f.Stat(); err != nil {
		return nil, stamp{}, err
	}
	return data, stampOfInfo(fi, fi.Size()), nil
}

// readWhole decodes the whole shard as readShard does (validated unless the memo
// knows its bytes) and writes its slot when it is not was.
func (r *shardRead) readWhole(was *spanSlot) error {
	tasks, err := parseShardSum(r.t.rel(r.rel), r.rel, r.data, r.sum, true)
	if err != nil {
		return err
	}
	r.tasks, r.slot = tasks, nil
	r.t.noteSpans(r.rel, r.data, r.sum, tasks, r.settled, was)
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
