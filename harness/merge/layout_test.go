package merge

import (
	"errors"
	"strings"
	"testing"

	"github.com/strom-research/strom/statefiles"
)

func order(ids string, next int) []byte {
	var list []string
	if ids != "" {
		list = strings.Fields(ids)
	}
	data, err := statefiles.EncodeOrder3(&statefiles.Order3{NextID: next, Order: list})
	if err != nil {
		panic(err)
	}
	return data
}

// live is a queue.json of version 4: entries like "T-1:open T-2:parked".
func live(entries string, done, next int) []byte {
	o := &statefiles.Order{NextID: next, Done: done}
	for _, f := range strings.Fields(entries) {
		id, st, _ := strings.Cut(f, ":")
		o.Live = append(o.Live, statefiles.Entry{ID: id, State: statefiles.State(st)})
	}
	data, err := statefiles.EncodeOrder(o)
	if err != nil {
		panic(err)
	}
	return data
}

// TestLive: the merged queue.json of version 4 keeps every task not done on
// either side, drops one a side finished unless the other changed it, takes the
// changed state, and counts each finished task once.
func TestLive(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name               string
		base, ours, theirs []byte
		want               string
		done, next         int
	}{
		{"both add", live("T-1:open", 0, 2), live("T-1:open T-2:open", 0, 3), live("T-1:open T-3:open", 0, 4), "T-1:open T-2:open T-3:open", 0, 4},
		{"each finishes one", live("T-1:open T-2:open T-3:open", 4, 4), live("T-2:open T-3:open", 5, 4), live("T-1:open T-3:open", 5, 4), "T-3:open", 6, 4},
		{"both finish one", live("T-1:started T-2:open", 0, 3), live("T-2:open", 1, 3), live("T-2:open", 1, 3), "T-2:open", 1, 3},
		{"finished there, parked here", live("T-1:open", 0, 2), live("T-1:parked", 0, 2), live("", 1, 2), "T-1:parked", 0, 2},
		{"theirs starts it", live("T-1:open T-2:open", 0, 3), live("T-1:open T-2:open", 0, 3), live("T-1:started T-2:open", 0, 3), "T-1:started T-2:open", 0, 3},
		{"a claim returned while the other finished", live("T-1:started", 0, 2), live("T-1:open", 0, 2), live("T-1:waiting", 0, 2), "T-1:waiting", 0, 2},
		{"theirs reorders", live("T-1:open T-2:open", 0, 3), live("T-1:open T-2:open T-3:open", 0, 4), live("T-2:open T-1:open", 0, 3), "T-2:open T-1:open T-3:open", 0, 4},
		{"no common version", nil, live("T-1:open", 2, 4), live("T-3:open", 3, 4), "T-1:open T-3:open", 3, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := Live(tc.base, tc.ours, tc.theirs)
			if err != nil {
				t.Fatal(err)
			}
			o, err := statefiles.ParseOrder("merged", out)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range o.Live {
				got = append(got, e.ID+":"+string(e.State))
			}
			if strings.Join(got, " ") != tc.want || o.Done != tc.done || o.NextID != tc.next {
				t.Errorf("merged %s (done %d, next %d), want %s (done %d, next %d)", strings.Join(got, " "), o.Done, o.NextID, tc.want, tc.done, tc.next)
			}
		})
	}
	if _, err := Live(nil, live("T-1:open", 0, 2), []byte(`{"version": 4, "tasks": 1}`)); !errors.Is(err, ErrConflict) {
		t.Errorf("a broken side merged: %v", err)
	}
}

// TestOrder: the merged order keeps every task either side has, ours first unless
// only theirs reordered, and next_id past every id.
func TestOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name               string
		base, ours, theirs []byte
		want               string
		next               int
	}{
		{"both add", order("T-1", 2), order("T-1 T-2", 3), order("T-1 T-3", 4), "T-1 T-2 T-3", 4},
		{"both add one id", order("T-1", 2), order("T-1 T-2", 3), order("T-1 T-2", 3), "T-1 T-2", 3},
		{"theirs reorders", order("T-1 T-2", 3), order("T-1 T-2 T-3", 4), order("T-2 T-1", 3), "T-2 T-1 T-3", 4},
		{"ours reorders", order("T-1 T-2", 3), order("T-2 T-1", 3), order("T-1 T-2 T-3", 4), "T-2 T-1 T-3", 4},
		{"one side drops a task", order("T-1 T-2", 3), order("T-1", 3), order("T-1 T-2", 3), "T-1 T-2", 3},
		{"no common version", nil, order("T-1", 2), order("T-2", 3), "T-1 T-2", 3},
		{"next_id behind", order("", 1), order("T-7", 1), order("", 1), "T-7", 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := Order(tc.base, tc.ours, tc.theirs)
			if err != nil {
				t.Fatal(err)
			}
			o, err := statefiles.ParseOrder3("merged", out)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(o.Order, " "); got != tc.want || o.NextID != tc.next {
				t.Errorf("merged %s (next %d), want %s (next %d)", got, o.NextID, tc.want, tc.next)
			}
		})
	}
	if _, err := Order(nil, order("T-1", 2), []byte(`{"version": 2, "order": 1}`)); !errors.Is(err, ErrConflict) {
		t.Errorf("a broken side merged: %v", err)
	}
}

const taskBase = `{"id": "T-2", "title": "Find the marriage", "state": "open", "created": "2026-11-30T09:00:00Z", "updated": "2026-11-30T09:00:00Z"}`

// TestTask: a task's file merges field by field; two tasks added under one id are
// a conflict that says so.
func TestTask(t *testing.T) {
	t.Parallel()
	ours := strings.Replace(taskBase, `"state": "open", `, `"state": "parked", "reason": "the register is away", "parked_from": "open", `, 1)
	ours = strings.Replace(ours, `"updated": "2026-11-30T09:00:00Z"`, `"updated": "2026-11-30T10:00:00Z"`, 1)
	theirs := strings.Replace(taskBase, `"title": "Find the marriage", `, `"title": "Find the marriage", "body": "In Písek.", `, 1)
	out, err := Task([]byte(taskBase), []byte(ours), []byte(theirs))
	if err != nil {
		t.Fatal(err)
	}
	got, err := statefiles.ParseTask("merged", statefiles.TaskFile("T-2"), out)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != statefiles.Parked || got.Reason != "the register is away" || got.Body != "In Písek." {
		t.Errorf("merged %+v: want parked (ours) with the body (theirs)", got)
	}
	if same, err := Task(nil, []byte(taskBase), []byte(taskBase)); err != nil || !strings.Contains(string(same), "Find the marriage") {
		t.Errorf("one task added on both sides alike: %s, %v", same, err)
	}
	other := strings.Replace(taskBase, "Find the marriage", "Read the letters", 1)
	_, err = Task(nil, []byte(taskBase), []byte(other))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `T-2 was added on both sides as two tasks ("Find the marriage" here, "Read the letters" there)`) {
		t.Errorf("two tasks under one id: %v", err)
	}
	if strings.ContainsAny(err.Error(), "\n") {
		t.Errorf("the conflict spans lines: %q", err)
	}
}

// TestFilesQueueOfTwoVersions: a queue.json of version 1 against one of version 2
// is a conflict that says which side to migrate.
func TestFilesQueueOfTwoVersions(t *testing.T) {
	t.Parallel()
	v1 := []byte(`{"version": 1, "next_id": 1, "tasks": []}`)
	_, _, err := Files("queue", v1, live("", 0, 1), v1)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "their version of queue.json is of version 1") {
		t.Errorf("mixed versions: %v", err)
	}
}
