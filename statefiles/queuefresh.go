package statefiles

// Whether the queue's index covers the files as they stand, and bringing it up
// to them when it does not.
//
// The check stamps queue.json, the tasks' folder and every shard, as the
// records' index stamps its segments (stampDir: one stat by bare name relative
// to the open folder). The folder is listed only when its stamp is not the one
// the state recorded (a file created, removed or renamed there changes it; one
// recorded only when it had not changed for folderSettled). A shard is the one
// indexed when its inode, size and times are the ones recorded and, unless it
// had not changed for folderSettled when they were (two writes within one tick
// of the file system's clock, or one second where times are whole seconds, keep
// them), the SHA-256 of its bytes is the one recorded: a shard is edited
// anywhere, not appended, so the tail alone would not tell.
//
// A shard that changed (edited in place or replaced, by hand, a checkout, a
// pull), appeared or went is read again (validated unless the memo knows its
// bytes) and its tasks' entries alone are written anew: their states, the counts
// counted again from the entries. What spans files is checked for its range: the
// ids the order has there are the ids the shard holds. A queue.json that changed
// (its stamp, or its bytes where the stamp was recorded within folderSettled of
// its last change: strom writes it by a rename, a person's editor may write it in
// place), or a shard that does not fit the order, builds the index again from
// every file (which says what is wrong).

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

// queueFiles is what a check found of the files, against a state.
type queueFiles struct {
	at      int64 // folderClock's reading before the first stat
	queue   stamp
	qsum    [sha256.Size]byte // queue.json's bytes' sum, read where its stamp did not tell
	folder  stamp             // settled, or zero
	shards  []shardStamp      // as they stand, by Lo; a Sum only where hashed is set
	hashed  bool              // a shard's bytes were hashed: its stamp alone did not tell
	same    bool              // queue.json is the state's
	changed []int             // the Lo of each shard that is not the state's (new, gone, changed)
}

// shardName is the first id of the shard whose file name is name; false for a
// name that is no shard's.
func shardName(name string) (int, bool) {
	lo, _, ok := ShardOfFile(TasksDir + "/" + name)
	return lo, ok
}

// shardBase is the file name of the shard whose first id is lo: "T-100-199.json".
func shardBase(lo int) string {
	_, hi := shardRange(lo)
	var buf [48]byte
	b := append(buf[:0], "T-"...)
	b = strconv.AppendInt(b, int64(lo), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(hi), 10)
	return string(append(b, ".json"...))
}

