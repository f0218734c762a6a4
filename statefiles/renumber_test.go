package statefiles

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestRenameTaskRecords: the records of a renamed task get its new id; every
// other line stays byte for byte, and the index answers for the new id.
func TestRenameTaskRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newTree(t)
	other := `{"version":1,"time":"2026-11-30T09:00:00+00:00","task":"T-1","text":"written elsewhere"}` + "\n"
	writeSegment(t, tr, 1, other)
	for _, r := range []Record{{Time: t0, Session: "s1", Task: "T-2", Text: "one"}, {Time: t0, Task: "T-3", Text: "two"}, {Time: t0, Task: "T-2", Text: "three"}} {
		if err := tr.AppendProgress(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.TaskRecords(ctx, "T-2"); err != nil { // the index covers the file
		t.Fatal(err)
	}
	err := tr.Locked(ctx, func() error { return tr.RenameTaskRecordsLocked(map[string]string{"T-2": "T-5"}) })
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tr.Path(SegmentFile(1)))
	lines := strings.SplitAfter(string(data), "\n")
	if lines[0] != other || !strings.Contains(lines[1], `"task":"T-5","text":"one"`) || !strings.Contains(lines[2], `"task":"T-3"`) || !strings.Contains(lines[3], `"task":"T-5","text":"three"`) {
		t.Errorf("the segment after the rename:\n%s", data)
	}
	if recs, err := tr.TaskRecords(ctx, "T-5"); err != nil || len(recs) != 2 {
		t.Errorf("T-5's records: %v %v", recs, err)
	}
	if recs, err := tr.TaskRecords(ctx, "T-2"); err != nil || len(recs) != 0 {
		t.Errorf("T-2's records: %v %v", recs, err)
	}
}

// TestRenameRewritesOnlyItsSegments: a renumbering rewrites the segments that hold
// the renamed task's records and leaves the others as they are, file and all.
func TestRenameRewritesOnlyItsSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newTree(t)
	writeSegment(t, tr, 1, `{"version":1,"time":"2026-11-30T09:00:00Z","task":"T-1","text":"kept"}`+"\n")
	writeSegment(t, tr, 2, `{"version":1,"time":"2026-11-30T09:00:00Z","task":"T-2","text":"moved"}`+"\n")
	before, _ := os.Stat(tr.Path(SegmentFile(1)))
	err := tr.Locked(ctx, func() error { return tr.RenameTaskRecordsLocked(map[string]string{"T-2": "T-9"}) })
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(tr.Path(SegmentFile(1)))
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("segment 1, without T-2's records, was rewritten")
	}
	if data, _ := os.ReadFile(tr.Path(SegmentFile(2))); !strings.Contains(string(data), `"task":"T-9","text":"moved"`) {
		t.Errorf("segment 2 after the rename:\n%s", data)
	}
	if got := texts(t, tr, "T-9"); got != "moved" {
		t.Errorf("T-9 = %q", got)
	}
}
