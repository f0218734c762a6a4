package statefiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/schemas"
)

// The records live beside their tasks, in files of the same hundred ids:
// .strom/records/T-100-199.jsonl holds the records of T-100 to T-199, one JSON
// object a line (each valid against the progress schema), each task's lines in the
// order they were made. One task's records are one file, an append touches one
// file, and nothing is kept beside them: what a command reads follows its task,
// not the research's age, and a fresh clone costs what a warm one does.
//
// A research of an older strom has its records in segments (.strom/progress/
// 000001.jsonl, …) or in .strom/progress.jsonl. strom reads those as they are
// (the reading commands of a research not yet migrated) and moves their records
// into the files of a hundred, byte for byte, at the first write of records or
// state (migrateProgressLocked), which the harness commits on its own
// (Tree.OnMigrateProgress). Segments or a progress.jsonl that come back (a merge of
// a history an older strom wrote) are moved the same way by the next write, their
// records the files hold already left out.

const (
	// RecordsDir holds the records' files of a hundred.
	RecordsDir = "records"
	// ProgressDir held the record segments of an older strom.
	ProgressDir = "progress"
	recordsExt  = ".jsonl"
)

// RecordsFile names the file under .strom/ that holds the records of task id
// ("records/T-1200-1299.jsonl" for T-1234).
func RecordsFile(id string) string { return hundredFile(RecordsDir, recordsExt, idNumber(id)) }

// RecordsOfFile reports whether a path under .strom/ is a records' file of a
// hundred ("records/T-100-199.jsonl").
func RecordsOfFile(rel string) bool {
	_, _, ok := hundredOf(rel, RecordsDir, recordsExt)
	return ok
}

// recordsName is the first id of a records' file's name ("T-100-199.jsonl" is 100).
func recordsName(name string) (int, bool) {
	lo, _, ok := hundredOf(RecordsDir+"/"+name, RecordsDir, recordsExt)
	return lo, ok
}

// recordsSource reports whether a path under .strom/ holds records: a file of a
// hundred, a segment or progress.jsonl.
func recordsSource(rel string) bool {
	_, segment := SegmentOfFile(rel)
	return segment || rel == ProgressFile || RecordsOfFile(rel)
}

// SegmentOfFile returns the number of the segment of an older strom a path under
// .strom/ names ("progress/000042.jsonl" is 42); ok is false for any other path.
func SegmentOfFile(rel string) (n int, ok bool) {
	dir, name := path.Split(rel)
	if dir != ProgressDir+"/" {
		return 0, false
	}
	return segmentName(name)
}

