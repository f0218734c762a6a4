package statefiles

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/messages"
)

// padded is data with spaces before it up to size bytes: still valid JSON.
func padded(data string, size int) []byte {
	return append(bytes.Repeat([]byte(" "), size-len(data)), data...)
}

// Every state file over FileMax is refused before it is read, with one sentence
// naming the file and the bound; the file is left as it is. At the bound it is read.
func TestFileBound(t *testing.T) {
	t.Parallel()
	task := `{"id":"T-1","title":"x","state":"open","created":"2026-11-30T09:00:00Z","updated":"2026-11-30T09:00:00Z"}`
	record := `{"version":1,"time":"2026-11-30T09:00:00Z","task":"T-1","text":"found it"}` + "\n"
	add := func(tr *Tree) error {
		_, err := tr.AddTask(context.Background(), func(id string) (Task, error) { return NewTask(id, "y", "", t0) })
		return err
	}
	appendRecord := func(tr *Tree) error {
		return tr.AppendProgress(context.Background(), Record{Time: t0, Task: "T-1", Text: "more"})
	}
	cases := []struct {
		file        string
		data        string
		load, write func(tr *Tree) error
	}{
		{QueueFile, `{"version":3,"next_id":2,"order":["T-1"]}`, func(tr *Tree) error { _, err := tr.LoadQueue(); return err }, add},
		{ShardFile("T-1"), `{"tasks":[` + task + `]}`, func(tr *Tree) error { _, err := tr.LoadQueue(); return err }, add},
		{ConfigFile, `{"version":1}`, func(tr *Tree) error { _, err := tr.TreeConfig().Load(); return err },
			func(tr *Tree) error { return tr.TreeConfig().Save(&Config{Version: 1}) }},
		{ParkFile, `{"version":1}`, func(tr *Tree) error { _, err := tr.LoadPark(); return err },
			func(tr *Tree) error { return tr.SavePark(&Park{Version: 1, Empty: map[string]int{"T-1": 1}}) }},
		{ModeFile, `{"version":1,"mode":"research"}`, func(tr *Tree) error { _, err := tr.LoadMode(); return err },
			func(tr *Tree) error { return tr.SaveMode(&Mode{Version: 1, Mode: ModeArchive}) }},
		{GatesDir + "/cap/" + HoldFile, `{"version":1}`, func(tr *Tree) error { _, err := tr.LoadHold("cap", &map[string]any{}); return err },
			func(tr *Tree) error { return tr.SaveHold("cap", map[string]any{"version": 1, "waiting": true}) }},
		{RecordsFile("T-1"), record, func(tr *Tree) error { _, err := tr.TaskRecords(context.Background(), "T-1"); return err }, appendRecord},
		{ProgressDir + "/000001.jsonl", record, func(tr *Tree) error { _, err := tr.LoadProgress(); return err }, appendRecord},
		{ProgressFile, record, func(tr *Tree) error { _, err := tr.LoadProgress(); return err }, appendRecord},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			if err := tr.SaveQueue(&Queue{Version: QueueVersion, NextID: 2, Tasks: []Task{{ID: "T-1", Title: "x", State: Open, Created: t0, Updated: t0}}}); err != nil {
				t.Fatal(err)
			}
			path := tr.Path(filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, padded(tc.data, FileMax), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.load(tr); err != nil {
				t.Fatalf("a file of FileMax bytes: %v", err)
			}
			over := padded(tc.data, FileMax+1)
			if strings.HasSuffix(tc.file, ".jsonl") {
				over = append([]byte(tc.data), bytes.Repeat([]byte("\n"), FileMax+1-len(tc.data))...)
			}
			if err := os.WriteFile(path, over, 0o644); err != nil {
				t.Fatal(err)
			}
			err := tc.load(tr)
			if !errors.Is(err, ErrTooBig) {
				t.Fatalf("err = %v, want ErrTooBig", err)
			}
			want := ".strom/" + tc.file + " is over strom's bound of 16 MiB for a file of the research's state, so strom does not read it"
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %q, want it to start %q", err, want)
			}
			if got := messages.For(messages.English).Text(err); got != err.Error() {
				t.Errorf("said %q, want the sentence alone, %q", got, err)
			}
			// A write that reads it first is refused, and the file stays.
			if err := tc.write(tr); !errors.Is(err, ErrTooBig) {
				t.Errorf("write: err = %v, want ErrTooBig", err)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, over) {
				t.Errorf("%s was written to", tc.file)
			}
		})
	}
}

