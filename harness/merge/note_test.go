package merge

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/strom-research/strom/statefiles"
)

func noteOf(t *testing.T, text string, at time.Time) []byte {
	t.Helper()
	data, err := json.MarshalIndent(statefiles.Note{Version: 1, Text: text, Updated: at}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// TestNote: the research's note merges as the side that rewrote it, or, when both
// did, as the one written later (ours on a tie); a side strom cannot read is a
// conflict.
func TestNote(t *testing.T) {
	t.Parallel()
	base := noteOf(t, "base", shardT0)
	early, late := noteOf(t, "early", shardT0.Add(time.Hour)), noteOf(t, "late", shardT0.Add(2*time.Hour))
	tie := noteOf(t, "tie", shardT0.Add(time.Hour))
	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               string
	}{
		{"only ours rewrote it", base, early, base, "early"},
		{"only theirs rewrote it", base, base, early, "early"},
		{"both, theirs later", base, early, late, "late"},
		{"both, ours later", base, late, early, "late"},
		{"both at one time: ours", base, early, tie, "early"},
		{"added on both sides", nil, early, late, "late"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, _, err := Files("note", tt.base, tt.ours, tt.theirs)
			if err != nil {
				t.Fatal(err)
			}
			var n statefiles.Note
			if err := json.Unmarshal(out, &n); err != nil || n.Text != tt.want {
				t.Errorf("merged note %q (%v), want %q", out, err, tt.want)
			}
		})
	}
	if _, _, err := Files("note", base, []byte("<<<<<<< ours\n"), late); !errors.Is(err, ErrConflict) {
		t.Errorf("a side with conflict markers merged: %v", err)
	}
}

// TestShardSummary: a task's summary both sides rewrote takes the one written
// later, even where the other side changed the task later for another reason.
func TestShardSummary(t *testing.T) {
	t.Parallel()
	one := openTask("T-1", "Find the baptism")
	ours, theirs := one, one
	if err := ours.SetSummary("ours, written later", shardT0.Add(2*time.Hour), "S-a"); err != nil {
		t.Fatal(err)
	}
	if err := theirs.SetSummary("theirs, written first", shardT0.Add(time.Hour), "S-b"); err != nil {
		t.Fatal(err)
	}
	// Theirs then parks the task, later than our summary.
	theirs.State, theirs.Reason, theirs.ParkedFrom, theirs.Updated = statefiles.Parked, "away", statefiles.Open, shardT0.Add(3*time.Hour)
	for _, order := range []struct {
		name     string
		a, b     statefiles.Task
		wantText string
	}{{"ours, theirs", ours, theirs, "ours, written later"}, {"theirs, ours", theirs, ours, "ours, written later"}} {
		out, _, err := Files("task", shardOf(t, one), shardOf(t, order.a), shardOf(t, order.b))
		if err != nil {
			t.Fatal(err)
		}
		got, err := statefiles.ParseShard("merged", statefiles.ShardFile("T-1"), out)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Summary == nil || got[0].Summary.Text != order.wantText || got[0].State != statefiles.Parked {
			t.Errorf("%s: merged T-1 %+v, want the later summary %q and the parking", order.name, got[0], order.wantText)
		}
	}
}
