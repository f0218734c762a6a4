package statefiles

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func appendRecs(t *testing.T, tr *Tree, recs ...Record) {
	t.Helper()
	for _, r := range recs {
		if err := tr.AppendProgress(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
}

// writeSegment writes segment n as someone else would (a pull, a hand edit).
func writeSegment(t testing.TB, tr *Tree, n int, data string) {
	t.Helper()
	if err := os.MkdirAll(tr.Path(ProgressDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr.Path(SegmentFile(n)), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func texts(t *testing.T, tr *Tree, task string) string {
	t.Helper()
	recs, err := tr.TaskRecords(t.Context(), task)
	if err != nil {
		t.Fatalf("records of %s: %v", task, err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return strings.Join(out, ",")
}

// TestTaskRecordsThroughTheIndex: a task's records come back in order, whatever
// happened to the index or the file in between.
func TestTaskRecordsThroughTheIndex(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	if got := texts(t, tr, "T-1"); got != "" {
		t.Fatalf("no file: %q", got)
	}
	appendRecs(t, tr,
		Record{Time: t0, Task: "T-1", Text: "a"},
		Record{Time: t0, Task: "T-2", Text: "b"},
		Record{Time: t0, Task: "T-1", Text: "c"})
	if got := texts(t, tr, "T-1"); got != "a,c" {
		t.Errorf("T-1 = %q, want a,c", got)
	}
	if got := texts(t, tr, "t-2"); got != "b" {
		t.Errorf("T-2 = %q, want b", got)
	}
	if got := texts(t, tr, "../T-1"); got != "" {
		t.Errorf("a name that is no id found %q", got)
	}

	// Lines appended by someone else (a pull, a shell): validated and indexed.
	line := `{"version":1,"time":"2026-11-30T10:00:00Z","task":"T-2","text":"d"}` + "\n"
	f, err := os.OpenFile(tr.Path(SegmentFile(1)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line)
	f.Close()
	if got := texts(t, tr, "T-2"); got != "b,d" {
		t.Errorf("after an outside append T-2 = %q, want b,d", got)
	}

	// The index is gone: rebuilt.
	if err := os.RemoveAll(tr.progressIndexPath()); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, tr, "T-1"); got != "a,c" {
		t.Errorf("after a rebuild T-1 = %q, want a,c", got)
	}

	// The file rewritten by hand (records moved and removed): rebuilt.
	data, _ := os.ReadFile(tr.Path(SegmentFile(1)))
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(tr.Path(SegmentFile(1)), []byte(lines[2]+lines[1]), 0o644)
	if got := texts(t, tr, "T-1"); got != "c" {
		t.Errorf("after a rewrite T-1 = %q, want c", got)
	}
	if got := texts(t, tr, "T-2"); got != "b" {
		t.Errorf("after a rewrite T-2 = %q, want b", got)
	}
}

// TestIndexAfterAnAppendCutShort: an append that wrote its line and the task's entry
// but not the index's state (strom killed in between) leaves no duplicate.
func TestIndexAfterAnAppendCutShort(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "a"})
	state, err := os.ReadFile(tr.progressIndexPath(progressIndexState))
	if err != nil {
		t.Fatal(err)
	}
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "b"})
	os.WriteFile(tr.progressIndexPath(progressIndexState), state, 0o644) // the state of before b
	if got := texts(t, tr, "T-1"); got != "a,b" {
		t.Errorf("T-1 = %q, want a,b", got)
	}
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "c"})
	if got := texts(t, tr, "T-1"); got != "a,b,c" {
		t.Errorf("T-1 = %q, want a,b,c", got)
	}
}

// TestIndexFindsEveryBrokenLine: whatever way a bad line gets into the file, the
// index reports it with its line number and an append refuses to write.
func TestIndexFindsEveryBrokenLine(t *testing.T) {
	t.Parallel()
	good := `{"version":1,"time":"2026-11-30T10:00:00Z","task":"T-1","text":"ok"}` + "\n"
	bad := `{"version":1,"time":"2026-11-30T10:00:00Z","task":"task one","text":"no"}` + "\n"
	for name, c := range map[string]struct {
		before, after string
		line          int
	}{
		"appended":            {good, good + good + bad, 3},
		"edited in place":     {good + good, good + bad, 2},
		"cut short":           {good, good + good[:20], 2},
		"replaced, same size": {good, strings.Replace(good, `"ok"`, `"o\`, 1), 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			writeSegment(t, tr, 1, c.before)
			if err := tr.CheckProgress(t.Context()); err != nil {
				t.Fatal(err)
			}
			writeSegment(t, tr, 1, c.after)
			var se *SchemaError
			if err := tr.CheckProgress(t.Context()); !errors.As(err, &se) || se.Line != c.line {
				t.Errorf("check = %v, want a SchemaError on line %d", err, c.line)
			}
			err := tr.AppendProgress(t.Context(), Record{Time: t0, Task: "T-1", Text: "new"})
			if !errors.As(err, &se) {
				t.Errorf("append to a broken file = %v, want a SchemaError", err)
			}
			if now, _ := os.ReadFile(tr.Path(SegmentFile(1))); string(now) != c.after {
				t.Error("the broken file was written to")
			}
		})
	}
}

// TestAppendReadsOnlyWhatChanged: with the index fresh, an append validates its own
// line and not the file's others. The test breaks a covered line behind the index's
// back (brokenBehindIndex) to show that the append did not read it; any ordinary
// change is found, TestIndexFindsEveryBrokenLine.
func TestAppendReadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	var recs []Record
	for i := range 200 {
		recs = append(recs, Record{Time: t0, Task: "T-2", Text: strings.Repeat("x", 40) + string(rune('a'+i%26))})
	}
	appendRecs(t, tr, recs...)
	path := tr.Path(SegmentFile(1))
	data, _ := os.ReadFile(path)
	brokenBehindIndex(t, tr, 1, strings.Replace(string(data), `"version":1`, `"version":7`, 1))
	if err := tr.AppendProgress(t.Context(), Record{Time: t0, Task: "T-1", Text: "new"}); err != nil {
		t.Fatalf("the append read more than the new line: %v", err)
	}
	if got := texts(t, tr, "T-1"); got != "new" {
		t.Errorf("T-1 = %q, want new", got)
	}
}

// TestDamagedIndexRebuilt: a task's list that names places holding no record of
// the task (a damaged index) is noticed when read, and the index built again.
func TestDamagedIndexRebuilt(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "a"}, Record{Time: t0, Task: "T-2", Text: "b"})
	if err := os.WriteFile(tr.progressIndexPath("T-1"), []byte("1 3 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, tr, "T-1"); got != "a" {
		t.Errorf("T-1 with a damaged index = %q, want a", got)
	}
	if list, _ := os.ReadFile(tr.progressIndexPath("T-1")); string(list) != "1 0 "+strconv.Itoa(len(recordOf(t, tr, 0)))+"\n" {
		t.Errorf("T-1's list after the rebuild: %q", list)
	}
}

// recordOf is line n (from 0) of segment 1, without its newline.
func recordOf(t *testing.T, tr *Tree, n int) string {
	t.Helper()
	data, err := os.ReadFile(tr.Path(SegmentFile(1)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")[n]
}
