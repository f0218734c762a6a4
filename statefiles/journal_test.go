package statefiles

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// A research whose task add was killed between its file of tasks and queue.json
// (by a strom that wrote them one after the other) reads the task as added, and
// the next write completes the add: no one mends it by hand.
func TestHalfWrittenAddReadsAsAdded(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tr := newTree(t)
	for _, title := range []string{"one", "two"} {
		if _, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, title, "", t0) }); err != nil {
			t.Fatal(err)
		}
	}
	order, _ := os.ReadFile(tr.Path(QueueFile))
	if _, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, "three", "", t0) }); err != nil {
		t.Fatal(err)
	}
	// queue.json as it was before the third add: the kill's instant.
	if err := os.WriteFile(tr.Path(QueueFile), order, 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatalf("a half-written add: %v", err)
	}
	if len(q.Tasks) != 3 || q.Tasks[2].ID != "T-3" || q.NextID != 4 {
		t.Fatalf("a half-written add reads as %+v", q)
	}
	if sum, err := tr.QueueSummary(ctx); err != nil || sum.Counts[Open] != 3 {
		t.Fatalf("summary of a half-written add: %+v, %v", sum, err)
	}
	four, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, "four", "", t0) })
	if err != nil || four.ID != "T-4" {
		t.Fatalf("the next add: %+v, %v", four, err)
	}
	data, _ := os.ReadFile(tr.Path(QueueFile))
	o, err := ParseOrder("queue.json", data)
	if err != nil || !slices.Equal(liveIDs(o), []string{"T-1", "T-2", "T-3", "T-4"}) || o.NextID != 5 {
		t.Fatalf("after the next add queue.json is %s", data)
	}
}

// A change left in the journal (the process killed after the journal was whole)
// is written by the next holder of the lock, which says so; a journal that is not
// strom's is set aside and changes nothing.
func TestJournalFinishedByTheNextLock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tr := newTree(t)
	if _, err := tr.AddTask(ctx, func(id string) (Task, error) { return NewTask(id, "one", "", t0) }); err != nil {
		t.Fatal(err)
	}
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	task := q.Tasks[0]
	task.Title = "one, reworded"
	shard, err := EncodeShard([]Task{task})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(journal{Version: journalVersion, Files: []fileChange{{Path: ShardFile(task.ID), Data: shard}}})
	if err := WriteAtomic(tr.Path(RunDir, journalFile), j, 0o644); err != nil {
		t.Fatal(err)
	}
	var said []string
	tr.OnFinish = func(files []string) { said = files }
	if pending, err := tr.FinishPending(ctx); err != nil || !pending {
		t.Fatalf("FinishPending = %v, %v; want the journal found", pending, err)
	}
	if got, err := tr.FindTask(ctx, "T-1"); err != nil || got.Title != "one, reworded" {
		t.Fatalf("after the journal: %+v, %v", got, err)
	}
	if len(said) != 1 || said[0] != ".strom/"+ShardFile("T-1") {
		t.Errorf("said %v", said)
	}
	if _, err := os.Stat(tr.Path(RunDir, journalFile)); !os.IsNotExist(err) {
		t.Errorf("the journal is still there: %v", err)
	}
	// Someone else's file of that name.
	if err := os.WriteFile(tr.Path(RunDir, journalFile), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	said = nil
	if err := tr.Locked(ctx, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if said != nil {
		t.Errorf("a foreign journal was replayed: %v", said)
	}
	if _, err := os.Stat(tr.Path(RunDir, journalFile+".unknown")); err != nil {
		t.Errorf("a foreign journal was not set aside: %v", err)
	}
}

// liveIDs lists the ids of the tasks o holds, in its order.
func liveIDs(o *Order) []string {
	ids := make([]string, len(o.Live))
	for i, e := range o.Live {
		ids[i] = e.ID
	}
	return ids
}