// A write that would make a state file larger than FileMax is refused, and nothing
// is written: strom never writes a file it would refuse to read.
func TestFileBoundWrite(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	const size = 1 << 20
	body := strings.Repeat("a", size)
	// As many texts of 1 MiB as a file of a hundred holds, with the fields around
	// them; the next is refused.
	q := NewQueue()
	for range FileMax/size - 1 {
		if _, err := q.Add("x", body, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.SaveQueue(q); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(tr.Path(QueueFile))
	_, err := tr.AddTask(context.Background(), func(id string) (Task, error) { return NewTask(id, "x", body, t0) })
	if !errors.Is(err, ErrTooBig) {
		t.Fatalf("err = %v, want ErrTooBig", err)
	}
	want := ".strom/tasks/T-1-99.json would grow over strom's bound of 16 MiB"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start %q", err, want)
	}
	if after, _ := os.ReadFile(tr.Path(QueueFile)); !bytes.Equal(after, before) {
		t.Errorf("queue.json was written")
	}
	q, err = tr.LoadQueue()
	if err != nil || len(q.Tasks) != FileMax/size-1 {
		t.Fatalf("after the refusal: %v; want the %d tasks before", err, FileMax/size-1)
	}
}

// Each text is refused one past its bound, said with the bound and, when given,
// where it came from; a title's bound counts characters, not bytes.
func TestCheckInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind      TextKind
		at, over  string
		from, say string
	}{
		{TitleText, strings.Repeat("č", TitleMax), strings.Repeat("č", TitleMax+1), "", "the task's title is over strom's bound of 500 characters"},
		{TitleText, strings.Repeat("a", TitleMax), strings.Repeat("a", TitleMax+1), "--title", "the task's title (--title) is over strom's bound of 500 characters"},
		{BodyText, strings.Repeat("a", BodyMax), strings.Repeat("a", BodyMax+1), "--body-file notes.md", "the task's text (--body-file notes.md) is over strom's bound of 1 MiB"},
		{AnswerText, strings.Repeat("a", AnswerMax), strings.Repeat("a", AnswerMax+1), "", "the answer is over strom's bound of 1 MiB"},
		{RecordText, strings.Repeat("a", RecordMax), strings.Repeat("a", RecordMax+1), "", "the record is over strom's bound of 64 KiB"},
		{QuestionText, strings.Repeat("a", QuestionMax), strings.Repeat("a", QuestionMax+1), "", "the question is over strom's bound of 64 KiB"},
		{ReasonText, strings.Repeat("ř", ReasonMax), strings.Repeat("ř", ReasonMax+1), "--why", "the reason (--why) is over strom's bound of 500 characters"},
		{SummaryText, strings.Repeat("a", SummaryMax), strings.Repeat("a", SummaryMax+1), "", "the summary is over strom's bound of 4 KiB"},
		{SummaryText, strings.Repeat("a", SummaryMax), strings.Repeat("ř", SummaryMax/2+1), "--file s.md", "the summary (--file s.md) is over strom's bound of 4 KiB"},
		{NoteText, strings.Repeat("a", NoteMax), strings.Repeat("a", NoteMax+1), "", "the note is over strom's bound of 8 KiB"},
		{NoteText, strings.Repeat("a", NoteMax), strings.Repeat("a", NoteMax+1), "--file -", "the note (--file -) is over strom's bound of 8 KiB"},
	}
	for _, tc := range cases {
		if err := CheckInput(tc.kind, tc.at, tc.from); err != nil {
			t.Errorf("%s at its bound: %v", tc.kind, err)
		}
		err := CheckInput(tc.kind, tc.over, tc.from)
		if !errors.Is(err, ErrTooLong) || !strings.HasPrefix(err.Error(), tc.say+" — ") {
			t.Errorf("%s over its bound: err = %v, want ErrTooLong said as %q", tc.kind, err, tc.say)
		}
	}
	if err := CheckText(strings.Repeat("a", TitleMax+1), ""); !errors.Is(err, ErrTooLong) || !BadInput(err) {
		t.Errorf("CheckText of a long title: %v", err)
	}
	if err := CheckText("x", strings.Repeat("a", BodyMax+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("CheckText of a long text: %v", err)
	}
}

