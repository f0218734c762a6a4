package statefiles

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The fuzz targets of the state files: every file strom reads from the research
// repo (or the user's settings). For any bytes:
//   - the read and Validate (the pre-commit hook's check) agree;
//   - a refusal is a *SchemaError naming the file, in one line;
//   - what was read is written back by strom's own writer without complaint (the Go
//     types and the schemas agree), and reads back equal; a second write changes no
//     byte.
// The seed corpus under testdata/fuzz holds files as strom writes them and hand
// edits.

// stateFile is how one state file is read and written.
type stateFile struct {
	rel  string // under .strom/
	load func(*Tree) (any, error)
	save func(*Tree, any) error
	// other, when set, names inputs another target covers (the queue.json of
	// another version).
	other func([]byte) bool
}

func fuzzStateFile(f *testing.F, sf stateFile, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if sf.other != nil && sf.other(data) {
			t.Skip("another target's input")
		}
		tr := fuzzTree(t)
		path := tr.Path(filepath.FromSlash(sf.rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := sf.load(tr)
		verr := Validate(sf.rel, data)
		if (err == nil) != (verr == nil) {
			t.Fatalf("read says %v, Validate says %v for %q", err, verr, data)
		}
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) || se.File != ".strom/"+sf.rel {
				t.Fatalf("refusal %v of %q is no SchemaError naming .strom/%s", err, data, sf.rel)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("refusal of %q spans lines: %q", data, err)
			}
			return
		}
		other := fuzzTree(t)
		if err := sf.save(other, v); err != nil {
			t.Fatalf("what was read from %q is not written back: %v", data, err)
		}
		written, err := os.ReadFile(other.Path(filepath.FromSlash(sf.rel)))
		if err != nil && !errors.Is(err, os.ErrNotExist) { // no records, no file
			t.Fatal(err)
		}
		if err := unmemoized(func() error { return Validate(sf.rel, written) }); written != nil && err != nil {
			t.Fatalf("written %q is not valid: %v", written, err)
		}
		back, err := sf.load(other)
		if err != nil {
			t.Fatalf("written %q does not read back: %v", written, err)
		}
		if diff := cmp.Diff(v, back, cmpopts.EquateEmpty(), cmpopts.EquateApproxTime(0), cmp.Comparer(sameJSON), cmpopts.IgnoreUnexported(Queue{})); diff != "" {
			t.Fatalf("read %q, written %q, read back (-first +again):\n%s", data, written, diff)
		}
		third := fuzzTree(t)
		if err := sf.save(third, back); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(third.Path(filepath.FromSlash(sf.rel))); string(again) != string(written) {
			t.Fatalf("a second write changed bytes:\n%q\n%q", written, again)
		}
	})
}

// unmemoized runs fn with a memo that knows nothing, so that every validation fn
// asks for is done: what strom writes goes to the memo unvalidated where its code
// makes it valid, and these tests hold that code to the schemas. Only for the
// fuzz targets, which run after the parallel tests.
func unmemoized(fn func() error) error {
	saved := validated
	validated = &memo{where: func() string { return "" }}
	defer func() { validated = saved }()
	return fn()
}

// sameJSON compares raw JSON by what it holds, not by its layout.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}

