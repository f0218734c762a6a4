package statefiles

// The queue index's state file (queueindex.go), read without reflection:
//
//	strom queue index 5 <the queue's schemas' sum>
//	at <ns>
//	queue <inode> <size> <mtime> <ctime> <tail> <sum>
//	folder <inode> <size> <mtime> <ctime>
//	tasks <next id> <total> <open> <started> <waiting> <done> <parked>
//	shards <n>
//	<n records of 72 bytes, by first id: the first id, inode, size, mtime and
//	ctime, 8 bytes each, little-endian; the SHA-256 of the bytes indexed>
//
// "at" is folderClock's reading before the stamps were taken (queuefresh.go
// compares the times with it); queue is queue.json's stamp and the SHA-256 of the
// bytes indexed ("-" where they are not known: the next check within
// folderSettled of the stamp builds the index again); folder the stamp of
// .strom/tasks/ when its shards were listed, zeros where it had changed within
// folderSettled of the listing (or its times are whole seconds); each shard's
// record is its stamp (no tail) and the SHA-256 of its bytes as indexed, of a
// fixed size (read at the cost of a copy: every check reads two hundred at
// 20,000 tasks), after the text and up to the file's end. The
// order's entries and the ids' places are in order.bin and ids.bin. Anything
// else (another version, a garbled line, a file cut short) is no state, and the
// index is built again.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
)

// shardStamp is one shard as the index covers it.
type shardStamp struct {
	Lo    int               // the shard's first id: 1, 100, 200, …
	Stamp stamp             // no tail
	Sum   [sha256.Size]byte // of the bytes indexed; zeros: none
}

// shardRecord is the size of a shard's record in the state file.
const shardRecord = 5*8 + sha256.Size

type queueState struct {
	At    int64 // folderClock's reading before the stamps were taken
	Queue stamp // queue.json's
	// QueueSum is the SHA-256 of queue.json's bytes as indexed; zeros: not known.
	// A check compares it where Queue had changed within folderSettled of At.
	QueueSum [sha256.Size]byte
	Folder   stamp // the tasks' folder's when it was listed; zero: the next check lists it
	NextID   int
	Total    int
	Counts   map[State]int
	Shards   []shardStamp // by Lo
}

func queueStateHeader() string {
	return "strom queue index " + strconv.Itoa(queueIndexVersion) + " " + queueSchemaSum()
}

// encode is the whole state file.
func (st queueState) encode() []byte {
	b := make([]byte, 0, 400+shardRecord*len(st.Shards))
	b = append(b, queueStateHeader()...)
	b = append(b, "\nat "...)
	b = strconv.AppendInt(b, st.At, 10)
	b = append(b, "\nqueue "...)
	b = appendStamp(b, st.Queue)
	b = append(b, ' ')
	b = appendSum(b, st.Queue.Tail)
	b = append(b, ' ')
	if st.QueueSum == ([sha256.Size]byte{}) {
		b = append(b, '-')
	} else {
		b = hex.AppendEncode(b, st.QueueSum[:])
	}
	b = append(b, "\nfolder "...)
	b = appendStamp(b, st.Folder)
	b = append(b, "\ntasks "...)
	b = strconv.AppendInt(b, int64(st.NextID), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(st.Total), 10)
	for _, s := range States {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(st.Counts[s]), 10)
	}
	b = append(b, "\nshards "...)
	b = strconv.AppendInt(b, int64(len(st.Shards)), 10)
	b = append(b, '\n')
	for _, s := range st.Shards {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Lo))
		b = binary.LittleEndian.AppendUint64(b, s.Stamp.Ino)
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Stamp.Size))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Stamp.MTime))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Stamp.CTime))
		b = append(b, s.Sum[:]...)
	}
	return b
}

// parseQueueState reads a state file (the layout above).
func parseQueueState(data []byte) (st queueState, ok bool) {
	r := &textLines{rest: string(data)}
	next := r.next
	var f [8]string
	line := func(key string, n int) bool {
		l, ok := next()
		return ok && splitFields(l, f[:n]) && f[0] == key
	}
	if l, ok := next(); !ok || l != queueStateHeader() {
		return st, false
	}
	if !line("at", 2) {
		return st, false
	}
	if st.At, ok = parseInt(f[1]); !ok {
		return st, false
	}
	if !line("queue", 7) {
		return st, false
	}
	if st.Queue, ok = parseStamp(f[1:5], f[5], true); !ok {
		return st, false
	}
	if f[6] != "-" {
		if !isSum(f[6]) {
			return st, false
		}
		if _, err := hex.Decode(st.QueueSum[:], []byte(f[6])); err != nil || st.QueueSum == ([sha256.Size]byte{}) {
			return st, false
		}
	}
	if !line("folder", 5) {
		return st, false
	}
	if st.Folder, ok = parseStamp(f[1:5], "", false); !ok {
		return st, false
	}
	if !line("tasks", 8) {
		return st, false
	}
	var nums [7]int
	for i := range nums {
		n, ok := parseUint(f[i+1])
		if !ok || n > 1<<31 {
			return st, false
		}
		nums[i] = int(n)
	}
	st.NextID, st.Total = nums[0], nums[1]
	st.Counts = make(map[State]int, len(States))
	for i, s := range States {
		st.Counts[s] = nums[2+i]
	}
	if !line("shards", 2) {
		return st, false
	}
	n, ok := parseUint(f[1])
	if !ok || n != uint64(len(r.rest)/shardRecord) || len(r.rest)%shardRecord != 0 {
		return st, false
	}
	raw := data[len(data)-len(r.rest):]
	st.Shards = make([]shardStamp, n)
	for i := range st.Shards {
		r := raw[i*shardRecord:]
		lo := binary.LittleEndian.Uint64(r[:8])
		if lo == 0 || lo > 1<<31 || shardFirst(int(lo)) != int(lo) || (i > 0 && int(lo) <= st.Shards[i-1].Lo) {
			return st, false
		}
		s := &st.Shards[i]
		s.Lo = int(lo)
		s.Stamp.Ino = binary.LittleEndian.Uint64(r[8:16])
		s.Stamp.Size = int64(binary.LittleEndian.Uint64(r[16:24]))
		s.Stamp.MTime = int64(binary.LittleEndian.Uint64(r[24:32]))
		s.Stamp.CTime = int64(binary.LittleEndian.Uint64(r[32:40]))
		copy(s.Sum[:], r[40:shardRecord])
	}
	return st, true
}

// shardFirst is the first id of the shard that holds T-n.
func shardFirst(n int) int {
	lo, _ := shardRange(n)
	return lo
}
