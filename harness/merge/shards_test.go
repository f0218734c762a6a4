package merge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/statefiles"
)

var shardT0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func shardOf(t *testing.T, tasks ...statefiles.Task) []byte {
	t.Helper()
	data, err := statefiles.EncodeShard(tasks)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func openTask(id, title string) statefiles.Task {
	return statefiles.Task{ID: id, Title: title, State: statefiles.Open, Created: shardT0, Updated: shardT0}
}

// TestShard: a shard merges task by task: a task both sides changed field by
// field, one a side added is taken, one a side deleted is kept, and the merged
// file holds its tasks sorted by id. The same id added on both sides as two tasks
// is a conflict naming the shard.
func TestShard(t *testing.T) {
	t.Parallel()
	one, two := openTask("T-1", "Find the baptism"), openTask("T-2", "Find the marriage")
	base := shardOf(t, one, two)
	ourOne := one
	ourOne.State, ourOne.Reason, ourOne.ParkedFrom, ourOne.Updated = statefiles.Parked, "the register is away", statefiles.Open, shardT0.Add(time.Hour)
	theirOne := one
	theirOne.Body = "In Písek."
	ours := shardOf(t, ourOne, two, openTask("T-3", "Ours"))
	theirs := shardOf(t, theirOne, openTask("T-4", "Theirs")) // T-2 deleted there
	out, _, err := Files("task", base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := statefiles.ParseShard("merged", statefiles.ShardFile("T-1"), out)
	if err != nil {
		t.Fatalf("the merged shard: %v\n%s", err, out)
	}
	var ids []string
	for _, g := range got {
		ids = append(ids, g.ID)
	}
	if strings.Join(ids, " ") != "T-1 T-2 T-3 T-4" {
		t.Errorf("merged tasks %v, want T-1 T-2 T-3 T-4", ids)
	}
	if got[0].State != statefiles.Parked || got[0].Reason != "the register is away" || got[0].Body != "In Písek." {
		t.Errorf("merged T-1 %+v: want parked (ours) with the body (theirs)", got[0])
	}
	if want := shardOf(t, got...); string(out) != string(want) {
		t.Errorf("the merged shard is not as strom writes it:\n%s", out)
	}

	// Both sides added the shard, one task alike and one under one id as two.
	five := openTask("T-5", "Desktop task")
	if same, err := Shard(nil, shardOf(t, five), shardOf(t, five)); err != nil || string(same) != string(shardOf(t, five)) {
		t.Errorf("one task added on both sides alike: %s, %v", same, err)
	}
	_, err = Shard(nil, shardOf(t, five), shardOf(t, openTask("T-5", "Laptop task")))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `T-5 was added on both sides as two tasks ("Desktop task" here, "Laptop task" there)`) || !strings.Contains(err.Error(), ".strom/tasks/T-1-99.json") {
		t.Errorf("two tasks under one id: %v", err)
	}
	// A broken side is a conflict, not a guess.
	if _, err := Shard(base, []byte(`{"tasks": [{"id": "T-1"}]}`), theirs); !errors.Is(err, ErrConflict) {
		t.Errorf("a broken side merged: %v", err)
	}
}

// TestFilesQueueOfVersion2And3: a queue.json of version 2 against one of version 3
// is a conflict that says which side to migrate.
func TestFilesQueueOfVersion2And3(t *testing.T) {
	t.Parallel()
	v2 := []byte(`{"version": 2, "next_id": 1, "order": []}`)
	_, _, err := Files("queue", v2, v2, order("", 1))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "our version of queue.json is of version 2") {
		t.Errorf("mixed versions: %v", err)
	}
	// Both sides migrated from a common version 2: the order merges.
	if out, _, err := Files("queue", []byte(`{"version": 2, "next_id": 2, "order": ["T-1"]}`), order("T-1 T-2", 3), order("T-1 T-3", 4)); err != nil || !strings.Contains(string(out), `"T-3"`) {
		t.Errorf("both migrated: %s, %v", out, err)
	}
}
