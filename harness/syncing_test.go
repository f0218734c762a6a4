package harness

import (
	"testing"
	"time"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// TestStaleClaim: a started task's claim holds for the session limit plus
// StaleGrace from the time in its session id; only a synced run (pk.stale set)
// sees it grow stale.
func TestStaleClaim(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	fc := clock.NewFake(at)
	r := &Research{Clock: fc}
	synced := &picker{stale: 60*time.Minute + StaleGrace}
	started := statefiles.Task{ID: "T-1", State: statefiles.Started, Session: "20261130T090000Z-ab12", Host: "laptop", Updated: at.Add(-time.Hour)}
	cases := []struct {
		name  string
		after time.Duration
		task  statefiles.Task
		pk    *picker
		want  bool
	}{
		{"fresh", 30 * time.Minute, started, synced, false},
		{"at the limit plus the grace", 70 * time.Minute, started, synced, false},
		{"past it", 71 * time.Minute, started, synced, true},
		{"a clone alone", 5 * time.Hour, started, &picker{}, false},
		{"open", 5 * time.Hour, statefiles.Task{ID: "T-1", State: statefiles.Open}, synced, false},
		{"a session id without its time: the task's last change", 11 * time.Minute, statefiles.Task{ID: "T-1", State: statefiles.Started, Session: "s1", Updated: at.Add(-time.Hour)}, synced, true},
	}
	for _, c := range cases {
		fc.Set(at.Add(c.after))
		if got := r.staleClaim(c.pk, &c.task); got != c.want {
			t.Errorf("%s: stale = %v, want %v", c.name, got, c.want)
		}
		if got := r.takeable(c.pk, &c.task); got != (c.want || c.task.State == statefiles.Open) {
			t.Errorf("%s: takeable = %v", c.name, got)
		}
	}
}
