package statefiles

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// addN adds n open tasks titled "Task 1" … and returns the tree.
func addN(t *testing.T, n int) *Tree {
	t.Helper()
	tr := newTree(t)
	for i := 1; i <= n; i++ {
		if _, err := tr.AddTask(t.Context(), func(id string) (Task, error) { return NewTask(id, "Task "+id, "", t0) }); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func setState(t *testing.T, tr *Tree, id string, st State) {
	t.Helper()
	if _, err := tr.UpdateTask(t.Context(), id, func(task *Task) error { task.State = st; return nil }); err != nil {
		t.Fatal(err)
	}
}

func ids(tasks []Task) string {
	out := make([]string, len(tasks))
	for i, task := range tasks {
		out[i] = task.ID
	}
	return strings.Join(out, " ")
}

// A task's change of state writes queue.json with it: a done task leaves it and
// is counted, and status reads queue.json alone — a broken file of tasks does not
// stop it.
func TestQueueJSONFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	tr := addN(t, 5)
	setState(t, tr, "T-2", Done)
	setState(t, tr, "T-4", Done)
	if _, err := tr.UpdateTask(t.Context(), "T-3", func(task *Task) error { return task.Park("away", t0) }); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tr.Path(QueueFile))
	want := "{\n  \"version\": 4,\n  \"next_id\": 6,\n  \"done\": 2,\n  \"tasks\": [\n    \"T-1 open\",\n    \"T-3 parked\",\n    \"T-5 open\"\n  ]\n}\n"
	if string(data) != want {
		t.Fatalf("queue.json is\n%s\nwant\n%s", data, want)
	}
	if err := os.WriteFile(tr.Path(ShardFile("T-1")), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := tr.QueueSummary(t.Context())
	if err != nil || sum.Total != 5 || sum.Counts[Done] != 2 || sum.Counts[Open] != 2 || sum.Counts[Parked] != 1 {
		t.Fatalf("summary = %+v, %v", sum, err)
	}
}

// A page lists the tasks not done in queue order, then the done ones newest
// first; skipping and a state work across both.
func TestQueuePageOrder(t *testing.T) {
	t.Parallel()
	tr := addN(t, 205)
	for _, id := range []string{"T-1", "T-150", "T-201", "T-3"} {
		setState(t, tr, id, Done)
	}
	if err := tr.MoveTask(t.Context(), "T-205", "T-2"); err != nil {
		t.Fatal(err)
	}
	page, total, err := tr.QueuePage(t.Context(), "", 0, 3)
	if err != nil || total != 205 || ids(page) != "T-205 T-2 T-4" {
		t.Fatalf("first page = %s (of %d), %v", ids(page), total, err)
	}
	page, _, err = tr.QueuePage(t.Context(), "", 200, 5)
	if err != nil || ids(page) != "T-204 T-201 T-150 T-3 T-1" {
		t.Fatalf("last page = %s, %v", ids(page), err)
	}
	page, total, err = tr.QueuePage(t.Context(), Done, 1, 2)
	if err != nil || total != 4 || ids(page) != "T-150 T-3" {
		t.Fatalf("done page = %s (of %d), %v", ids(page), total, err)
	}
	if err := tr.MoveTask(t.Context(), "T-5", "T-150"); err == nil || !strings.Contains(err.Error(), "T-150 is done") {
		t.Fatalf("a move before a done task: %v", err)
	}
	if err := tr.MoveTask(t.Context(), "T-5", "T-999"); err == nil || !strings.Contains(err.Error(), "no such task T-999") {
		t.Fatalf("a move before no task: %v", err)
	}
}

// Where queue.json and the tasks' files disagree (a merge of both, an edit by
// hand), the tasks' files win: a page and a whole read make queue.json follow
// them, say which tasks, and lose none; the page is read again after.
func TestQueueHealsFromTheTasksFiles(t *testing.T) {
	t.Parallel()
	tr := addN(t, 4)
	setState(t, tr, "T-2", Done)
	var healed []string
	tr.OnHeal = func(ids []string) { healed = append(healed, ids...) }
	// By hand: T-1 done and T-4 parked in their file; queue.json says open.
	s, err := tr.readShard(ShardFile("T-1"))
	if err != nil {
		t.Fatal(err)
	}
	tasks := slices.Clone(s.tasks)
	tasks[0].State = Done
	tasks[3].State, tasks[3].Reason, tasks[3].ParkedFrom = Parked, "by hand", Open
	data, err := EncodeShard(tasks)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr.Path(ShardFile("T-1")), data, 0o644); err != nil {
		t.Fatal(err)
	}
	// queue.json by hand: T-3 taken out of it.
	if err := os.WriteFile(tr.Path(QueueFile), []byte(`{"version": 4, "next_id": 5, "done": 1, "tasks": ["T-1 open", "T-4 open"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	page, _, err := tr.QueuePage(t.Context(), Open, 0, 10)
	if err != nil || ids(page) != "T-3" {
		t.Fatalf("open tasks of the edited queue = %s, %v", ids(page), err)
	}
	if got := strings.Join(healed, " "); got != "T-1 T-4 T-3" {
		t.Fatalf("healed %q, want T-1 T-4 T-3", got)
	}
	now, _ := os.ReadFile(tr.Path(QueueFile))
	want := "{\n  \"version\": 4,\n  \"next_id\": 5,\n  \"done\": 2,\n  \"tasks\": [\n    \"T-4 parked\",\n    \"T-3 open\"\n  ]\n}\n"
	if string(now) != want {
		t.Fatalf("queue.json after the heal is\n%s\nwant\n%s", now, want)
	}
	healed = nil
	if _, err := tr.LoadQueue(); err != nil || healed != nil {
		t.Fatalf("a healed queue healed again: %v, %v", healed, err)
	}
}

// A count of done tasks in queue.json that the tasks' files do not hold (a hand
// edit) is healed too, and said as a count: OnHeal is told no task.
func TestQueueHealsTheCountOfDone(t *testing.T) {
	t.Parallel()
	tr := addN(t, 3)
	setState(t, tr, "T-2", Done)
	heals := 0
	var told []string
	tr.OnHeal = func(ids []string) { heals++; told = append(told, ids...) }
	if err := os.WriteFile(tr.Path(QueueFile), []byte(`{"version": 4, "next_id": 4, "done": 7, "tasks": ["T-1 open", "T-3 open"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.LoadQueue(); err != nil {
		t.Fatal(err)
	}
	if heals != 1 || told != nil {
		t.Fatalf("a wrong count: OnHeal called %d times with %q, want once with no task", heals, told)
	}
	sum, err := tr.QueueSummary(t.Context())
	if err != nil || sum.Counts[Done] != 1 {
		t.Fatalf("done after the heal = %d, %v; want 1", sum.Counts[Done], err)
	}
}

// A task queue.json lists that no file holds is said in one sentence, not dropped.
func TestQueueTaskMissingFromItsFile(t *testing.T) {
	t.Parallel()
	tr := addN(t, 2)
	if err := os.WriteFile(tr.Path(QueueFile), []byte(`{"version": 4, "next_id": 8, "done": 0, "tasks": ["T-1 open", "T-7 open", "T-2 open"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := tr.LoadQueue()
	if err == nil || !strings.Contains(err.Error(), "task T-7 is not in its file .strom/tasks/T-1-99.json") {
		t.Fatalf("a task missing from its file: %v", err)
	}
}

// A write of queue.json validates the lines it adds and the file's shape, not the
// lines it read valid: adding a task to a queue of 3,000 tasks not done validates
// a small part of queue.json, and a bad line is still refused. Not parallel:
// validatedBytes counts every validation of the process.
func TestQueueWriteValidatesWhatChanged(t *testing.T) {
	tr := newTree(t)
	// A count of done tasks no other run wrote: the memo (in the user's cache,
	// kept between runs) does not know these bytes.
	o := &Order{NextID: 3001, Done: int(time.Now().UnixNano() % 1e9)}
	for i := 1; i <= 3000; i++ {
		o.Live = append(o.Live, Entry{ID: "T-" + strconv.Itoa(i), State: Open})
	}
	data, err := EncodeOrder(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr.Path(QueueFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.QueueSummary(t.Context()); err != nil { // read whole once
		t.Fatal(err)
	}
	before := validatedBytes.Load()
	if _, err := tr.AddTask(t.Context(), func(id string) (Task, error) { return NewTask(id, "One more", "", t0) }); err != nil {
		t.Fatal(err)
	}
	if got := validatedBytes.Load() - before; got >= int64(len(data))/10 {
		t.Errorf("adding a task validated %d bytes, queue.json is %d", got, len(data))
	}
	now, _ := os.ReadFile(tr.Path(QueueFile))
	if !strings.Contains(string(now), `"T-3001 open"`) {
		t.Fatalf("queue.json after the add: %s", now[len(now)-80:])
	}
	o, err = ParseOrder("queue.json", now)
	if err != nil {
		t.Fatal(err)
	}
	o.Done = -1
	if _, err := EncodeOrder(o); err == nil {
		t.Error("a queue.json of -1 done tasks was written")
	}
}
