package machines

import (
	"fmt"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/remote"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// TestStaleClaim: a started task's claim holds for the session limit plus
// StaleGrace from the time in its session id; only a synced run (Stale set)
// sees it grow stale.
func TestStaleClaim(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	fc := clock.NewFake(at)
	r := &research.Research{Clock: fc}
	synced := &Claims{Stale: 60*time.Minute + StaleGrace}
	started := statefiles.Task{ID: "T-1", State: statefiles.Started, Session: "20261130T090000Z-ab12", Host: "laptop", Updated: at.Add(-time.Hour)}
	cases := []struct {
		name  string
		after time.Duration
		task  statefiles.Task
		pk    *Claims
		want  bool
	}{
		{"fresh", 30 * time.Minute, started, synced, false},
		{"at the limit plus the grace", 70 * time.Minute, started, synced, false},
		{"past it", 71 * time.Minute, started, synced, true},
		{"a clone alone", 5 * time.Hour, started, &Claims{}, false},
		{"open", 5 * time.Hour, statefiles.Task{ID: "T-1", State: statefiles.Open}, synced, false},
		{"a session id without its time: the task's last change", 11 * time.Minute, statefiles.Task{ID: "T-1", State: statefiles.Started, Session: "s1", Updated: at.Add(-time.Hour)}, synced, true},
	}
	for _, c := range cases {
		fc.Set(at.Add(c.after))
		if got := staleClaim(r, c.pk, &c.task); got != c.want {
			t.Errorf("%s: stale = %v, want %v", c.name, got, c.want)
		}
		if got := c.pk.Takeable(r, &c.task); got != (c.want || c.task.State == statefiles.Open) {
			t.Errorf("%s: takeable = %v", c.name, got)
		}
	}
}

// TestTakeableHeld: an open task another machine's claim on the remote holds
// is not taken until the claim is older than the session limit plus StaleGrace;
// a task lost in this round of claiming is not taken; a task without a claim is.
func TestTakeableHeld(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	fc := clock.NewFake(at)
	r := &research.Research{Clock: fc}
	held := map[string]remote.Held{"T-1": {Task: "T-1", Commit: "c1", Host: "laptop", Session: "20261130T090000Z-ab12"}}
	open := func(id string) statefiles.Task { return statefiles.Task{ID: id, State: statefiles.Open} }
	cases := []struct {
		name  string
		after time.Duration
		task  statefiles.Task
		lost  map[string]bool
		want  bool
	}{
		{"claimed elsewhere", 30 * time.Minute, open("T-1"), nil, false},
		{"claimed elsewhere, past the limit plus the grace", 71 * time.Minute, open("T-1"), nil, true},
		{"no claim", 0, open("T-2"), nil, true},
		{"lost in this round", 0, open("T-2"), map[string]bool{"T-2": true}, false},
		{"no claim, done", 0, statefiles.Task{ID: "T-2", State: statefiles.Done}, nil, false},
	}
	for _, c := range cases {
		fc.Set(at.Add(c.after))
		pk := &Claims{Stale: 60*time.Minute + StaleGrace, held: held, lost: c.lost}
		if got := pk.Takeable(r, &c.task); got != c.want {
			t.Errorf("%s: takeable = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRenumbering: only tasks ours added under an id theirs added too, as
// another task, move; they get ids past every id and next_id of the three.
func TestRenumbering(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tk := func(id, title string, min int) statefiles.Task {
		return statefiles.Task{ID: id, Title: title, State: statefiles.Open, Created: at.Add(time.Duration(min) * time.Minute)}
	}
	q := func(next int, ts ...statefiles.Task) *statefiles.Queue {
		return &statefiles.Queue{Version: 1, NextID: next, Tasks: ts}
	}
	base := q(3, tk("T-1", "a", 0), tk("T-2", "b", 1))
	cases := []struct {
		name         string
		ours, theirs *statefiles.Queue
		want         string
		next         int
	}{
		{"none added on their side", q(5, tk("T-1", "a", 0), tk("T-2", "b", 1), tk("T-3", "c", 2), tk("T-4", "d", 3)), base, "map[]", 5},
		{"different ids", q(4, tk("T-1", "a", 0), tk("T-3", "c", 2)), q(5, tk("T-1", "a", 0), tk("T-2", "b", 1), tk("T-4", "x", 3)), "map[]", 5},
		{"the same task on both sides", q(4, tk("T-3", "c", 2)), q(4, tk("T-3", "c", 2)), "map[]", 4},
		{"two of ours meet theirs", q(6, tk("T-3", "c", 2), tk("T-4", "d", 3), tk("T-5", "e", 4)), q(8, tk("T-3", "x", 5), tk("T-4", "y", 6), tk("T-7", "z", 7)),
			"map[T-3:T-8 T-4:T-9]", 10},
	}
	for _, c := range cases {
		moves, next := renumbering(base, c.ours, c.theirs)
		if got := fmt.Sprint(moves); got != c.want || (len(moves) > 0 && next != c.next) {
			t.Errorf("%s: moves %s next %d, want %s next %d", c.name, got, next, c.want, c.next)
		}
	}
}