// fuzzTree is an empty research folder: no queue, no other file.
func fuzzTree(t *testing.T) *Tree {
	tr := At(t.TempDir())
	if err := os.MkdirAll(filepath.Join(tr.Dir, RunDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return tr
}

const fuzzQueue = `{
  "version": 1,
  "next_id": 4,
  "tasks": [
    {"id": "T-1", "title": "Find the baptism of Anna Novak", "body": "Parish of Tábor, around 1850.", "state": "done", "created": "2026-11-30T09:00:00Z", "updated": "2026-11-30T10:00:00Z"},
    {"id": "T-2", "title": "Find the marriage", "state": "parked", "reason": "needs the 1850 register", "parked_from": "open", "created": "2026-11-30T09:00:00+01:00", "updated": "2026-11-30T09:00:00Z"},
    {"id": "T-3", "title": "Which Anna?", "state": "started", "session": "20261130T091204Z-4f2a", "added_by": "20261130T091204Z-4f2a", "created": "2026-11-30T09:00:00Z", "updated": "2026-11-30T09:00:00Z"}
  ]
}
`

// FuzzQueue reads queue.json of version 1 (every task in the file) and writes it
// back as strom writes the queue now (an order and the tasks in files of a
// hundred). The order file of version 2 and 3 is FuzzOrder's.
func FuzzQueue(f *testing.F) {
	fuzzStateFile(f, stateFile{QueueFile,
		func(tr *Tree) (any, error) {
			q, err := tr.LoadQueue()
			if err == nil { // the done tasks come after the others, as version 4 keeps them
				slices.SortStableFunc(q.Tasks, func(a, b Task) int {
					if (a.State == Done) != (b.State == Done) {
						return map[bool]int{true: 1, false: -1}[a.State == Done]
					}
					if a.State == Done {
						return idNumber(a.ID) - idNumber(b.ID)
					}
					return 0
				})
			}
			return q, err
		},
		func(tr *Tree, v any) error { return tr.SaveQueue(v.(*Queue)) },
		func(data []byte) bool { return QueueVersionOf(data) >= 2 },
	}, fuzzQueue, `{"version": 1, "next_id": 1, "tasks": []}`, `{"version": 1, "next_id": 1, "tasks": [{"id": "T-1"}, {"id": "T-1"}]}`, `{"version": 1`)
}

// normalRecords are records as AppendProgress writes them.
func normalRecords(recs []Record) []Record {
	out := make([]Record, len(recs))
	for i, r := range recs {
		r.Version, r.Time, r.Text = 1, r.Time.UTC(), strings.TrimSpace(r.Text)
		out[i] = r
	}
	return out
}

const fuzzTask = `{
  "id": "T-3",
  "title": "Which Anna?",
  "body": "Born 1850 or 1852.",
  "state": "waiting",
  "created": "2026-11-30T09:00:00Z",
  "updated": "2026-11-30T09:30:00+01:00",
  "added_by": "20261130T091204Z-4f2a",
  "needs": ["parish-tabor"],
  "questions": [
    {"question": "which Anna Novak: born 1850 or 1852?", "asked": "2026-11-30T09:20:00Z", "session": "20261130T091204Z-4f2a"},
    {"question": "may we see the registers?", "asked": "2026-11-30T09:25:00Z", "answer": "yes, on Tuesdays", "answered": "2026-11-30T09:28:00Z"}
  ]
}
`

// FuzzTask reads one task's file of version 2, .strom/tasks/T-3.json (a research
// not migrated yet, a history): its id must be its name.
func FuzzTask(f *testing.F) {
	fuzzStateFile(f, stateFile{TaskFile("T-3"),
		func(tr *Tree) (any, error) {
			data, err := os.ReadFile(tr.Path(TaskFile("T-3")))
			if err != nil {
				return nil, err
			}
			return ParseTask(tr.rel(TaskFile("T-3")), TaskFile("T-3"), data)
		},
		func(tr *Tree, v any) error {
			data, err := EncodeTask(v.(*Task))
			if err != nil {
				return err
			}
			os.MkdirAll(tr.Path(TasksDir), 0o755)
			return os.WriteFile(tr.Path(TaskFile("T-3")), data, 0o644)
		},
		nil,
	}, fuzzTask, strings.Replace(fuzzTask, `"T-3"`, `"T-4"`, 1), `{"id": "T-3", "title": "x", "state": "parked", "created": "2026-11-30T09:00:00Z", "updated": "2026-11-30T09:00:00Z"}`, `{"id": "T-3"`)
}

// FuzzShard reads a file of a hundred tasks, .strom/tasks/T-1-99.json: the schemas,
// and every id in the file's range, sorted, none twice.
func FuzzShard(f *testing.F) {
	const rel = TasksDir + "/T-1-99.json"
	five := strings.Replace(fuzzTask, `"T-3"`, `"T-5"`, 1)
	fuzzStateFile(f, stateFile{rel,
		func(tr *Tree) (any, error) {
			s, err := tr.readShard(rel)
			if err != nil {
				return nil, err
			}
			return s.tasks, nil
		},
		func(tr *Tree, v any) error { _, _, err := tr.writeShard(rel, v.([]Task), nil, true); return err },
		nil,
	}, `{"tasks": [`+fuzzTask+`, `+five+`]}`,
		`{"tasks": [`+five+`, `+fuzzTask+`]}`,
		`{"tasks": [`+fuzzTask+`, `+fuzzTask+`]}`,
		`{"tasks": [`+strings.Replace(fuzzTask, `"T-3"`, `"T-103"`, 1)+`]}`,
		`{"tasks": []}`, `{"tasks": [{"id": "T-3"}]}`, `{"tasks": [`)
}

// FuzzOrder reads queue.json of version 4, the tasks not done and the count of
// the done: for any bytes ParseOrder and Validate agree, a refusal is one line
// naming the file, and what was read is written back, reads back equal, and a
// second write changes no byte. (What spans queue.json and the tasks' files is
// CheckFiles's and reconcile's, tested apart.)
func FuzzOrder(f *testing.F) {
	for _, s := range []string{
		"{\n  \"version\": 4,\n  \"next_id\": 4,\n  \"done\": 1,\n  \"tasks\": [\n    \"T-3 open\",\n    \"T-2 parked\"\n  ]\n}\n",
		`{"version": 4, "next_id": 1, "done": 0, "tasks": []}`,
		`{"version": 4, "next_id": 2, "done": 0, "tasks": ["T-5 open", "T-5 open"]}`,
		`{"version": 4, "next_id": 2, "done": 0, "tasks": ["T-05 open"]}`,
		`{"version": 4, "next_id": 2, "done": 0, "tasks": ["T-5 done"]}`,
		`{"version": 4, "next_id": 1, "done": -1, "tasks": []}`,
		`{"version": 5, "next_id": 1, "done": 0, "tasks": []}`,
		`{"version": 4`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if v := QueueVersionOf(data); v >= 1 && v < QueueVersion {
			t.Skip("an older layout: FuzzQueue's and the migration's")
		}
		const shown = ".strom/" + QueueFile
		// Any order EncodeOrder takes is written as the schema and marshal say.
		var loose orderFile
		if json.Unmarshal(data, &loose) == nil {
			lo := &Order{NextID: loose.NextID, Done: loose.Done}
			for _, l := range loose.Tasks {
				id, st, _ := strings.Cut(l, " ")
				lo.Live = append(lo.Live, Entry{ID: id, State: State(st)})
			}
			if b, err := EncodeOrder(lo); err == nil {
				if err := unmemoized(func() error { return Validate(QueueFile, b) }); err != nil {
					t.Fatalf("%q written from %q is not valid: %v", b, data, err)
				}
				lines := make([]string, len(lo.Live))
				for i, e := range lo.Live {
					lines[i] = e.ID + " " + string(e.State)
				}
				if m, _ := marshal(orderFile{lo.Version, lo.NextID, lo.Done, lines}); string(m) != string(b) {
					t.Fatalf("written %q, marshal writes %q", b, m)
				}
			}
		}
		o, err := ParseOrder(shown, data)
		verr := Validate(QueueFile, data)
		if (err == nil) != (verr == nil) {
			t.Fatalf("ParseOrder says %v, Validate says %v for %q", err, verr, data)
		}
		if err != nil {
			var se *SchemaError
			if !errors.Is(err, ErrNewerStrom) && (!errors.As(err, &se) || se.File != shown) {
				t.Fatalf("refusal %v of %q is no SchemaError naming %s", err, data, shown)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("refusal of %q spans lines: %q", data, err)
			}
			return
		}
		written, err := EncodeOrder(o)
		if err != nil {
			t.Fatalf("what was read from %q is not written back: %v", data, err)
		}
		back, err := ParseOrder(shown, written)
		if err != nil {
			t.Fatalf("written %q does not read back: %v", written, err)
		}
		if diff := cmp.Diff(o, back, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Order{})); diff != "" {
			t.Fatalf("read %q, written %q, read back (-first +again):\n%s", data, written, diff)
		}
		if again, _ := EncodeOrder(back); string(again) != string(written) {
			t.Fatalf("a second write changed bytes:\n%q\n%q", written, again)
		}
	})
}

