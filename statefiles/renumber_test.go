package statefiles

import (
	"context"
	"os"
	"strings"
	"testing"
)

// texts is a task's records' texts, joined by "|".
func texts(t *testing.T, tr *Tree, task string) string {
	t.Helper()
	recs, err := tr.TaskRecords(t.Context(), task)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return strings.Join(out, "|")
}

// TestRenameTaskRecords: the records of a renamed task get its new id and follow
// it to its file, in their order; every other line stays byte for byte, and a file
// that holds none of them is not written.
func TestRenameTaskRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newTree(t)
	other := `{"version":1,"time":"2026-11-30T09:00:00+00:00","task":"T-1","text":"written elsewhere"}` + "\n"
	if err := os.MkdirAll(tr.Path(RecordsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr.Path(RecordsFile("T-1")), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{{Time: t0, Session: "s1", Task: "T-2", Text: "one"}, {Time: t0, Task: "T-3", Text: "two"},
		{Time: t0, Task: "T-2", Text: "three"}, {Time: t0, Task: "T-4", Text: "four"}, {Time: t0, Task: "T-250", Text: "far"}} {
		if err := tr.AppendProgress(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	far, _ := os.Stat(tr.Path(RecordsFile("T-250")))
	err := tr.Locked(ctx, func() error { return tr.RenameTaskRecordsLocked(map[string]string{"T-2": "T-5", "T-4": "T-150"}) })
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tr.Path(RecordsFile("T-1")))
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) != 5 || lines[0] != other || !strings.Contains(lines[1], `"task":"T-3","text":"two"`) ||
		!strings.Contains(lines[2], `"task":"T-5","text":"one"`) || !strings.Contains(lines[3], `"task":"T-5","text":"three"`) {
		t.Errorf("T-1-99 after the rename:\n%s", data)
	}
	if got := texts(t, tr, "T-5"); got != "one|three" {
		t.Errorf("T-5 = %q", got)
	}
	if got := texts(t, tr, "T-2") + texts(t, tr, "T-4"); got != "" {
		t.Errorf("the old ids keep %q", got)
	}
	if got := texts(t, tr, "T-150"); got != "four" {
		t.Errorf("T-150 = %q", got)
	}
	if now, _ := os.Stat(tr.Path(RecordsFile("T-250"))); !os.SameFile(far, now) || !now.ModTime().Equal(far.ModTime()) {
		t.Error("T-200-299, without a renamed task's records, was written")
	}
	if err := Validate(RecordsFile("T-150"), mustRead(t, tr.Path(RecordsFile("T-150")))); err != nil {
		t.Error(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
