package statefiles

import (
	"encoding/json"
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

	// A person rewrites the file on one line, T-4 done, T-1 removed.
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	q.Tasks = append(q.Tasks[:1], q.Tasks[2:]...)
	q.Tasks[3].State = Done
	os.WriteFile(tr.Path(QueueFile), mustMarshalCompact(t, q), 0o644)
	check("after a hand edit", "T-5:open T-2:done T-3:open T-4:done", "T-2:done T-4:done", "T-2:done T-3:open", 2)

	// A broken queue is reported, not indexed.
	os.WriteFile(tr.Path(QueueFile), []byte(`{"version": 1, "next_id": 1, "tasks": [{"id": "T-1"}]}`), 0o644)
	var se *SchemaError
	if _, err := tr.FindTask(ctx, "T-1"); !errors.As(err, &se) {
		t.Errorf("a broken queue read as %v, want a SchemaError", err)
	}
	if _, err := tr.QueueSummary(ctx); !errors.As(err, &se) {
		t.Errorf("a broken queue summed as %v, want a SchemaError", err)
	}
}

func mustMarshalCompact(t *testing.T, q *Queue) []byte {
	t.Helper()
	b, err := jsonMarshalCompact(q)
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

func jsonMarshalCompact(q *Queue) ([]byte, error) { return json.Marshal(q) }

// TestIndentedSpans: the quick way to find the tasks in a queue strom wrote finds
// them where the decoder does, questions and odd titles included.
func TestIndentedSpans(t *testing.T) {
	t.Parallel()
	q := NewQueue()
	for _, title := range []string{"plain", "with }\n    { inside", `quote " and \ slash`} {
		task, _ := q.Add(title, "body\n    }", t0)
		task.Questions = []Question{{Question: "which?", Asked: t0}}
	}
	data, err := marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	quick := indentedSpans(data)
	slow, err := taskSpans(data)
	if err != nil || fmt.Sprint(quick) != fmt.Sprint(slow) || len(quick) != 3 {
		t.Errorf("indentedSpans = %v, taskSpans = %v, %v", quick, slow, err)
	}
}

// TestMarshalQueue: the queue written task by task is the bytes marshal writes.
func TestMarshalQueue(t *testing.T) {
	t.Parallel()
	q := NewQueue()
	for n := range 3 {
		data, parts, err := marshalQueue(q)
		want, _ := marshal(q)
		if err != nil || string(data) != string(want) || len(parts) != n {
			t.Fatalf("%d tasks: marshalQueue =\n%s\nwant\n%s", n, data, want)
		}
		task, _ := q.Add("Task <&> \"quoted\"", "line\nline", t0)
		task.Questions = []Question{{Question: "which?", Asked: t0}}
	}
}

// TestQueueWriteValidatesWhatChanged: a change to one task of a long queue
// validates that task, not the queue; a change made against a queue that changed
// meanwhile validates it whole.
func TestQueueWriteValidatesWhatChanged(t *testing.T) {
	tr := newTree(t)
	addTasks(t, tr, 300)
	info, _ := os.Stat(tr.Path(QueueFile))
	before := validatedBytes.Load()
	if err := tr.UpdateQueue(t.Context(), func(q *Queue) error { q.Tasks[7].State = Done; return nil }); err != nil {
		t.Fatal(err)
	}
	if n := validatedBytes.Load() - before; n <= 0 || n > info.Size()/50 {
		t.Errorf("one changed task validated %d bytes of a %d-byte queue", n, info.Size())
	}
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	if q.Tasks[7].State != Done {
		t.Error("the change was not written")
	}
	// Someone writes meanwhile: q no longer matches the file. (A title never seen
	// before: the memo of validated contents, shared by test runs, must not know
	// the result.)
	if err := tr.UpdateQueue(t.Context(), func(q *Queue) error { q.Tasks[8].Title = fmt.Sprint("reworded at ", time.Now().UnixNano()); return nil }); err != nil {
		t.Fatal(err)
	}
	before = validatedBytes.Load()
	q.Tasks[9].Title = fmt.Sprint("reworded again at ", time.Now().UnixNano())
	if err := tr.SaveQueue(q); err != nil {
		t.Fatal(err)
	}
	if n := validatedBytes.Load() - before; n < info.Size() {
		t.Errorf("a queue saved over another's change validated only %d bytes", n)
	}
	// An invalid change is refused and named where it is in the whole queue.
	q, _ = tr.LoadQueue()
	q.Tasks[42].Title = " "
	var se *SchemaError
	if err := tr.SaveQueue(q); !errors.As(err, &se) || se.Pointer != "/tasks/42/title" {
		t.Errorf("an empty title saved as %v, want a SchemaError at /tasks/42/title", err)
	}
}