// FuzzProgress reads a file of records, .strom/records/T-1-99.jsonl, and appends
// what it read to another research's records.
func FuzzProgress(f *testing.F) {
	fuzzStateFile(f, stateFile{RecordsFile("T-1"),
		func(tr *Tree) (any, error) {
			recs, err := tr.LoadProgress()
			return normalRecords(recs), err
		},
		func(tr *Tree, v any) error {
			for _, r := range v.([]Record) {
				if err := tr.AppendProgress(context.Background(), r); err != nil {
					return err
				}
			}
			return nil
		},
		nil,
	},
		`{"version":1,"time":"2026-11-30T09:12:04Z","session":"20261130T091204Z-4f2a","task":"T-12","text":"Register 12, page 4: Anna, born 3 March 1850."}`+"\n"+
			`{"version":1,"time":"2026-11-30T10:00:00+01:00","task":"T-1","text":"by hand"}`+"\n\n",
		`{"version":1,"time":"2026-11-30T09:12:04Z","task":"T-12","text":"cut`,
		"")
}

func FuzzPark(f *testing.F) {
	fuzzStateFile(f, stateFile{ParkFile,
		func(tr *Tree) (any, error) { return tr.LoadPark() },
		func(tr *Tree, v any) error { return tr.SavePark(v.(*Park)) },
		nil,
	}, `{"version": 1, "empty": {"T-1": 2}}`, `{"version": 1}`, `{"version": 1, "empty": {"task": 1}}`)
}

