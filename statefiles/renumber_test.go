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
