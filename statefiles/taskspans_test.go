package statefiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// trickyTasks are tasks lo … hi whose texts hold what a scanner of JSON could
// stumble on: quotes, backslashes, brackets and braces, an id in a title, escapes
// of every kind, letters beyond ASCII; some have questions and needs (objects and
// arrays within the task).
func trickyTasks(lo, hi int) []Task {
	titles := []string{
		"Find the baptism of Anna Nováková in the parish books of Tábor (%d)",
		`A "quoted" title with a backslash \ and {"id": "T-5"} in it, %d`,
		"Brackets ]}, [{ and a comma, %d",
		"Emoji 🦀, a line separator \u2028 and a tab\tin %d",
		"<b>HTML</b> & ampersands, %d",
		"Ünïcödé: Жизнь, 中文, עברית, %d",
		`He said "} and left, a backslash at the end \`,
		`An odd "quote{ [and a \" ], %d`,
	}
	var out []Task
	for n := lo; n <= hi; n++ {
		task := Task{
			ID:      fmt.Sprintf("T-%d", n),
			Title:   fmt.Sprintf(titles[n%len(titles)], n),
			Body:    fmt.Sprintf("Line one of %d.\nLine two: \"quoted\", \\escaped\\, \x01 a control character.", n),
			State:   []State{Open, Started, Waiting, Done, Parked}[n%5],
			Created: t0,
			Updated: t0.Add(time.Duration(n) * time.Minute),
		}
		switch task.State {
		case Started:
			task.Session = fmt.Sprintf("20261130T0912%02dZ-abcd", n%60)
		case Parked:
			task.ParkedFrom, task.Reason = Open, "waits for {the archive}"
		}
		if n%3 == 0 {
			task.Needs = []string{"archive-" + fmt.Sprint(n), "mail"}
		}
		if n%4 == 0 {
			answered := t0.Add(time.Hour)
			task.Questions = []Question{{Question: `Which "register", [1] or {2}?`, Asked: t0, Answer: "the second }]", Answered: &answered}}
		}
		out = append(out, task)
	}
	return out
}

// shardLayouts are the bytes of a shard of tasks as strom writes them and as a
// person or another tool might: on one line with HTML escaped, and spread with
// tabs and CRLF.
func shardLayouts(t testing.TB, tasks []Task) map[string][]byte {
	t.Helper()
	strom, err := EncodeShard(tasks)
	if err != nil {
		t.Fatal(err)
	}
	var one []string
	for i := range tasks {
		b, err := json.Marshal(&tasks[i])
		if err != nil {
			t.Fatal(err)
		}
		one = append(one, string(b))
	}
	return map[string][]byte{
		"strom's":    strom,
		"one line":   []byte(`{"tasks":[` + strings.Join(one, ",") + `]}`),
		"tabs, CRLF": []byte("\r\n{ \"tasks\" :\r\n\t[\r\n\t" + strings.Join(one, "\r\n\t,\t") + " ]\t}\n\n"),
	}
}

// TestTaskSpansDecodeAsTheShard: every task decoded from its range in a shard's
// bytes equals the task decoded from the whole shard, in every layout, and a slot
// reads back as it was written.
func TestTaskSpansDecodeAsTheShard(t *testing.T) {
	t.Parallel()
	for _, tasks := range [][]Task{trickyTasks(1, 99), trickyTasks(100, 199), trickyTasks(4200, 4203)} {
		rel := ShardFile(tasks[0].ID)
		for layout, data := range shardLayouts(t, tasks) {
			whole, err := ParseShard(rel, rel, data)
			if err != nil {
				t.Fatalf("%s %s: %v", rel, layout, err)
			}
			slot, ok := spansOf(data, shardSum(data), whole)
			if !ok {
				t.Fatalf("%s %s: no spans", rel, layout)
			}
			if again, ok := parseSpanSlot(slot.encode()); !ok || again != slot {
				t.Errorf("%s %s: the slot reads back as %v (%v)", rel, layout, again, ok)
			}
			for _, want := range whole {
				got, ok := slot.task(data, want.ID)
				if !ok || !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s: %s from its range = %+v (%v), want %+v", rel, layout, want.ID, got, ok, want)
				}
			}
			lo, hi, _ := ShardOfFile(rel)
			for n := lo; n <= hi; n++ {
				id := fmt.Sprintf("T-%d", n)
				if got, ok := slot.task(data, id); ok && !slices.ContainsFunc(whole, func(task Task) bool { return task.ID == id }) {
					t.Errorf("%s %s: %s, not in the file, read as %+v", rel, layout, id, got)
				}
			}
		}
	}
}

