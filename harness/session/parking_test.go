package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// TestCountForParking: which session endings count toward the two park rules, and
// what clears them.
func TestCountForParking(t *testing.T) {
	t.Parallel()
	type step struct {
		end     ends.End
		records int
		state   statefiles.State // the task's state after the session
		screen  string
		// notStarted: the agent's shell could not start its program
		notStarted bool
	}
	closed := step{end: ends.EndClosed, records: 1, state: statefiles.Open}
	cases := []struct {
		name       string
		limit      int
		steps      []step
		unfinished int    // the count left in park.json
		parked     string // the reason, "" = not parked
	}{
		{"records and closes until the limit", 3, []step{closed, closed, closed}, 0, "3 sessions without finishing"},
		{"below the limit", 3, []step{closed, closed}, 2, ""},
		{"0 is no limit", 0, []step{closed, closed, closed, closed}, 4, ""},
		{"the time limit and a failing agent count", 3, []step{{end: ends.EndTimeLimit, records: 1}, {end: ends.EndAgentFailed, records: 1}, closed}, 0, "3 sessions without finishing"},
		{"waiting clears the count", 3, []step{closed, closed, {end: ends.EndWaiting, state: statefiles.Waiting}, closed}, 1, ""},
		{"done clears the count", 2, []step{closed, {end: ends.EndDone, records: 1, state: statefiles.Done}}, 0, ""},
		{"a person's stop leaves it", 3, []step{closed, {end: ends.EndStoppedByHand}, {end: ends.EndFinishRequested, records: 1}, closed}, 2, ""},
		{"limits, login and crashes leave it", 3, []step{closed, {end: ends.EndSubscriptionLimit}, {end: ends.EndNotLoggedIn}, {end: ends.EndCrashed}, closed}, 2, ""},
		{"a screen for a person leaves it", 3, []step{closed, {end: ends.EndAgentFailed, screen: "trust this folder"}, closed}, 2, ""},
		{"a program the shell could not start leaves it", 3, []step{closed, {end: ends.EndAgentFailed, notStarted: true}, {end: ends.EndAgentFailed, notStarted: true}, closed}, 2, ""},
		{"the empty rule parks first", 10, []step{{end: ends.EndClosed}, {end: ends.EndClosed}}, 0, "2 sessions in a row recorded nothing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, statefiles.DirName, statefiles.RunDir), 0o755); err != nil {
				t.Fatal(err)
			}
			tree, err := statefiles.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			r := &research.Research{Tree: tree, Clock: clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))}
			task := &statefiles.Task{ID: "T-1", Title: "x", State: statefiles.Open}
			var res SessionResult
			for _, st := range tc.steps {
				task.State = st.state
				if task.State == "" {
					task.State = statefiles.Open
				}
				res = SessionResult{Task: "T-1", End: st.end, Records: st.records, Screen: st.screen, NotStarted: st.notStarted}
				if err := countForParking(r, task, &res, agents.SessionPlan{SessionsPerTask: tc.limit}); err != nil {
					t.Fatal(err)
				}
				if task.State == statefiles.Parked {
					break
				}
			}
			park, err := tree.LoadPark()
			if err != nil {
				t.Fatal(err)
			}
			if got := park.Unfinished["T-1"]; got != tc.unfinished {
				t.Errorf("unfinished = %d, want %d", got, tc.unfinished)
			}
			if res.ParkReason != tc.parked || (tc.parked != "") != (task.State == statefiles.Parked) || (tc.parked != "" && task.Reason != tc.parked) {
				t.Errorf("parked %q (task %s %q), want %q", res.ParkReason, task.State, task.Reason, tc.parked)
			}
		})
	}
}
