package statefiles

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func addTasks(t *testing.T, tr *Tree, n int) {
	t.Helper()
	err := tr.UpdateQueue(t.Context(), func(q *Queue) error {
		for i := range n {
			if _, err := q.Add(fmt.Sprintf("Task %d", i+1), "", t0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ids(tasks []Task) string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.ID+":"+string(t.State))
	}
	return strings.Join(out, " ")
}

// TestQueueIndexAnswersAsTheQueue: tasks, counts and pages read through the index
// are those of queue.json, after strom's writes and after a person's edits alike.
func TestQueueIndexAnswersAsTheQueue(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	ctx := t.Context()
	addTasks(t, tr, 5)
	err := tr.UpdateQueue(ctx, func(q *Queue) error {
		q.Tasks[1].State = Done
		return q.Move("T-5", "T-1")
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when, wantAll, wantDone, wantPage string, open int) {
		t.Helper()
		all, total, err := tr.QueuePage(ctx, "", 0, 100)
		if err != nil || ids(all) != wantAll || total != len(all) {
			t.Errorf("%s: all = %q (%d), %v; want %q", when, ids(all), total, err, wantAll)
		}
		done, n, err := tr.QueuePage(ctx, Done, 0, 100)
		if err != nil || ids(done) != wantDone || n != len(done) {
			t.Errorf("%s: done = %q (%d), %v; want %q", when, ids(done), n, err, wantDone)
		}
		page, _, err := tr.QueuePage(ctx, "", 1, 2)
		if err != nil || ids(page) != wantPage {
			t.Errorf("%s: page = %q, %v; want %q", when, ids(page), err, wantPage)
		}
		sum, err := tr.QueueSummary(ctx)
		if err != nil || sum.Counts[Open] != open || sum.Total != len(all) {
			t.Errorf("%s: summary = %+v, %v; want %d open", when, sum, err, open)
		}
		task, err := tr.FindTask(ctx, "t-3")
		if err != nil || task.ID != "T-3" || task.Title != "Task 3" {
			t.Errorf("%s: T-3 = %+v, %v", when, task, err)
		}
		for _, id := range []string{"T-9", "T-0", "x", "T-03"} {
			if _, err := tr.FindTask(ctx, id); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("%s: %s = %v, want ErrUnknownTask", when, id, err)
			}
		}
	}
	check("after strom's writes", "T-5:open T-1:open T-2:done T-3:open T-4:open", "T-2:done", "T-1:open T-2:done", 4)

	// The index is gone: rebuilt from the file.
	os.RemoveAll(tr.queueIndexPath())
	check("rebuilt", "T-5:open T-1:open T-2:done T-3:open T-4:open", "T-2:done", "T-1:open T-2:done", 4)

	// A person rewrites queue.json on one line without T-1 (and takes it out of
	// its file) and edits T-4 in place: done.
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	shard := tr.Path(ShardFile("T-1"))
	os.WriteFile(tr.Path(QueueFile), []byte(`{"version":3,"next_id":6,"order":["T-5","T-2","T-3","T-4"]}`), 0o644)
	four := q.Tasks[4]
	four.State = Done
	f, _ := os.OpenFile(shard, os.O_WRONLY|os.O_TRUNC, 0)
	f.Write(mustShard(t, q.Tasks[0], q.Tasks[2], q.Tasks[3], four))
	f.Close()
	check("after a hand edit", "T-5:open T-2:done T-3:open T-4:done", "T-2:done T-4:done", "T-2:done T-3:open", 2)

	// A broken file of tasks (replaced, as editors, checkouts and pulls do) is
	// reported, not indexed.
	WriteAtomic(shard, []byte(`{"tasks": [{"id": "T-3"}]}`), 0o644)
	var se *SchemaError
	if _, err := tr.FindTask(ctx, "T-3"); !errors.As(err, &se) || se.Pointer != "/tasks/0" {
		t.Errorf("a broken task read as %v, want a SchemaError at /tasks/0", err)
	}
	if _, err := tr.QueueSummary(ctx); !errors.As(err, &se) {
		t.Errorf("a broken queue summed as %v, want a SchemaError", err)
	}
	// So is a task the order does not name, below next_id (past it, it is an
	// add a kill left half written, and reads as added).
	WriteAtomic(shard, mustShard(t, q.Tasks[0], q.Tasks[2], q.Tasks[3], four, Task{ID: "T-1", Title: "stray", State: Open, Created: t0, Updated: t0}), 0o644)
	if _, err := tr.QueueSummary(ctx); !errors.As(err, &se) || !strings.Contains(se.Rule, "T-1 ") {
		t.Errorf("a stray task summed as %v, want a SchemaError naming T-1", err)
	}
	// And a task in the wrong file, or out of order.
	WriteAtomic(shard, mustShard(t, q.Tasks[0], q.Tasks[2], q.Tasks[3], four), 0o644)
	os.WriteFile(tr.Path(ShardFile("T-100")), []byte(`{"tasks": [`+string(mustMarshalTask(t, q.Tasks[3]))+`]}`), 0o644)
	if _, err := tr.LoadQueue(); !errors.As(err, &se) || se.File != ".strom/tasks/T-100-199.json" || !strings.Contains(se.Rule, "move it to .strom/tasks/T-1-99.json") {
		t.Errorf("a task in another's file read as %v", err)
	}
	os.Remove(tr.Path(ShardFile("T-100")))
	raw := string(mustShard(t, q.Tasks[0], q.Tasks[2], q.Tasks[3], four))
	swapped := strings.Replace(strings.Replace(raw, `"id": "T-3"`, `"id": "T-X"`, 1), `"id": "T-4"`, `"id": "T-3"`, 1)
	swapped = strings.Replace(swapped, `"id": "T-X"`, `"id": "T-4"`, 1)
	WriteAtomic(shard, []byte(swapped), 0o644)
	if _, err := tr.LoadQueue(); !errors.As(err, &se) || !strings.Contains(se.Rule, "not sorted") {
		t.Errorf("tasks out of order read as %v", err)
	}
	dup := strings.Replace(raw, `"id": "T-4"`, `"id": "T-3"`, 1)
	WriteAtomic(shard, []byte(dup), 0o644)
	if _, err := tr.LoadQueue(); !errors.As(err, &se) || !strings.Contains(se.Rule, "T-3 is in the file twice") {
		t.Errorf("a task twice read as %v", err)
	}
}

// mustShard is the bytes strom writes for a shard of tasks.
func mustShard(t *testing.T, tasks ...Task) []byte {
	t.Helper()
	b, err := EncodeShard(tasks)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustMarshalTask(t *testing.T, task Task) []byte {
	t.Helper()
	b, err := marshal(&task)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQueueIndexWithoutQueue: a research without queue.json has no tasks.
func TestQueueIndexWithoutQueue(t *testing.T) {
	t.Parallel()
	tr := At(t.TempDir())
	if _, err := tr.FindTask(t.Context(), "T-1"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("FindTask = %v, want ErrUnknownTask", err)
	}
	if tasks, total, err := tr.QueuePage(t.Context(), "", 0, 10); err != nil || len(tasks) != 0 || total != 0 {
		t.Errorf("QueuePage = %v, %d, %v", tasks, total, err)
	}
}

// TestQueueWriteValidatesWhatChanged: a change to one task of a long queue
// writes its shard and validates that task, not the shard's other tasks nor the
// queue.
func TestQueueWriteValidatesWhatChanged(t *testing.T) {
	tr := newTree(t)
	addTasks(t, tr, 300)
	order, _ := os.Stat(tr.Path(QueueFile))
	others, _ := os.Stat(tr.Path(ShardFile("T-150")))
	before := validatedBytes.Load()
	title := fmt.Sprint("reworded at ", time.Now().UnixNano()) // never seen by the memo
	changed, err := tr.UpdateTask(t.Context(), "T-8", func(task *Task) error { task.State, task.Title = Done, title; return nil })
	if err != nil {
		t.Fatal(err)
	}
	one, _ := compactTask(&changed)
	shard, _ := os.Stat(tr.Path(ShardFile("T-8")))
	if n := validatedBytes.Load() - before; n <= 0 || n > 2*int64(len(one))+400 {
		t.Errorf("one changed task validated %d bytes (the task has %d, its shard %d)", n, len(one), shard.Size())
	}
	if now, _ := os.Stat(tr.Path(ShardFile("T-150"))); !os.SameFile(others, now) {
		t.Error("changing one task rewrote another shard")
	}
	// The next read of the shard validates nothing: the memo knows its bytes.
	before = validatedBytes.Load()
	if task, err := tr.FindTask(t.Context(), "T-9"); err != nil || task.Title != "Task 9" {
		t.Fatalf("T-9 = %+v, %v", task, err)
	}
	if n := validatedBytes.Load() - before; n != 0 {
		t.Errorf("reading the shard strom wrote validated %d bytes", n)
	}
	if after, _ := os.Stat(tr.Path(QueueFile)); !after.ModTime().Equal(order.ModTime()) {
		t.Error("changing one task rewrote queue.json")
	}
	// SaveQueue of the whole queue writes only the file that changed.
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	if q.Tasks[7].State != Done || q.Tasks[7].Title != title {
		t.Error("the change was not written")
	}
	nine, _ := os.Stat(tr.Path(ShardFile("T-150")))
	q.Tasks[42].Title = fmt.Sprint("reworded again at ", time.Now().UnixNano())
	before = validatedBytes.Load()
	if err := tr.SaveQueue(q); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(tr.Path(ShardFile("T-150"))); !os.SameFile(nine, after) {
		t.Error("SaveQueue rewrote a shard that did not change")
	}
	if n := validatedBytes.Load() - before; n <= 0 || n > 2*int64(len(one))+400 {
		t.Errorf("SaveQueue of one changed task validated %d bytes", n)
	}
	// An invalid change is refused and named by its file.
	q, _ = tr.LoadQueue()
	q.Tasks[42].Title = " "
	var se *SchemaError
	if err := tr.SaveQueue(q); !errors.As(err, &se) || se.File != ".strom/tasks/T-1-99.json" || se.Pointer != "/tasks/42/title" {
		t.Errorf("an empty title saved as %v, want a SchemaError at .strom/tasks/T-1-99.json /tasks/42/title", err)
	}
}

// TestTargetedWritesKeepTheIndex: adding a task writes its file and queue.json, and
// changing one writes its file alone; the index stays current without a rebuild.
func TestTargetedWritesKeepTheIndex(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	ctx := t.Context()
	addTasks(t, tr, 3)
	if _, err := tr.QueueSummary(ctx); err != nil { // builds the index
		t.Fatal(err)
	}
	added, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, "Added", "", t0) })
	if err != nil || added.ID != "T-4" {
		t.Fatalf("added %+v, %v", added, err)
	}
	order, _ := os.Stat(tr.Path(QueueFile))
	if _, err := tr.UpdateTask(ctx, "T-2", func(task *Task) error { task.State = Done; return nil }); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.Stat(tr.Path(QueueFile)); !os.SameFile(order, now) {
		t.Error("changing a task rewrote queue.json")
	}
	ix, fresh := tr.openFreshQueueIndex()
	if !fresh {
		t.Fatal("the index is stale after strom's own writes")
	}
	ix.Close()
	sum, err := tr.QueueSummary(ctx)
	if err != nil || sum.Total != 4 || sum.Counts[Open] != 3 || sum.Counts[Done] != 1 || sum.NextID != 5 {
		t.Errorf("summary = %+v, %v", sum, err)
	}
	page, _, err := tr.QueuePage(ctx, Open, 0, 10)
	if err != nil || ids(page) != "T-1:open T-3:open T-4:open" {
		t.Errorf("open = %q, %v", ids(page), err)
	}
	if _, err := tr.UpdateTask(ctx, "T-9", func(*Task) error { return nil }); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("changing T-9 = %v, want ErrUnknownTask", err)
	}
	if _, err := tr.UpdateTask(ctx, "T-1", func(task *Task) error { task.ID = "T-7"; return nil }); err == nil {
		t.Error("a task's id changed")
	}
}

