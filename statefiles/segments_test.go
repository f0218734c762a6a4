package statefiles

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func segmentsOf(t *testing.T, tr *Tree) []string {
	t.Helper()
	segs, err := tr.Segments()
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// allSegments is every segment's bytes, in order.
func allSegments(t *testing.T, tr *Tree) string {
	t.Helper()
	var b strings.Builder
	for _, s := range segmentsOf(t, tr) {
		data, err := os.ReadFile(tr.Path(s))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// recordLine is a record line as strom writes it, about size bytes long.
func recordLine(task string, i, size int) string {
	head := fmt.Sprintf(`{"version":1,"time":"2026-11-30T09:00:00Z","task":"%s","text":"%d `, task, i)
	return head + strings.Repeat("x", max(1, size-len(head)-3)) + `"}` + "\n"
}

// TestSegmentsRoll: an append that would take the last segment past SegmentLimit
// starts the next; all records in order are the segments in order, and a task's
// records come back from every segment.
func TestSegmentsRoll(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	text := strings.Repeat("Register 12, page 4: no baptism of Anna Novak. ", 60) // ~2.8 KB a record
	n := 2*SegmentLimit/len(text) + 10
	for i := range n {
		task := "T-1"
		if i%3 == 0 {
			task = "T-2"
		}
		appendRecs(t, tr, Record{Time: t0, Task: task, Text: fmt.Sprintf("%d %s", i, text)})
	}
	segs := segmentsOf(t, tr)
	if len(segs) != 3 || segs[0] != "progress/000001.jsonl" || segs[2] != "progress/000003.jsonl" {
		t.Fatalf("segments = %v, want three", segs)
	}
	for _, s := range segs {
		fi, _ := os.Stat(tr.Path(s))
		if fi.Size() > SegmentLimit {
			t.Errorf("%s has %d bytes, past %d", s, fi.Size(), SegmentLimit)
		}
	}
	recs, err := tr.LoadProgress()
	if err != nil || len(recs) != n {
		t.Fatalf("LoadProgress = %d records, %v; want %d", len(recs), err, n)
	}
	for i, r := range recs {
		if !strings.HasPrefix(r.Text, fmt.Sprintf("%d ", i)) {
			t.Fatalf("record %d is %.10q: out of order", i, r.Text)
		}
	}
	for _, task := range []string{"T-1", "T-2"} {
		got, err := tr.TaskRecords(t.Context(), task)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, r := range recs {
			if r.Task == task {
				if want < len(got) && got[want].Text != r.Text {
					t.Errorf("%s's record %d is %.10q, want %.10q", task, want, got[want].Text, r.Text)
				}
				want++
			}
		}
		if len(got) != want {
			t.Errorf("%s has %d records through the index, want %d", task, len(got), want)
		}
	}
	// The index rebuilt from nothing says the same.
	os.RemoveAll(tr.progressIndexPath())
	if got, err := tr.TaskRecords(t.Context(), "T-2"); err != nil || len(got) != (n+2)/3 {
		t.Errorf("T-2 after a rebuild: %d records, %v", len(got), err)
	}
}

// TestIndexNoticesEverySegment: a new segment from elsewhere, an append to an
// older one, a segment rewritten or removed: each is noticed and indexed.
func TestIndexNoticesEverySegment(t *testing.T) {
	t.Parallel()
	noticesEverySegment(t)
}

// TestIndexNoticesEverySegmentSettled is TestIndexNoticesEverySegment with the
// folder's stamps recorded (folderClock moved past folderSettled): each change is
// noticed without a listing of the folder the stamp does not ask for. Not
// parallel.
func TestIndexNoticesEverySegmentSettled(t *testing.T) {
	settled(t)
	tr := noticesEverySegment(t)
	if st, ok := tr.readProgressState(); !ok || st.Folder.Ino == 0 {
		t.Errorf("no folder stamp recorded: %+v", st.Folder)
	}
}

func noticesEverySegment(t *testing.T) *Tree {
	tr := newTree(t)
	line := func(task, text string) string {
		return `{"version":1,"time":"2026-11-30T10:00:00Z","task":"` + task + `","text":"` + text + `"}` + "\n"
	}
	writeSegment(t, tr, 1, line("T-1", "a")+line("T-2", "b"))
	writeSegment(t, tr, 2, line("T-1", "c"))
	if got := texts(t, tr, "T-1"); got != "a,c" {
		t.Fatalf("T-1 = %q, want a,c", got)
	}
	// Another machine's next segment, pulled.
	writeSegment(t, tr, 3, line("T-2", "d"))
	if got := texts(t, tr, "T-2"); got != "b,d" {
		t.Errorf("after a new segment T-2 = %q, want b,d", got)
	}
	// An append to an older segment (a merge of the same segment on two machines).
	f, _ := os.OpenFile(tr.Path(SegmentFile(1)), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line("T-2", "e"))
	f.Close()
	if got := texts(t, tr, "T-2"); got != "b,e,d" {
		t.Errorf("after an append to segment 1 T-2 = %q, want b,e,d", got)
	}
	// A segment rewritten (a renumbering): its records anew, the others kept.
	writeSegment(t, tr, 2, line("T-3", "c"))
	if got := texts(t, tr, "T-1"); got != "a" {
		t.Errorf("after a rewrite T-1 = %q, want a", got)
	}
	if got := texts(t, tr, "T-3"); got != "c" {
		t.Errorf("after a rewrite T-3 = %q, want c", got)
	}
	// A segment gone (a checkout of an older commit).
	os.Remove(tr.Path(SegmentFile(3)))
	if got := texts(t, tr, "T-2"); got != "b,e" {
		t.Errorf("after a segment is gone T-2 = %q, want b,e", got)
	}
	// A line broken in a segment: said with the segment and its line.
	writeSegment(t, tr, 2, line("T-3", "c")+line("task three", "x"))
	var se *SchemaError
	if err := tr.CheckProgress(t.Context()); !errors.As(err, &se) || se.File != ".strom/progress/000002.jsonl" || se.Line != 2 {
		t.Errorf("a broken line in segment 2 = %v", err)
	}
	return tr
}

// TestReindexReadsOnlyTheChangedSegment: when one segment changes otherwise than by
// an append, only it is validated again. The test breaks a line of another segment
// behind the index's back (brokenBehindIndex) to show that it was not read.
func TestReindexReadsOnlyTheChangedSegment(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	var one, two strings.Builder
	for i := range 100 {
		one.WriteString(recordLine("T-1", i, 120))
		two.WriteString(recordLine("T-2", i, 120))
	}
	writeSegment(t, tr, 1, one.String())
	writeSegment(t, tr, 2, two.String())
	if err := tr.CheckProgress(t.Context()); err != nil {
		t.Fatal(err)
	}
	brokenBehindIndex(t, tr, 1, strings.Replace(one.String(), `"version":1`, `"version":7`, 1))
	writeSegment(t, tr, 2, strings.Replace(two.String(), `"T-2"`, `"T-3"`, 1))
	if err := tr.CheckProgress(t.Context()); err != nil {
		t.Fatalf("the reindex read more than the changed segment: %v", err)
	}
	if recs, err := tr.TaskRecords(t.Context(), "T-3"); err != nil || len(recs) != 1 {
		t.Errorf("T-3 = %v, %v", recs, err)
	}
	if recs, err := tr.TaskRecords(t.Context(), "T-2"); err != nil || len(recs) != 99 {
		t.Errorf("T-2 has %d records, %v; want 99", len(recs), err)
	}
}

// TestValidateSegments: the pre-commit hook's Validate knows segments, and refuses
// another file in their folder.
func TestValidateSegments(t *testing.T) {
	t.Parallel()
	good := recordLine("T-1", 1, 100)
	if err := Validate("progress/000001.jsonl", []byte(good)); err != nil {
		t.Errorf("a good segment: %v", err)
	}
	var se *SchemaError
	if err := Validate("progress/000002.jsonl", []byte(good+"{}\n")); !errors.As(err, &se) || se.Line != 2 || se.File != ".strom/progress/000002.jsonl" {
		t.Errorf("a bad segment: %v", err)
	}
	for _, name := range []string{"progress/1.jsonl", "progress/notes.txt", "progress/0000001.jsonl", "progress/000000.jsonl"} {
		if err := Validate(name, []byte(good)); !errors.As(err, &se) || !strings.Contains(err.Error(), "only record segments named like 000001.jsonl") {
			t.Errorf("Validate(%s) = %v", name, err)
		}
	}
	if err := Validate("progress/.tmp-000001.jsonl-123", nil); err != nil {
		t.Errorf("a write's temporary file: %v", err)
	}
	for name, want := range map[string]int{"progress/000042.jsonl": 42, "progress/1000000.jsonl": 1000000, "progress.jsonl": 0, "x/000001.jsonl": 0} {
		if n, _ := SegmentOfFile(name); n != want {
			t.Errorf("SegmentOfFile(%s) = %d, want %d", name, n, want)
		}
	}
}

// TestMigrateProgress: the records of progress.jsonl move into segments byte for
// byte and in order, at the first write; reading leaves the file as it is; a
// migration whose commit fails is undone.
func TestMigrateProgress(t *testing.T) {
	t.Parallel()
	var old strings.Builder
	for i := range 3000 { // ~600 KB: three segments
		old.WriteString(recordLine(fmt.Sprintf("T-%d", i%7+1), i, 200))
		if i == 5 {
			old.WriteString("\n") // a blank line by hand stays
		}
	}
	legacy := old.String()
	tr := newTree(t)
	os.WriteFile(tr.Path(ProgressFile), []byte(legacy), 0o644)

	// Reading: nothing changes.
	recs, err := tr.LoadProgress()
	if err != nil || len(recs) != 3000 {
		t.Fatalf("LoadProgress of progress.jsonl = %d, %v", len(recs), err)
	}
	if got := len(strings.Split(texts(t, tr, "T-3"), ",")); got != 429 {
		t.Errorf("T-3 has %d records in progress.jsonl, want 429", got)
	}
	if segs := segmentsOf(t, tr); len(segs) != 0 {
		t.Fatalf("a read made segments %v", segs)
	}

	// A commit that fails: put back as it was.
	tr.OnMigrateProgress = func(int) error { return errors.New("no commit") }
	if err := tr.AppendProgress(t.Context(), Record{Time: t0, Task: "T-1", Text: "new"}); err == nil || !strings.Contains(err.Error(), "no commit") {
		t.Fatalf("append with a failing migration = %v", err)
	}
	if now, _ := os.ReadFile(tr.Path(ProgressFile)); string(now) != legacy {
		t.Error("progress.jsonl not put back")
	}
	if segs := segmentsOf(t, tr); len(segs) != 0 {
		t.Errorf("segments left after a failed migration: %v", segs)
	}

	var migrated int
	tr.OnMigrateProgress = func(n int) error { migrated = n; return nil }
	if err := tr.AppendProgress(t.Context(), Record{Time: t0, Task: "T-1", Text: "new"}); err != nil {
		t.Fatal(err)
	}
	if migrated != 3000 {
		t.Errorf("OnMigrateProgress told %d records, want 3000", migrated)
	}
	if _, err := os.Stat(tr.Path(ProgressFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("progress.jsonl is still there")
	}
	all := allSegments(t, tr)
	if !strings.HasPrefix(all, legacy) || strings.Count(all[len(legacy):], "\n") != 1 || !strings.Contains(all[len(legacy):], `"text":"new"`) {
		t.Errorf("the segments are not progress.jsonl and the new record")
	}
	for _, s := range segmentsOf(t, tr) {
		if fi, _ := os.Stat(tr.Path(s)); fi.Size() > SegmentLimit {
			t.Errorf("%s has %d bytes", s, fi.Size())
		}
	}
	if got := len(strings.Split(texts(t, tr, "T-3"), ",")); got != 429 {
		t.Errorf("T-3 has %d records in the segments, want 429", got)
	}
	if got := texts(t, tr, "T-1"); !strings.HasSuffix(got, ",new") {
		t.Errorf("T-1's last record is not the new one")
	}
}

// TestProgressBesideSegments: a progress.jsonl beside the segments (a merge from a
// history an older strom wrote) is read after them, less the records they hold,
// and the next write moves in only those.
func TestProgressBesideSegments(t *testing.T) {
	t.Parallel()
	a, b, c := recordLine("T-1", 1, 90), recordLine("T-2", 2, 90), recordLine("T-1", 3, 90)
	tr := newTree(t)
	writeSegment(t, tr, 1, a+b)
	os.WriteFile(tr.Path(ProgressFile), []byte(a+b+c), 0o644)
	recs, err := tr.LoadProgress()
	if err != nil || len(recs) != 3 {
		t.Fatalf("LoadProgress = %d records, %v; want 3", len(recs), err)
	}
	if got := texts(t, tr, "T-1"); !strings.HasPrefix(got, "1 x") || !strings.Contains(got, ",3 x") || strings.Count(got, ",") != 1 {
		t.Errorf("T-1 = %q", got)
	}
	var migrated int
	tr.OnMigrateProgress = func(n int) error { migrated = n; return nil }
	if err := tr.SavePark(&Park{Version: 1}); err != nil {
		t.Fatal(err)
	}
	if migrated != 1 {
		t.Errorf("moved %d records, want 1", migrated)
	}
	if got := allSegments(t, tr); got != a+b+c {
		t.Errorf("segments after the move:\n%s", got)
	}
	if got := strings.Count(texts(t, tr, "T-1"), ","); got != 1 {
		t.Errorf("T-1 has %d records after the move, want 2", got+1)
	}
}

// brokenBehindIndex writes data to segment seg and gives the index's state the new
// file's stamp, as if the index had covered it: no editor can do that (the change
// time moves with every write), so a command that reads the segment anyway shows
// that it did not trust the index.
func brokenBehindIndex(t *testing.T, tr *Tree, seg int, data string) {
	t.Helper()
	path := tr.Path(SegmentFile(seg))
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	st, ok := tr.readProgressState()
	if !ok {
		t.Fatal("no index state")
	}
	for i := range st.Sources {
		if st.Sources[i].Seg == seg {
			st.Sources[i].Stamp, _ = stampOf(path)
		}
	}
	if err := tr.writeProgressState(tr.progressIndexPath(progressIndexState), st); err != nil {
		t.Fatal(err)
	}
}