// spanTree is a research of 150 tasks (two shards) with its index built and T-7
// read once (the memo knows its shard's bytes, its slot is written).
func spanTree(t *testing.T) *Tree {
	t.Helper()
	tr := newTree(t)
	addTasks(t, tr, 150)
	if _, err := tr.QueueSummary(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.FindTask(t.Context(), "T-7"); err != nil {
		t.Fatal(err)
	}
	return tr
}

// findDecodes returns task id as FindTask reads it and how many shards it decoded
// whole.
func findDecodes(t *testing.T, tr *Tree, id string) (Task, int64) {
	t.Helper()
	before := wholeShards.Load()
	task, err := tr.FindTask(t.Context(), id)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return task, wholeShards.Load() - before
}

// wantShard checks that FindTask reads every task of the shard of id as the
// shard's bytes on disk hold it.
func wantShard(t *testing.T, tr *Tree, when, id string) {
	t.Helper()
	rel := ShardFile(id)
	data, err := os.ReadFile(tr.Path(rel))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ParseShard(rel, rel, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range whole {
		if got, err := tr.FindTask(t.Context(), want.ID); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s = %+v, %v; want %+v", when, want.ID, got, err, want)
		}
	}
}

// TestFindTaskDecodesItsBytes: a task read again decodes its own bytes, not its
// shard; a shard edited on disk after its slot was written (in place with its size
// and times kept, or to another size) is noticed and its tasks read as they are
// now, and the next read decodes one task again. (Not parallel: it counts the
// shards decoded whole.)
func TestFindTaskDecodesItsBytes(t *testing.T) {
	tr := spanTree(t)
	if _, _, err := tr.QueuePage(t.Context(), "", 0, 150); err != nil { // the other shard's slot
		t.Fatal(err)
	}
	before := wholeShards.Load()
	if page, _, err := tr.QueuePage(t.Context(), "", 90, 20); err != nil || len(page) != 20 || page[19].ID != "T-110" {
		t.Errorf("a page across both shards = %q, %v", ids(page), err)
	}
	if whole := wholeShards.Load() - before; whole != 0 {
		t.Errorf("a page across both shards decoded %d shards whole", whole)
	}
	if task, whole := findDecodes(t, tr, "T-7"); whole != 0 || task.Title != "Task 7" {
		t.Errorf("T-7 read again = %q, decoding %d shards whole, want none", task.Title, whole)
	}
	if _, whole := findDecodes(t, tr, "T-8"); whole != 0 {
		t.Errorf("T-8 of the same shard decoded %d shards whole", whole)
	}

	// The same size, the same inode and times: only the bytes differ.
	path := tr.Path(ShardFile("T-7"))
	editInPlace(t, path, `"Task 7"`, `"Task X"`, true)
	if task, whole := findDecodes(t, tr, "T-7"); task.Title != "Task X" || whole != 1 {
		t.Errorf("after an edit of the same size T-7 = %q, decoding %d shards whole; want \"Task X\", one", task.Title, whole)
	}
	if task, whole := findDecodes(t, tr, "T-7"); task.Title != "Task X" || whole != 0 {
		t.Errorf("T-7 read again after the edit = %q, decoding %d shards whole", task.Title, whole)
	}
	wantShard(t, tr, "after an edit of the same size", "T-7")

	// Another size: every task after the edit has moved.
	edited, _ := os.ReadFile(path)
	edited = bytes.Replace(edited, []byte(`"Task 5"`), []byte(`"Task 5, reworded by hand at length"`), 1)
	if err := WriteAtomic(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if task, whole := findDecodes(t, tr, "T-9"); task.Title != "Task 9" || whole != 1 {
		t.Errorf("after an edit of another size T-9 = %q, decoding %d shards whole; want one", task.Title, whole)
	}
	wantShard(t, tr, "after an edit of another size", "T-7")
	page, _, err := tr.QueuePage(t.Context(), "", 4, 2)
	if err != nil || len(page) != 2 || page[0].Title != "Task 5, reworded by hand at length" || page[1].ID != "T-6" {
		t.Errorf("the page after the edit = %+v, %v", page, err)
	}
}

// TestSettledStampSparesTheHash: a shard read whole, or found to be the bytes its
// slot names, keeps the file's stamp in the slot once it has settled, and the next
// read does not hash the file; a stamp not settled is never kept. An edit in place
// with the size and times kept (its change time moves), a file replaced by
// another of the same size and times (another inode), or a slot's stamp that is
// not the file's is hashed again, and its tasks read as they now are. (Not
// parallel: it counts the shards hashed and moves the clock.)
func TestSettledStampSparesTheHash(t *testing.T) {
	tr := spanTree(t)
	hashes := func(id string) int64 {
		t.Helper()
		before := hashedShards.Load()
		if _, err := tr.FindTask(t.Context(), id); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return hashedShards.Load() - before
	}
	if n := hashes("T-3"); n != 1 {
		t.Fatalf("a read within a second of the shard's write hashed %d shards; want 1", n)
	}
	if slot, _ := tr.readSpanSlot(3); slot.stamp != (stamp{}) {
		t.Fatalf("a stamp not settled was kept: %+v", slot.stamp)
	}
	t.Cleanup(func() { folderClock = time.Now })
	later := func(d time.Duration) { folderClock = func() time.Time { return time.Now().Add(d) } }
	later(2 * time.Second)
	if n := hashes("T-3"); n != 1 {
		t.Fatalf("the read that settles the stamp hashed %d shards; want 1", n)
	}
	for _, id := range []string{"T-3", "T-4", "T-99"} {
		if n := hashes(id); n != 0 {
			t.Errorf("%s, read with its shard's stamp settled, hashed %d shards; want 0", id, n)
		}
	}
	wantShard(t, tr, "with the stamp settled", "T-7")

	path := tr.Path(ShardFile("T-7"))
	fi, _ := os.Stat(path)
	editInPlace(t, path, "Task 4", "Fask 4", true)
	later(4 * time.Second)
	if n := hashes("T-4"); n != 1 {
		t.Errorf("after an edit in place with size and times kept, a read hashed %d shards; want 1", n)
	}
	wantShard(t, tr, "after an edit in place with size and times kept", "T-7")
	if task, _ := tr.FindTask(t.Context(), "T-4"); !strings.HasPrefix(task.Title, "Fask 4") {
		t.Errorf("T-4 after the edit in place = %q", task.Title)
	}

	// Another file of the same size and times in its place: another inode.
	later(6 * time.Second)
	hashes("T-4")
	data, _ := os.ReadFile(path)
	edited := bytes.Replace(data, []byte("Fask 4"), []byte("Mask 4"), 1)
	tmp := path + ".new"
	if err := os.WriteFile(tmp, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if task, _ := tr.FindTask(t.Context(), "T-4"); !strings.HasPrefix(task.Title, "Mask 4") {
		t.Errorf("T-4 after the shard was replaced = %q", task.Title)
	}
	wantShard(t, tr, "after the shard was replaced", "T-7")

	// A slot whose stamp is not the file's: hashed, and the stamp set right.
	later(8 * time.Second)
	hashes("T-4")
	slot, _ := tr.readSpanSlot(4)
	slot.stamp.CTime++
	writeSlot(t, tr, 4, slot)
	if n := hashes("T-4"); n != 1 {
		t.Errorf("with a slot's stamp not the file's, a read hashed %d shards; want 1", n)
	}
	if n := hashes("T-4"); n != 0 {
		t.Errorf("after the stamp was set right, a read hashed %d shards; want 0", n)
	}
}

// writeSlot writes a slot for the shard of T-n, its check sum made to match.
func writeSlot(t *testing.T, tr *Tree, n int, slot spanSlot) {
	t.Helper()
	if err := writeBytesAt(tr.queueIndexPath(queueIndexSpans), spanSlotAt(n), slot.encode()); err != nil {
		t.Fatal(err)
	}
}

// TestBrokenSpansFallBack: a slot that does not match the shard's bytes, however
// it came to be (a broken byte, ranges of other bytes under the right sum, a
// range past the file's end or on another task), never gives a wrong task: the
// shard is read whole, and its slot written right again. (Not parallel: it
// counts the shards decoded whole.)
func TestBrokenSpansFallBack(t *testing.T) {
	tr := spanTree(t)
	path := tr.Path(ShardFile("T-7"))
	data, _ := os.ReadFile(path)
	good, ok := tr.readSpanSlot(7)
	if !ok || good.sum != shardSum(data).k {
		t.Fatal("no slot names the shard's bytes after a read")
	}
	// The ranges of the shard before an edit that moved them, under the sum of
	// the bytes after it.
	if _, err := tr.FindTask(t.Context(), "T-107"); err != nil { // the other shard's slot
		t.Fatal(err)
	}
	if _, err := tr.UpdateTask(t.Context(), "T-2", func(task *Task) error {
		task.Title = "Task 2, reworded at length to move every task after it"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	moved, _ := os.ReadFile(path)
	now, ok := tr.readSpanSlot(7)
	if !ok || now.sum != shardSum(moved).k {
		t.Fatal("no slot names the shard's bytes after a change")
	}
	stale := good
	stale.sum = now.sum
	onFour := now
	onFour.spans[3], onFour.spans[4] = now.spans[4], taskSpan{}
	past := now
	past.spans[99] = taskSpan{now.spans[99].start, uint32(len(moved) + 10)}
	backwards := now
	backwards.spans[5] = taskSpan{now.spans[5].end, now.spans[5].start}
	other, _ := tr.readSpanSlot(107) // the other shard's
	other.sum = now.sum

	for name, broken := range map[string]func(){
		"a broken byte": func() {
			b := now.encode()
			b[sha256.Size+9] ^= 1
			if err := writeBytesAt(tr.queueIndexPath(queueIndexSpans), 0, b); err != nil {
				t.Fatal(err)
			}
		},
		"ranges of the bytes before an edit":   func() { writeSlot(t, tr, 7, stale) },
		"the range of T-3 on T-4":              func() { writeSlot(t, tr, 7, onFour) },
		"a range past the file's end":          func() { writeSlot(t, tr, 7, past) },
		"a range that ends before it starts":   func() { writeSlot(t, tr, 7, backwards) },
		"the ranges of another shard":          func() { writeSlot(t, tr, 7, other) },
		"a slot of zeros":                      func() { writeSlot(t, tr, 7, spanSlot{}) },
		"a slot cut short (slots.bin shorter)": func() { os.Truncate(tr.queueIndexPath(queueIndexSpans), 100) },
	} {
		broken()
		wantShard(t, tr, name, "T-7")
		for _, id := range []string{"T-3", "T-4", "T-99"} {
			if _, whole := findDecodes(t, tr, id); whole != 0 {
				t.Errorf("%s: %s read after the slot was written again decoded %d shards whole", name, id, whole)
			}
		}
		broken()
		page, _, err := tr.QueuePage(t.Context(), "", 2, 3)
		if err != nil || ids(page) != "T-3:open T-4:open T-5:open" {
			t.Errorf("%s: the page = %q, %v", name, ids(page), err)
		}
	}
}

// TestWritesKeepTheSpans: after strom's writes of a shard (a task changed, one
// added, the whole queue saved, the index built again) its slot names the bytes
// written, and a read decodes one task. (Not parallel: it counts the shards
// decoded whole.)
func TestWritesKeepTheSpans(t *testing.T) {
	tr := spanTree(t)
	ctx := t.Context()
	check := func(when string, ids ...string) {
		t.Helper()
		for _, id := range ids {
			data, _ := os.ReadFile(tr.Path(ShardFile(id)))
			if slot, ok := tr.readSpanSlot(idNumber(id)); !ok || slot.sum != shardSum(data).k {
				t.Errorf("%s: the slot of %s does not name its shard's bytes", when, id)
			}
			if _, whole := findDecodes(t, tr, id); whole != 0 {
				t.Errorf("%s: %s decoded %d shards whole", when, id, whole)
			}
		}
		wantShard(t, tr, when, ids[0])
	}
	if _, err := tr.UpdateTask(ctx, "T-8", func(task *Task) error {
		task.Title, task.State = "Task 8, reworded at length", Done
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check("after a change", "T-9", "T-8", "T-99")
	if _, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, "Added", "", t0) }); err != nil {
		t.Fatal(err)
	}
	check("after an add", "T-151", "T-150", "T-100")
	if err := tr.UpdateQueue(ctx, func(q *Queue) error {
		q.Tasks[0].Title = "Task 1, saved whole"
		return q.Move("T-150", "T-1")
	}); err != nil {
		t.Fatal(err)
	}
	check("after a save of the whole queue", "T-1", "T-2", "T-150")
	os.Remove(tr.queueIndexPath(queueIndexState))
	if _, err := tr.QueueSummary(ctx); err != nil {
		t.Fatal(err)
	}
	check("after the index was built again", "T-1", "T-150")
}

// TestSpansVouchForNothing: bytes the memo does not know are validated before a
// task is read from them, whatever slot names them. (Not parallel: it counts the
// shards decoded whole.)
func TestSpansVouchForNothing(t *testing.T) {
	tr := spanTree(t)
	tasks := trickyTasks(1, 9)
	tasks[2].Title = " " // not a title
	var one []string
	for i := range tasks {
		b, _ := compactTask(&tasks[i])
		one = append(one, string(b))
	}
	data := []byte(`{"tasks": [` + strings.Join(one, ", ") + "]}\n")
	slot, ok := spansOf(data, shardSum(data), tasks)
	if !ok {
		t.Fatal("no spans")
	}
	if err := WriteAtomic(tr.Path(ShardFile("T-3")), data, 0o644); err != nil {
		t.Fatal(err)
	}
	writeSlot(t, tr, 3, slot)
	var se *SchemaError
	if task, err := tr.FindTask(t.Context(), "T-3"); !errors.As(err, &se) || se.Pointer != "/tasks/2/title" {
		t.Errorf("T-3 of a shard the memo does not know read as %+v, %v; want a SchemaError at /tasks/2/title", task, err)
	}
}

// FuzzSpanSlot reads slots of slots.bin: a slot read writes back as its bytes,
// and the ranges of any bytes (the fuzzed bytes, in a slot whose CRC-32 holds)
// under the sum of a shard's bytes give, for every id, no task or the task the
// whole shard holds.
func FuzzSpanSlot(f *testing.F) {
	tasks := trickyTasks(1, 12)
	data, err := EncodeShard(tasks)
	if err != nil {
		f.Fatal(err)
	}
	s := shardSum(data)
	good, ok := spansOf(data, s, tasks)
	if !ok {
		f.Fatal("no spans")
	}
	f.Add(good.encode()[sha256.Size+slotStampSize : spanSlotSize-4])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if slot, ok := parseSpanSlot(b); ok && !bytes.Equal(slot.encode(), b) {
			t.Fatalf("a slot read from %x writes back as %x", b, slot.encode())
		}
		// b as the ranges of a slot that names the shard's bytes.
		raw := make([]byte, spanSlotSize)
		copy(raw, s.k[:])
		copy(raw[sha256.Size+slotStampSize:spanSlotSize-4], b)
		binary.LittleEndian.PutUint32(raw[spanSlotSize-4:], crc32.ChecksumIEEE(raw[:spanSlotSize-4]))
		slot, ok := parseSpanSlot(raw)
		if !ok {
			t.Fatal("a slot of its size does not read")
		}
		for n := 0; n < ShardSize; n++ {
			id := fmt.Sprintf("T-%d", n)
			got, ok := slot.task(data, id)
			if !ok {
				continue
			}
			if n < 1 || n > len(tasks) || !reflect.DeepEqual(got, tasks[n-1]) {
				t.Fatalf("%s read from [%d, %d) as %+v", id, slot.spans[n].start, slot.spans[n].end, got)
			}
		}
	})
}