func FuzzMode(f *testing.F) {
	fuzzStateFile(f, stateFile{ModeFile,
		func(tr *Tree) (any, error) { return tr.LoadMode() },
		func(tr *Tree, v any) error { return tr.SaveMode(v.(*Mode)) },
		nil,
	}, `{"version": 1, "mode": "archive", "changed": "2026-11-30T09:00:00Z"}`, `{"version": 1, "mode": "research"}`, `{"version": 1, "mode": "holiday"}`)
}

func FuzzHold(f *testing.F) {
	fuzzStateFile(f, stateFile{GatesDir + "/claude-usage/" + HoldFile,
		func(tr *Tree) (any, error) {
			var v map[string]any
			_, err := tr.LoadHold("claude-usage", &v)
			return v, err
		},
		func(tr *Tree, v any) error { return tr.SaveHold("claude-usage", v) },
		nil,
	}, `{"version": 1, "week_resets_at": "2026-12-04T09:07:00Z", "waiting": true}`, `{"version": 1}`, `{}`)
}

func FuzzConfig(f *testing.F) {
	fuzzStateFile(f, stateFile{ConfigFile,
		func(tr *Tree) (any, error) { return tr.TreeConfig().Load() },
		func(tr *Tree, v any) error { return tr.TreeConfig().Save(v.(*Config)) },
		nil,
	}, `{"version": 1, "settings": {"run.minutes": 30, "agent.name": "command", "agent.command": "./agent.sh"}}`,
		`{"version": 1, "settings": {"run.minutes": 30.0}}`, `{"version": 1, "settings": {"run.minutes": 3}}`,
		`{"version": 1, "agents": {"mine": {"command": ["./mine"]}}}`)
}

// FuzzTaskRecords reads a file of records, .strom/records/T-1-99.jsonl, as a
// task's reader does (TaskRecords: its own lines only) and whole (LoadProgress):
// where the whole file reads, each task's records are exactly its lines of the
// whole, in their order; where a task's reader refuses, so does the whole.
func FuzzTaskRecords(f *testing.F) {
	f.Add([]byte(`{"version":1,"time":"2026-11-30T09:12:04Z","session":"20261130T091204Z-4f2a","task":"T-12","text":"Register 12"}` + "\n" +
		`{"version":1,"time":"2026-11-30T09:00:00Z","task":"T-1","text":"by hand, \"T-12\""}` + "\n" +
		`{"version":1,"time":"2026-11-30T10:00:00Z","task":"T-12","text":"later"}` + "\n"))
	f.Add([]byte(`{"version":1,"time":"2026-11-30T09:12:04Z","task":"T-1","text":"x"}` + "\n" + `{"task":"T-12"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := fuzzTree(t)
		path := tr.Path(filepath.FromSlash(RecordsFile("T-1")))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		all, err := tr.LoadProgress()
		for _, task := range []string{"T-1", "T-12", "T-99"} {
			got, terr := tr.TaskRecords(t.Context(), task)
			if terr != nil {
				if err == nil {
					t.Fatalf("%s's records refused (%v) where the whole file reads, %q", task, terr, data)
				}
				continue
			}
			if err != nil {
				continue
			}
			var want []Record
			for _, r := range all {
				if r.Task == task {
					want = append(want, r)
				}
			}
			sorted := append([]Record(nil), got...)
			slicesSortStableByTime(sorted)
			if diff := cmp.Diff(want, sorted, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s's records differ from the whole file's for %q (-whole +task):\n%s", task, data, diff)
			}
		}
	})
}

func slicesSortStableByTime(recs []Record) {
	slices.SortStableFunc(recs, func(a, b Record) int { return a.Time.Compare(b.Time) })
}