// TestReadQueueSeesChanges: the queue an overview reads again and again is read
// from the files only when they changed, and every change strom makes is seen.
func TestReadQueueSeesChanges(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	ctx := t.Context()
	addTasks(t, tr, 3)
	// The files were written an hour ago.
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{tr.Path(QueueFile), tr.Path(TasksDir)} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	q, err := tr.ReadQueue()
	if err != nil || len(q.Tasks) != 3 {
		t.Fatalf("first read: %v, %v", q, err)
	}
	// A shard written over in place (the folder keeps its time) is read again: its
	// stamp changed.
	three := q.Tasks[2]
	three.Title = "edited in place"
	if err := os.WriteFile(tr.Path(ShardFile("T-3")), mustShard(t, q.Tasks[0], q.Tasks[1], three), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tr.Path(TasksDir), past, past); err != nil {
		t.Fatal(err)
	}
	if again, _ := tr.ReadQueue(); again.Tasks[2].Title != "edited in place" {
		t.Errorf("a shard written over in place was not read again: %q", again.Tasks[2].Title)
	}
	q, _ = tr.ReadQueue()
	q.Tasks[0].Title = "changed by the reader" // a copy: the next read does not see it
	if again, _ := tr.ReadQueue(); again.Tasks[0].Title != "Task 1" {
		t.Errorf("a reader's change leaked into the kept queue: %q", again.Tasks[0].Title)
	}
	if _, err := tr.UpdateTask(ctx, "T-2", func(task *Task) error { task.State = Done; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, "Added", "", t0) }); err != nil {
		t.Fatal(err)
	}
	after, err := tr.ReadQueue()
	if err != nil || len(after.Tasks) != 4 || after.Tasks[1].State != Done || after.Tasks[2].Title != "edited in place" {
		t.Errorf("after a change and an add: %+v, %v", after, err)
	}
}