// segmentName is the number of a segment's file name: six digits or more (no
// leading zero past the sixth), then .jsonl; 0 is no segment.
func segmentName(name string) (int, bool) {
	digits, ok := strings.CutSuffix(name, recordsExt)
	if !ok || len(digits) < 6 || (len(digits) > 6 && digits[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || fmt.Sprintf("%06d", n) != digits {
		return 0, false
	}
	return n, true
}

// Record is one line of the records: what an agent (or a person) wrote down about
// a task.
type Record struct {
	Version int       `json:"version"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Task    string    `json:"task"`
	Text    string    `json:"text"`
}

// legacy reports whether records of an older layout are there: segments or
// progress.jsonl.
func (t *Tree) legacy() bool {
	if _, err := os.Lstat(t.Path(ProgressFile)); err == nil {
		return true
	}
	if _, err := os.Lstat(t.Path(ProgressDir)); err != nil {
		return false
	}
	segs, err := t.filesIn(ProgressDir, segmentName)
	return err != nil || len(segs) > 0
}

// TaskRecords returns the records of one task, oldest first: the lines of its
// file of a hundred that are its own, each validated. It takes no lock: records
// are only appended to, and files are replaced whole.
func (t *Tree) TaskRecords(ctx context.Context, task string) ([]Record, error) {
	if err := t.settle(); err != nil {
		return nil, err
	}
	return t.TaskRecordsLocked(task)
}

// TaskRecordsLocked is TaskRecords for a caller that holds the lock.
func (t *Tree) TaskRecordsLocked(task string) ([]Record, error) {
	task = NormalizeID(task)
	if !validID(task) {
		return nil, nil
	}
	if t.legacy() {
		all, err := t.LoadProgress()
		var out []Record
		for _, r := range all {
			if r.Task == task {
				out = append(out, r)
			}
		}
		return out, err
	}
	rel := RecordsFile(task)
	data, err := readOptional(t.Path(rel))
	if err != nil {
		return nil, readError(t.rel(rel), err)
	}
	if err := lastLineWhole(t.rel(rel), data, 1); err != nil {
		return nil, err
	}
	quoted := []byte(`"` + task + `"`)
	var out []Record
	for n, line := range recordLines(data) {
		if !bytes.Contains(line, quoted) {
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, &SchemaError{File: t.rel(rel), Line: n, Rule: err.Error()}
		}
		if r.Task != task {
			continue
		}
		if err := validate(t.rel(rel), n, schemas.Progress, line); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// LoadProgress reads and validates every record: the files of a hundred in order
// of their ids (or an older layout's segments and progress.jsonl), the records
// then in the order they were made.
func (t *Tree) LoadProgress() ([]Record, error) {
	if err := t.settle(); err != nil {
		return nil, err
	}
	var recs []Record
	for _, src := range t.readSources() {
		if src.err != nil {
			return nil, readError(t.rel(src.file), src.err)
		}
		shown := t.rel(src.file)
		if err := checkProgress(shown, src.data); err != nil {
			return nil, err
		}
		if err := recordsInRange(shown, src.file, src.data, 1); err != nil {
			return nil, err
		}
		for n, line := range recordLines(src.data) {
			if src.skip[string(line)] > 0 {
				src.skip[string(line)]--
				continue
			}
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				return nil, &SchemaError{File: shown, Line: n, Rule: err.Error()}
			}
			recs = append(recs, r)
		}
	}
	slices.SortStableFunc(recs, func(a, b Record) int { return a.Time.Compare(b.Time) })
	return recs, nil
}

// CheckRecordFiles validates the records' files named (paths under .strom/: the
// ones changed since the last commit), each line; a file whose bytes were validated
// before costs a hash (memo.go). Other paths are left alone.
func (t *Tree) CheckRecordFiles(rels []string) error {
	for _, rel := range rels {
		if !recordsSource(rel) {
			continue
		}
		data, err := readOptional(t.Path(rel))
		if err != nil {
			return readError(t.rel(rel), err)
		}
		if err := checkProgress(t.rel(rel), data); err != nil {
			return err
		}
	}
	return nil
}

type readSource struct {
	file string         // under .strom/
	data []byte         // its bytes
	skip map[string]int // lines the sources before it hold already
	err  error          // the read's
}

// readSources reads every source of records: the files of a hundred, then an
// older strom's segments, then its progress.jsonl; the records of a later source
// that an earlier one holds are to be skipped (the same history merged twice).
func (t *Tree) readSources() []readSource {
	var out []readSource
	add := func(files []string) {
		var skip map[string]int // the lines of the sources before, shared by these
		if len(out) > 0 && len(files) > 0 {
			skip = map[string]int{}
			for _, s := range out {
				for _, l := range recordLines(s.data) {
					skip[string(l)]++
				}
			}
		}
		for _, file := range files {
			data, err := readOptional(t.Path(file))
			if data != nil || err != nil {
				out = append(out, readSource{file: file, data: data, skip: skip, err: err})
			}
		}
	}
	for _, dir := range []struct {
		rel    string
		number func(string) (int, bool)
	}{{RecordsDir, recordsName}, {ProgressDir, segmentName}} {
		files, err := t.filesIn(dir.rel, dir.number)
		if err != nil {
			return []readSource{{file: dir.rel, err: err}}
		}
		add(files)
	}
	add([]string{ProgressFile})
	return out
}

// lastLineWhole refuses records whose last line has no newline: a write cut
// short, or a hand edit. Their first line is the file's line first.
func lastLineWhole(shown string, data []byte, first int) error {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line := first + bytes.Count(data, []byte("\n"))
		return &SchemaError{File: shown, Line: line, Rule: "the last line has no newline: the file looks truncated"}
	}
	return nil
}

// checkLines validates records, each line against the progress schema; their
// first line is the file's line first.
func checkLines(shown string, data []byte, first int) error {
	if err := lastLineWhole(shown, data, first); err != nil {
		return err
	}
	for n, line := range recordLines(data) {
		if err := validate(shown, first-1+n, schemas.Progress, line); err != nil {
			return err
		}
	}
	return nil
}

// checkProgress validates every line of a records' file, unless its bytes were
// validated before (memo.go).
func checkProgress(shown string, data []byte) error {
	if err := lastLineWhole(shown, data, 1); err != nil {
		return err
	}
	s, ok := validated.known(schemas.Progress, data)
	if ok {
		return nil
	}
	if err := checkLines(shown, data, 1); err != nil {
		return err
	}
	validated.remember(s)
	return nil
}

// CheckProgressLines validates lines appended to the records of shown (a path
// like .strom/records/T-1-99.jsonl): data is what was added, first the number its
// first line has in the file. Each line of a file of a hundred must be of a task
// of that hundred. The pre-commit hook checks a file the commit only appended to
// this way.
func CheckProgressLines(shown string, data []byte, first int) error {
	if err := checkLines(shown, data, first); err != nil {
		return err
	}
	return recordsInRange(shown, strings.TrimPrefix(shown, DirName+"/"), data, first)
}

// validateProgressFile is Validate for the records' files: a file of a hundred,
// a segment or progress.jsonl; handled is false for any other file.
func validateProgressFile(rel, shown string, data []byte) (handled bool, err error) {
	if recordsSource(rel) {
		if err := checkProgress(shown, data); err != nil {
			return true, err
		}
		return true, recordsInRange(shown, rel, data, 1)
	}
	for _, dir := range []string{RecordsDir, ProgressDir} {
		if strings.HasPrefix(rel, dir+"/") && !strings.HasPrefix(path.Base(rel), ".tmp-") {
			return true, &SchemaError{File: shown, Rule: "only files of records named like T-100-199.jsonl belong in " + DirName + "/" + RecordsDir}
		}
	}
	return false, nil
}

// recordsInRange checks that every record of a file of a hundred (rel under
// .strom/; any other file passes) is of a task of that hundred; data's first
// line is the file's line first.
func recordsInRange(shown, rel string, data []byte, first int) error {
	if !RecordsOfFile(rel) {
		return nil
	}
	for n, line := range recordLines(data) {
		var r struct{ Task string }
		if json.Unmarshal(line, &r) == nil && RecordsFile(r.Task) != rel {
			return &SchemaError{File: shown, Line: first - 1 + n, Pointer: "/task", Rule: fmt.Sprintf("a record of %s belongs in %s/%s", r.Task, DirName, RecordsFile(r.Task))}
		}
	}
	return nil
}

// recordLines yields the non-blank lines of a records' file with their numbers,
// counted from 1.
func recordLines(data []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		n := 0
		for line := range bytes.Lines(data) {
			n++
			line = bytes.TrimSuffix(line, []byte("\n"))
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if !yield(n, line) {
				return
			}
		}
	}
}

// AppendProgress adds one record. It takes the lock and appends the line to its
// task's file with a single write, so concurrent writers lose nothing.
func (t *Tree) AppendProgress(ctx context.Context, r Record) error {
	return t.Locked(ctx, func() error { return t.AppendProgressLocked(r) })
}

// AppendProgressLocked is AppendProgress for a caller that holds the lock. It
// validates the new line; records of an older layout are moved first.
func (t *Tree) AppendProgressLocked(r Record) error {
	r.Version = 1
	r.Time = r.Time.UTC()
	r.Text = strings.TrimSpace(r.Text)
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if err := validate(t.rel(RecordsDir), 0, schemas.Progress, line); err != nil {
		return fmt.Errorf("refuse to write an invalid record: %w", err)
	}
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	rel := RecordsFile(r.Task)
	line = append(line, '\n')
	if err := t.wholeTail(rel, len(line)); err != nil {
		return err
	}
	if err := appendLine(t.Path(rel), line); err != nil {
		return fmt.Errorf("append to %s: %w", t.rel(rel), err)
	}
	return nil
}

// wholeTail refuses to append add bytes to a records' file whose last line has no
// newline (a write cut short, a hand edit: the new line would join it), or that
// they would take past FileMax.
func (t *Tree) wholeTail(rel string, add int) error {
	f, size, err := openFile(t.Path(rel), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return readError(t.rel(rel), err)
	}
	defer f.Close()
	if size+int64(add) > FileMax {
		return messages.Errorf(ErrTooBig, "files.too_big_write", messages.Args{"File": t.rel(rel), "Bound": boundText(FileMax, false)})
	}
	var last [1]byte
	if size == 0 {
		return nil
	}
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return fmt.Errorf("read %s: %w", t.rel(rel), err)
	}
	if last[0] == '\n' {
		return nil
	}
	data, err := ReadFile(t.Path(rel))
	if err != nil {
		return fmt.Errorf("read %s: %w", t.rel(rel), err)
	}
	return lastLineWhole(t.rel(rel), data, 1)
}

// appendLine appends b to the file at path (a regular file opened without
// following a link) with one write and syncs it, creating the file (and its
// folder) when missing.
func appendLine(path string, b []byte) error {
	failpoint()
	f, err := OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		failpoint()
		f, err = OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	failpoint()
	if err == nil {
		err = f.Sync()
		failpoint()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RenameTaskRecordsLocked gives the records of the tasks in ids (old id → new id)
// their new task id and moves them to the new id's file, after its own, in their
// order; every other line stays as it was, byte for byte. The files change
// together (journal.go). Hold the lock.
func (t *Tree) RenameTaskRecordsLocked(ids map[string]string) error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	files := map[string][]byte{} // by file: its bytes as they become
	read := func(rel string) ([]byte, error) {
		if b, ok := files[rel]; ok {
			return b, nil
		}
		b, err := readOptional(t.Path(rel))
		if err != nil {
			return nil, readError(t.rel(rel), err)
		}
		if err := checkProgress(t.rel(rel), b); err != nil {
			return nil, err
		}
		files[rel] = b
		return b, nil
	}
	// Each old file loses the lines of its renamed tasks; they go, renamed, to
	// the end of their new files in the order they had.
	olds := map[string]bool{}
	for old := range ids {
		olds[RecordsFile(old)] = true
	}
	changed := map[string][]byte{} // the files written: their new bytes, nil when none are left
	moved := map[string][]byte{}
	for _, rel := range slices.Sorted(maps.Keys(olds)) {
		data, err := read(rel)
		if err != nil {
			return err
		}
		var keep []byte
		for line := range bytes.Lines(data) {
			var r Record
			body := bytes.TrimSuffix(line, []byte("\n"))
			if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &r) == nil {
				if to, ok := ids[r.Task]; ok {
					r.Task = to
					b, err := json.Marshal(r)
					if err != nil {
						return fmt.Errorf("encode record: %w", err)
					}
					moved[RecordsFile(to)] = append(append(moved[RecordsFile(to)], b...), '\n')
					continue
				}
			}
			keep = append(keep, line...)
		}
		if len(keep) < len(data) {
			files[rel], changed[rel] = keep, keep
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(moved)) {
		data, err := read(rel)
		if err != nil {
			return err
		}
		changed[rel] = append(slices.Clone(data), moved[rel]...)
	}
	return t.writeFiles(changed)
}