// checkQueueFiles stamps the files and compares them with st; all says whether
// to go on past the first difference (to bring the index up to date) or to stop
// there (a freshness check).
func (t *Tree) checkQueueFiles(st queueState, all bool) (queueFiles, error) {
	cur := queueFiles{at: folderClock().UnixNano()}
	qs, err := statStamp(t.Path(QueueFile))
	if err != nil {
		return cur, fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	cur.queue, cur.same = qs, st.Queue.same(qs)
	if cur.same && !st.Queue.settledAt(st.At) {
		// Changed within folderSettled of the stamp: another write in the same
		// tick keeps its times, so the bytes tell.
		if cur.qsum, err = fileSum(t.Path(QueueFile)); err != nil {
			return cur, fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
		}
		cur.same = st.QueueSum != ([sha256.Size]byte{}) && cur.qsum == st.QueueSum
	}
	if !cur.same && !all {
		return cur, nil
	}
	d, err := openStampDir(t.Path(TasksDir))
	if errors.Is(err, os.ErrNotExist) {
		cur.diff(st, nil, all)
		return cur, nil
	}
	if err != nil {
		return cur, fmt.Errorf("read %s: %w", t.rel(TasksDir), err)
	}
	defer d.close()
	recorded := make([]int, len(st.Shards))
	for i, s := range st.Shards {
		recorded[i] = s.Lo
	}
	nums, stamps, folder, err := d.numberedStamps(st.Folder, recorded, shardName, shardBase, false, cur.at)
	if err != nil {
		return cur, fmt.Errorf("read %s: %w", t.rel(TasksDir), err)
	}
	cur.folder = folder
	cur.shards = make([]shardStamp, len(nums))
	for i, lo := range nums {
		cur.shards[i] = shardStamp{Lo: lo, Stamp: stamps[i]}
	}
	if err := cur.diff(st, d, all); err != nil {
		return cur, fmt.Errorf("read %s: %w", t.rel(TasksDir), err)
	}
	return cur, nil
}

// diff fills in changed: the shards of cur and st that are not the same, reading
// the sum of those whose stamp alone does not tell (d is their folder).
func (cur *queueFiles) diff(st queueState, d *stampDir, all bool) error {
	i, j := 0, 0
	for i < len(cur.shards) || j < len(st.Shards) {
		switch {
		case j == len(st.Shards) || (i < len(cur.shards) && cur.shards[i].Lo < st.Shards[j].Lo):
			cur.changed = append(cur.changed, cur.shards[i].Lo) // new
			i++
		case i == len(cur.shards) || st.Shards[j].Lo < cur.shards[i].Lo:
			cur.changed = append(cur.changed, st.Shards[j].Lo) // gone
			j++
		default:
			same, hashed, err := st.Shards[j].holds(&cur.shards[i], st.At, d)
			if err != nil {
				return err
			}
			cur.hashed = cur.hashed || hashed
			if !same {
				cur.changed = append(cur.changed, cur.shards[i].Lo)
			}
			i++
			j++
		}
		if len(cur.changed) > 0 && !all {
			return nil
		}
	}
	return nil
}

// holds reports whether the shard as it stands (cur, stamped in d) is the one s
// recorded at the time at; its sum is read into cur (hashed) when the stamp
// alone does not tell.
func (s shardStamp) holds(cur *shardStamp, at int64, d *stampDir) (same, hashed bool, err error) {
	r, c := s.Stamp, cur.Stamp
	if r.Ino != c.Ino || r.Size != c.Size || r.MTime != c.MTime || r.CTime != c.CTime {
		return false, false, nil
	}
	if r.settledAt(at) {
		return true, false, nil
	}
	if cur.Sum, err = fileSum(d.path + "/" + shardBase(cur.Lo)); err != nil {
		return false, true, err
	}
	return cur.Sum == s.Sum, true, nil
}

// fileSum is the SHA-256 of the file at path; a missing file's is that of no
// bytes.
func fileSum(path string) ([sha256.Size]byte, error) {
	var out [sha256.Size]byte
	f, err := openPlain(path)
	if errors.Is(err, os.ErrNotExist) {
		return sha256.Sum256(nil), nil
	}
	if err != nil {
		return out, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return out, err
	}
	h.Sum(out[:0])
	return out, nil
}

// settles reports whether the check of the fresh files cur found stamps that
// st does not trust by a stat alone and that are settled now: the folder's, or
// queue.json's or a shard's whose sum it read.
func (cur queueFiles) settles(st queueState) bool {
	if cur.folder.Ino != 0 && !sameFolder(cur.folder, st.Folder) {
		return true
	}
	if cur.qsum != ([sha256.Size]byte{}) && cur.queue.settledAt(cur.at) {
		return true
	}
	if !cur.hashed {
		return false
	}
	for _, s := range cur.shards {
		if s.Sum != ([sha256.Size]byte{}) && s.Stamp.settledAt(cur.at) {
			return true
		}
	}
	return false
}

// fresh reports whether the files are the ones st covers.
func (cur queueFiles) fresh() bool { return cur.same && len(cur.changed) == 0 }

// stamped returns the state's shard lines for the shards read: each one's stamp
// as cur has it, and the sum of the bytes read.
func (cur queueFiles) stamped(data map[string][]byte) []shardStamp {
	at := make(map[int]stamp, len(cur.shards))
	for _, s := range cur.shards {
		at[s.Lo] = s.Stamp
	}
	out := make([]shardStamp, 0, len(data))
	for rel, b := range data {
		lo, _, ok := ShardOfFile(rel)
		if !ok || b == nil {
			continue
		}
		out = append(out, shardStamp{Lo: lo, Stamp: at[lo], Sum: sha256.Sum256(b)})
	}
	slices.SortFunc(out, func(a, b shardStamp) int { return a.Lo - b.Lo })
	return out
}

// updateQueueIndexLocked brings the index up to the files as they stand:
// nothing when it covers them, the entries of the shards that changed when only
// shards did, the whole index otherwise. Hold the lock.
func (t *Tree) updateQueueIndexLocked() error {
	st, ok := t.readQueueState()
	if !ok {
		return t.indexQueueLocked()
	}
	cur, err := t.checkQueueFiles(st, true)
	if err != nil {
		return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
	}
	if !cur.same {
		return t.indexQueueLocked()
	}
	if len(cur.changed) == 0 && sameFolder(cur.folder, st.Folder) {
		return nil
	}
	order, err := ReadFile(t.queueIndexPath(queueIndexOrder))
	if err != nil || len(order) != orderEntry*st.Total {
		return t.indexQueueLocked()
	}
	ids, err := ReadFile(t.queueIndexPath(queueIndexIDs))
	if err != nil {
		return t.indexQueueLocked()
	}
	read := map[string][]byte{}
	for _, lo := range cur.changed {
		rel := shardOf(lo)
		data, err := readOptional(t.Path(rel))
		if err != nil {
			return readError(t.rel(rel), err)
		}
		read[rel] = data
		var tasks []Task
		if data != nil {
			if tasks, err = ParseShard(t.rel(rel), rel, data); err != nil {
				return err
			}
		}
		if !setShardStates(order, ids, lo, tasks) {
			return t.indexQueueLocked() // the shard does not fit the order: said there
		}
	}
	next := st
	next.At, next.Queue, next.Folder = cur.at, cur.queue, cur.folder
	next.Counts = countEntries(order)
	byLo := map[int]shardStamp{}
	for _, s := range st.Shards {
		byLo[s.Lo] = s
	}
	for _, lo := range cur.changed {
		delete(byLo, lo)
	}
	for _, s := range cur.stamped(read) {
		byLo[s.Lo] = s
	}
	next.Shards = next.Shards[:0:0]
	for _, s := range cur.shards {
		if r, ok := byLo[s.Lo]; ok {
			next.Shards = append(next.Shards, r)
		}
	}
	if len(cur.changed) > 0 {
		if err := writeBytesAt(t.queueIndexPath(queueIndexOrder), 0, order); err != nil {
			return fmt.Errorf("index %s: %w", t.rel(QueueFile), err)
		}
	}
	return t.writeQueueState(next)
}

// setShardStates writes into order the states of tasks, all the tasks of the
// shard whose first id is lo; false when they are not the ids the order has in
// that range.
func setShardStates(order, ids []byte, lo int, tasks []Task) bool {
	_, hi := shardRange(lo)
	inOrder := 0
	for n := lo; n <= hi && 4*n+4 <= len(ids); n++ {
		p := int(binary.LittleEndian.Uint32(ids[4*n:]))
		if p != 0 && p*orderEntry <= len(order) && int(binary.LittleEndian.Uint32(order[(p-1)*orderEntry:])) == n {
			inOrder++
		}
	}
	if inOrder != len(tasks) {
		return false
	}
	for _, task := range tasks {
		n := idNumber(task.ID)
		if 4*n+4 > len(ids) {
			return false
		}
		p := int(binary.LittleEndian.Uint32(ids[4*n:]))
		if p == 0 || p*orderEntry > len(order) || int(binary.LittleEndian.Uint32(order[(p-1)*orderEntry:])) != n {
			return false
		}
		binary.LittleEndian.PutUint32(order[(p-1)*orderEntry+4:], stateCodes[task.State])
	}
	return true
}

// countEntries counts the tasks of each state in the order's entries.
func countEntries(order []byte) map[State]int {
	var by [len(codeStates)]int
	for i := 0; i+orderEntry <= len(order); i += orderEntry {
		if c := binary.LittleEndian.Uint32(order[i+4:]); c < uint32(len(by)) {
			by[c]++
		}
	}
	out := make(map[State]int, len(States))
	for _, s := range States {
		out[s] = by[stateCodes[s]]
	}
	return out
}
