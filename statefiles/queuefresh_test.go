package statefiles

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// editInPlace rewrites the first match of old in the file at path with new, of
// the same length, where it lies (as an editor that saves in place, or
// os.pwrite): the file keeps its inode and its size. With keepTime its
// modification time is set back as it was, so only the change time tells.
func editInPlace(t *testing.T, path, old, new string, keepTime bool) {
	t.Helper()
	if len(old) != len(new) {
		t.Fatal("an edit in place keeps the size")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(old))
	if at < 0 {
		t.Fatalf("%q is not in %s", old, path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(new), int64(at)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if keepTime {
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	if now, _ := os.Stat(path); now.Size() != fi.Size() || !os.SameFile(fi, now) || (keepTime && !now.ModTime().Equal(fi.ModTime())) {
		t.Fatal("the edit did not keep the file, its size and its time")
	}
}

// queueAnswers is what the commands that read the index say: the counts of
// `strom status`, the done tasks of `strom task list --state done`, and the
// task `strom run` takes next.
func queueAnswers(t *testing.T, tr *Tree) string {
	t.Helper()
	ctx := t.Context()
	sum, err := tr.QueueSummary(ctx)
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	done, n, err := tr.QueuePage(ctx, Done, 0, 100)
	if err != nil {
		t.Fatalf("done: %v", err)
	}
	next := "none"
	if err := tr.EachTaskIn(ctx, []State{Open, Started}, func(task Task) bool { next = task.ID; return false }); err != nil {
		t.Fatalf("next: %v", err)
	}
	var d []string
	for _, task := range done {
		d = append(d, task.ID)
	}
	return strings.Join([]string{
		"open=" + strconv.Itoa(sum.Counts[Open]), "done=" + strconv.Itoa(sum.Counts[Done]) + "/" + strconv.Itoa(n),
		"[" + strings.Join(d, ",") + "]", "next=" + next,
	}, " ")
}

// TestQueueIndexNoticesEveryShard: a shard edited in place (its size kept, and
// its modification time set back too), replaced, added or removed by hand is
// noticed by the counts, the pages of a state and the run's choice of the next
// task, whatever the folder's stamp says.
func TestQueueIndexNoticesEveryShard(t *testing.T) {
	t.Parallel()
	noticesEveryShard(t)
}

// TestQueueIndexNoticesEveryShardSettled is TestQueueIndexNoticesEveryShard with
// the stamps of the folder and the shards recorded as settled (folderClock moved
// past folderSettled): the stats alone tell each change. Not parallel.
func TestQueueIndexNoticesEveryShardSettled(t *testing.T) {
	settled(t)
	tr := noticesEveryShard(t)
	if st, ok := tr.readQueueState(); !ok || st.Folder.Ino == 0 {
		t.Errorf("no folder stamp recorded: %+v", st.Folder)
	}
}

func noticesEveryShard(t *testing.T) *Tree {
	tr := newTree(t)
	ctx := t.Context()
	addTasks(t, tr, 150)
	if _, err := tr.UpdateTask(ctx, "T-2", func(task *Task) error { task.State = Done; return nil }); err != nil {
		t.Fatal(err)
	}
	check := func(when, want string) {
		t.Helper()
		if got := queueAnswers(t, tr); got != want {
			t.Errorf("%s: %s, want %s", when, got, want)
		}
	}
	check("strom's writes", "open=149 done=1/1 [T-2] next=T-1")
	shard := tr.Path(ShardFile("T-1"))
	// T-1 done by hand, saved in place.
	editInPlace(t, shard, `"state": "open"`, `"state": "done"`, false)
	check("T-1 edited in place", "open=148 done=2/2 [T-1,T-2] next=T-3")
	// T-2 opened again, its time set back: only the change time tells.
	editInPlace(t, shard, `"state": "done"`, `"state": "open"`, true)
	check("T-2 edited in place, the time kept", "open=149 done=1/1 [T-2] next=T-1")
	// Which one was that: the first "done" is T-1's.
	check("again", "open=149 done=1/1 [T-2] next=T-1")
	// The other shard, replaced as an editor or a checkout does.
	data, _ := os.ReadFile(tr.Path(ShardFile("T-120")))
	if err := WriteAtomic(tr.Path(ShardFile("T-120")), bytes.Replace(data, []byte(`"state": "open"`), []byte(`"state": "done"`), 2), 0o644); err != nil {
		t.Fatal(err)
	}
	check("T-100 and T-101 done in a replaced shard", "open=147 done=3/3 [T-2,T-100,T-101] next=T-1")
	// A shard that does not fit the order, added: noticed. Its task is past
	// next_id, as a half-written add leaves it, so it reads as added.
	stray := tr.Path(ShardFile("T-250"))
	if err := os.WriteFile(stray, mustShard(t, Task{ID: "T-250", Title: "stray", State: Open, Created: t0, Updated: t0}), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := tr.QueueSummary(ctx); err != nil || sum.NextID != 251 || sum.Counts[Open] != 148 {
		t.Errorf("a shard added by hand: %+v, %v; want T-250 read as added (next T-251, 148 open)", sum, err)
	}
	os.Remove(stray)
	check("the stray shard removed", "open=147 done=3/3 [T-2,T-100,T-101] next=T-1")
	keep, _ := os.ReadFile(tr.Path(ShardFile("T-120")))
	os.Remove(tr.Path(ShardFile("T-120")))
	var se *SchemaError
	if _, err := tr.QueueSummary(ctx); !errors.As(err, &se) || !strings.Contains(se.Rule, "is not in its file") {
		t.Errorf("a shard removed by hand: %v, want a SchemaError", err)
	}
	if err := os.WriteFile(tr.Path(ShardFile("T-120")), keep, 0o644); err != nil {
		t.Fatal(err)
	}
	check("the shard back", "open=147 done=3/3 [T-2,T-100,T-101] next=T-1")
	// strom's own writes keep the index fresh.
	if _, err := tr.UpdateTask(ctx, "T-1", func(task *Task) error { task.State, task.Session = Started, "20261201T100000Z-abcd"; return nil }); err != nil {
		t.Fatal(err)
	}
	if ix, fresh := tr.openFreshQueueIndex(); !fresh {
		t.Error("the index is stale after strom's own write")
	} else {
		ix.Close()
	}
	check("T-1 started", "open=146 done=3/3 [T-2,T-100,T-101] next=T-1")
	return tr
}

// TestQueueIndexUpdatesOnlyTheShardThatChanged: a shard edited in place is the
// one read again; the index of the others is kept, not built again.
func TestQueueIndexUpdatesOnlyTheShardThatChanged(t *testing.T) {
	tr := newTree(t)
	ctx := t.Context()
	addTasks(t, tr, 350)
	if _, err := tr.QueueSummary(ctx); err != nil {
		t.Fatal(err)
	}
	editInPlace(t, tr.Path(ShardFile("T-120")), `"state": "open"`, `"state": "done"`, true)
	before := wholeShards.Load()
	sum, err := tr.QueueSummary(ctx)
	if err != nil || sum.Counts[Done] != 1 || sum.Counts[Open] != 349 {
		t.Fatalf("summary = %+v, %v", sum, err)
	}
	if n := wholeShards.Load() - before; n != 1 {
		t.Errorf("an edit of one shard read %d shards whole", n)
	}
}

// TestQueueFolderListedAfterAChange: a state written within folderSettled of a
// change to the tasks' folder records no folder stamp, so a shard added or
// removed in the same tick of the file system's clock (which keeps the folder's
// times) is seen by the listing.
func TestQueueFolderListedAfterAChange(t *testing.T) {
	tr := newTree(t)
	addTasks(t, tr, 3)
	fi, err := os.Stat(tr.Path(TasksDir))
	if err != nil {
		t.Fatal(err)
	}
	// The clock half a second past the folder's change: within folderSettled.
	folderClock = func() time.Time { return fi.ModTime().Add(folderSettled / 2) }
	t.Cleanup(func() { folderClock = time.Now })
	if _, err := tr.QueueSummary(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, ok := tr.readQueueState()
	if !ok || st.Folder != (stamp{}) {
		t.Fatalf("a folder changed a moment ago was recorded: %+v", st.Folder)
	}
	// A shard added: were the folder's stamp kept, nothing would list it.
	stray := tr.Path(ShardFile("T-150"))
	if err := os.WriteFile(stray, mustShard(t, Task{ID: "T-150", Title: "stray", State: Open, Created: t0, Updated: t0}), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := tr.QueueSummary(t.Context()); err != nil || sum.NextID != 151 {
		t.Errorf("a shard added in the folder's tick: %+v, %v; want T-150 read as added", sum, err)
	}
	// The same with the folder's stamp recorded after the shard was added (as two
	// changes in one tick leave it): the shard is not seen, the folder not listed.
	os.Remove(stray)
	folderClock = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := tr.QueueSummary(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st, ok = tr.readQueueState(); !ok {
		t.Fatal("no state")
	}
	os.WriteFile(stray, mustShard(t, Task{ID: "T-150", Title: "stray", State: Open, Created: t0, Updated: t0}), 0o644)
	d, err := openStampDir(tr.Path(TasksDir))
	if err != nil {
		t.Fatal(err)
	}
	st.Folder, _ = d.own()
	d.close()
	if err := tr.writeQueueState(st); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.QueueSummary(t.Context()); err != nil {
		t.Errorf("the folder was listed though its stamp was the state's: %v", err)
	}
}

// TestQueueJSONInItsTick: queue.json whose stamp was recorded within
// folderSettled of its change is the one indexed only when its bytes' sum is the
// one recorded (a person's editor writing it in place again in the same tick of
// the file system's clock keeps its stamp); past that, the stat decides. An
// index built from the files records the sum of the bytes it read.
func TestQueueJSONInItsTick(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	addTasks(t, tr, 3)
	if _, err := tr.QueueSummary(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, ok := tr.readQueueState()
	if !ok {
		t.Fatal("no state")
	}
	data, err := os.ReadFile(tr.Path(QueueFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.QueueSum != sha256.Sum256(data) {
		t.Error("the state's sum of queue.json is not its bytes'")
	}
	cur, err := statStamp(tr.Path(QueueFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		sum  [sha256.Size]byte
		at   int64
		want bool
	}{
		"in its tick, the same bytes":  {sha256.Sum256(data), cur.CTime + 1e6, true},
		"in its tick, other bytes":     {sha256.Sum256([]byte("x")), cur.CTime + 1e6, false},
		"in its tick, bytes not known": {[sha256.Size]byte{}, cur.CTime + 1e6, false},
		"settled, other bytes":         {sha256.Sum256([]byte("x")), cur.CTime + 2e9, true},
	} {
		rec := st
		rec.Queue, rec.QueueSum, rec.At = cur, c.sum, c.at
		got, err := tr.checkQueueFiles(rec, false)
		if err != nil || got.same != c.want {
			t.Errorf("%s: same %v, %v; want %v", name, got.same, err, c.want)
		}
	}
}

// TestShardStampInItsTick: a shard whose stamp was recorded within folderSettled
// of its change is the one indexed only when its bytes' sum is the one recorded
// (an edit in the same tick keeps the stamp); where the times are whole seconds
// the same holds for the second, and past it the stat decides.
func TestShardStampInItsTick(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, shardBase(1))
	if err := os.WriteFile(path, []byte(`{"tasks": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := openStampDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	cur, err := d.statOnly(shardBase(1))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for name, c := range map[string]struct {
		rec  stamp
		sum  [sha256.Size]byte
		at   int64
		want bool
	}{
		"in its tick, the same bytes":    {cur, sha256.Sum256(data), cur.CTime + 1e6, true},
		"in its tick, other bytes":       {cur, sha256.Sum256([]byte("x")), cur.CTime + 1e6, false},
		"settled, other bytes":           {cur, sha256.Sum256([]byte("x")), cur.CTime + 2e9, true},
		"another change time":            {withCTime(cur, cur.CTime+1), sha256.Sum256(data), cur.CTime + 2e9, false},
		"whole seconds, in the second":   {wholeSeconds(cur), sha256.Sum256([]byte("x")), wholeSeconds(cur).CTime + 5e8, false},
		"whole seconds, the same bytes":  {wholeSeconds(cur), sha256.Sum256(data), wholeSeconds(cur).CTime + 5e8, true},
		"whole seconds, past the second": {wholeSeconds(cur), sha256.Sum256([]byte("x")), wholeSeconds(cur).CTime + 2e9, true},
	} {
		now := shardStamp{Lo: 1, Stamp: cur}
		if wholeSeconds(c.rec) == c.rec {
			now.Stamp = c.rec // as the file system would have it
		}
		got, _, err := shardStamp{Lo: 1, Stamp: c.rec, Sum: c.sum}.holds(&now, c.at, d)
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", name, got, err, c.want)
		}
	}
}

func withCTime(s stamp, c int64) stamp { s.CTime = c; return s }

func wholeSeconds(s stamp) stamp {
	s.MTime -= s.MTime % 1e9
	s.CTime -= s.CTime % 1e9
	return s
}

// FuzzQueueState: any bytes read as no state or as one that, written, is those
// very bytes (the layout has one way to write each state), its shards in order
// and each named by its first id.
func FuzzQueueState(f *testing.F) {
	sum := sha256.Sum256([]byte("the shard"))
	st := queueState{
		At:     1764000000123456789,
		Queue:  stamp{Ino: 9, Size: 120, MTime: 1764000000000000001, CTime: 1764000000000000002, Tail: strings.Repeat("ab", 32)},
		Folder: stamp{Ino: 7, Size: 4096, MTime: 1764000000123456789, CTime: 1764000000123456789},
		NextID: 151, Total: 150,
		Counts: map[State]int{Open: 147, Done: 3},
		Shards: []shardStamp{
			{Lo: 1, Stamp: stamp{Ino: 12, Size: 26200, MTime: 5e9, CTime: 6e9}, Sum: sum},
			{Lo: 100, Stamp: stamp{Ino: 13, Size: 13100, MTime: -1, CTime: 1764000000000000002}},
		},
	}
	f.Add(st.encode())
	st.QueueSum = sha256.Sum256([]byte("queue.json"))
	f.Add(st.encode())
	st.Queue.Tail, st.Folder, st.Shards = "-", stamp{}, nil
	f.Add(st.encode())
	f.Add(queueState{Counts: map[State]int{}}.encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		st, ok := parseQueueState(b)
		if !ok {
			return
		}
		if again := st.encode(); !bytes.Equal(again, b) {
			t.Fatalf("%q read as %+v is written %q", b, st, again)
		}
		for i, s := range st.Shards {
			if shardFirst(s.Lo) != s.Lo || (i > 0 && s.Lo <= st.Shards[i-1].Lo) || s.Stamp.Tail != "" {
				t.Fatalf("%q read with the shards %+v", b, st.Shards)
			}
		}
	})
}