// Each text that is not UTF-8 is refused with one sentence that names it and,
// when given, where it came from: JSON would keep replacement characters instead.
func TestCheckInputNotUTF8(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind      TextKind
		from, say string
	}{
		{TitleText, "", "the task's title is not UTF-8 text"},
		{BodyText, "--body-file notes.md", "the task's text (--body-file notes.md) is not UTF-8 text"},
		{AnswerText, "", "the answer is not UTF-8 text"},
		{RecordText, "", "the record is not UTF-8 text"},
		{QuestionText, "", "the question is not UTF-8 text"},
		{ReasonText, "--why", "the reason (--why) is not UTF-8 text"},
		{SummaryText, "", "the task's summary is not UTF-8 text"},
		{NoteText, "--file n.md", "the research's note (--file n.md) is not UTF-8 text"},
	}
	for _, tc := range cases {
		if err := CheckInput(tc.kind, "Tábor \x1b[31m\n", tc.from); err != nil {
			t.Errorf("%s in UTF-8: %v", tc.kind, err)
		}
		err := CheckInput(tc.kind, "Caf\xe9", tc.from)
		if !errors.Is(err, ErrNotUTF8) || !BadInput(err) || !strings.HasPrefix(err.Error(), tc.say+" — ") {
			t.Errorf("%s not UTF-8: err = %v, want ErrNotUTF8 said as %q", tc.kind, err, tc.say)
		}
	}
	if err := CheckText("x", "Caf\xe9"); !errors.Is(err, ErrNotUTF8) {
		t.Errorf("CheckText of a text not UTF-8: %v", err)
	}
}

// A setting's text value that is not UTF-8 is refused; a refused value is
// repeated by its first 200 characters, on one line.
func TestParseSettingValue(t *testing.T) {
	t.Parallel()
	k, err := LookupKey("agent.command")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Parse("Caf\xe9"); !errors.Is(err, ErrNotUTF8) || !strings.HasPrefix(err.Error(), "the value of agent.command is not UTF-8 text — ") {
		t.Errorf("Parse of a value not UTF-8: %v", err)
	}
	m, _ := LookupKey("run.minutes")
	_, err = m.Parse(strings.Repeat("x", 120000) + "\n")
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), strings.Repeat("x", 200)+"…") {
		t.Errorf("Parse of a long bad value: %.400v", err)
	}
	if _, err := LookupKey(strings.Repeat("y", 120000)); err == nil || strings.Contains(err.Error(), strings.Repeat("y", 201)) {
		t.Errorf("LookupKey of a long name: %.400v", err)
	}
}

// An id not written as ids are is a bad value (ErrBadTaskID, still
// ErrUnknownTask); a well-written id of no task is only ErrUnknownTask.
func TestBadTaskID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", "nonsense", "T-0", "T--5", strings.Repeat("x", 120000)} {
		err := unknownTask(NormalizeID(id))
		if !errors.Is(err, ErrBadTaskID) || !errors.Is(err, ErrUnknownTask) || !BadInput(err) || len(err.Error()) > 400 {
			t.Errorf("unknownTask(%.20q) = %.400v, want ErrBadTaskID", id, err)
		}
	}
	for _, id := range []string{"T-7", "t-7", "7"} {
		err := unknownTask(NormalizeID(id))
		if errors.Is(err, ErrBadTaskID) || !errors.Is(err, ErrUnknownTask) || BadInput(err) {
			t.Errorf("unknownTask(%q) = %v, want only ErrUnknownTask", id, err)
		}
	}
}

// A note and a summary are written whole and read back as written; an empty one
// or one over its bound is refused and nothing is written; the note's file is
// valid under its schema.
func TestNoteAndSummary(t *testing.T) {
	t.Parallel()
	tree := At(t.TempDir())
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if n, err := tree.LoadNote(); n != nil || err != nil {
		t.Fatalf("a research without a note: %v, %v", n, err)
	}
	if _, err := tree.SaveNote("Sources: Brno.", now, "S-1"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{" \n", strings.Repeat("a", NoteMax+1)} {
		if _, err := tree.SaveNote(bad, now, ""); !BadInput(err) {
			t.Errorf("SaveNote(%d bytes) = %v, want a refusal", len(bad), err)
		}
	}
	n, err := tree.LoadNote()
	if err != nil || n.Text != "Sources: Brno." || !n.Updated.Equal(now) || n.Session != "S-1" {
		t.Fatalf("LoadNote = %+v, %v", n, err)
	}
	data, err := os.ReadFile(tree.Path(NoteFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(NoteFile, data); err != nil {
		t.Errorf("note.json is not valid: %v", err)
	}
	task, err := NewTask("T-1", "t", "", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.SetSummary(strings.Repeat("a", SummaryMax+1), now, ""); !errors.Is(err, ErrTooLong) || task.Summary != nil {
		t.Errorf("a summary over its bound: %v, %+v", err, task.Summary)
	}
	if err := task.SetSummary("", now, ""); !errors.Is(err, ErrEmpty) {
		t.Errorf("an empty summary: %v", err)
	}
	if err := task.SetSummary("1850 read.", now.Add(time.Hour), "S-2"); err != nil || task.Summary.Text != "1850 read." || !task.Updated.Equal(now.Add(time.Hour)) {
		t.Errorf("SetSummary: %v, %+v", err, task)
	}
	if _, err := EncodeShard([]Task{task}); err != nil {
		t.Errorf("a task with a summary is not a valid shard: %v", err)
	}
}
