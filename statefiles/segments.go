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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/schemas"
)

// The records live in segments of bounded size: .strom/progress/000001.jsonl,
// 000002.jsonl, … (one JSON object a line, each line valid against the progress
// schema). All records in order are the segments in the order of their numbers,
// each one's lines in order. An append goes to the highest-numbered segment; when
// the new line would take that segment past SegmentLimit, it starts the next one.
// A segment is never rewritten, except by a renumbering (the records of a task
// that got a new id) and by a merge (the union of both sides' records). So what a
// session's commit hashes, stores and compresses is one segment of at most
// SegmentLimit bytes, however old the research is.
//
// Older researches have every record in .strom/progress.jsonl. strom reads it as it
// is (the reading commands of a research not yet migrated) and moves its records
// into segments at the first write of records or state (migrateProgressLocked),
// which the harness commits on its own (Tree.OnMigrateProgress). A progress.jsonl
// that appears again beside the segments (a merge from a history an older strom
// wrote) is read after the segments, its records that the segments hold already
// left out, and moved in the same way by the next write.

const (
	// ProgressDir holds the record segments.
	ProgressDir = "progress"
	// SegmentLimit is the size a segment does not pass by an append.
	SegmentLimit = 256 << 10
	segmentExt   = ".jsonl"
)

// SegmentFile names segment n under .strom/: "progress/000042.jsonl".
func SegmentFile(n int) string {
	return fmt.Sprintf("%s/%06d%s", ProgressDir, n, segmentExt)
}

// SegmentOfFile returns the number of the segment a path under .strom/ names
// ("progress/000042.jsonl" is 42); ok is false for any other path.
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
	digits, ok := strings.CutSuffix(name, segmentExt)
	if !ok || len(digits) < 6 || (len(digits) > 6 && digits[0] == '0') {
		return 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || fmt.Sprintf("%06d", n) != digits {
		return 0, false
	}
	return n, true
}

// segments lists the numbers of the segments in .strom/progress/, in order. Other
// files there (a write's temporary file) are not segments.
func (t *Tree) segments() ([]int, error) {
	files, err := t.filesIn(ProgressDir, segmentName)
	out := make([]int, len(files))
	for i, f := range files {
		out[i] = f.n
	}
	return out, err
}

// Segments returns the paths under .strom/ of the record segments, in order.
func (t *Tree) Segments() ([]string, error) {
	nums, err := t.segments()
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = SegmentFile(n)
	}
	return out, err
}

// sourceFile is the file under .strom/ of a source of records: segment n, or
// progress.jsonl for 0.
func sourceFile(n int) string {
	if n == 0 {
		return ProgressFile
	}
	return SegmentFile(n)
}

// LoadProgress reads and validates every record, in order: the segments, then the
// records of an older progress.jsonl the segments do not hold. None when there
// are none.
func (t *Tree) LoadProgress() ([]Record, error) {
	var recs []Record
	for _, src := range t.readSources() {
		if src.err != nil {
			return nil, readError(t.rel(src.file), src.err)
		}
		got, err := parseProgress(t.rel(src.file), src.data, src.skip)
		if err != nil {
			return nil, err
		}
		recs = append(recs, got...)
	}
	return recs, nil
}

type readSource struct {
	file string         // under .strom/
	data []byte         // its bytes
	skip map[string]int // lines the segments hold already (progress.jsonl beside them)
	err  error          // the read's
}

// readSources reads every source of records in order: each segment, then
// progress.jsonl.
func (t *Tree) readSources() []readSource {
	nums, err := t.segments()
	if err != nil {
		return []readSource{{file: ProgressDir, err: err}}
	}
	var out []readSource
	for _, n := range nums {
		data, err := readFile(t.Path(SegmentFile(n)))
		out = append(out, readSource{file: SegmentFile(n), data: data, err: err})
	}
	legacy, err := readOptional(t.Path(ProgressFile))
	if err != nil || legacy != nil {
		src := readSource{file: ProgressFile, data: legacy, err: err}
		if len(nums) > 0 {
			src.skip = heldLines(out)
		}
		out = append(out, src)
	}
	return out
}

// heldLines counts the record lines of the sources, by their bytes.
func heldLines(srcs []readSource) map[string]int {
	have := map[string]int{}
	for _, s := range srcs {
		for _, l := range progressLines(s.data) {
			have[string(l)]++
		}
	}
	return have
}

// parseProgress validates the file (checkProgress) and decodes the records, less
// those skip counts (each as often as it counts it).
func parseProgress(shown string, data []byte, skip map[string]int) ([]Record, error) {
	if err := checkProgress(shown, data); err != nil {
		return nil, err
	}
	var recs []Record
	for n, line := range progressLines(data) {
		if skip[string(line)] > 0 {
			skip[string(line)]--
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, &SchemaError{File: shown, Line: n, Rule: err.Error()}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// checkProgress validates every line of a segment (or progress.jsonl), unless its
// bytes were validated before (memo.go).
func checkProgress(shown string, data []byte) error {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line := bytes.Count(data, []byte("\n")) + 1
		return &SchemaError{File: shown, Line: line, Rule: "the last line has no newline: the file looks truncated"}
	}
	s, ok := validated.known(schemas.Progress, data)
	if ok {
		return nil
	}
	for n, line := range progressLines(data) {
		if err := validate(shown, n, schemas.Progress, line); err != nil {
			return err
		}
	}
	validated.remember(s)
	return nil
}

// CheckProgressLines validates lines appended to the records of shown: data is
// what was added, first the number its first line has in the file. The pre-commit
// hook checks a segment the commit only appended to this way.
func CheckProgressLines(shown string, data []byte, first int) error {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line := first + bytes.Count(data, []byte("\n"))
		return &SchemaError{File: shown, Line: line, Rule: "the last line has no newline: the file looks truncated"}
	}
	for n, line := range progressLines(data) {
		if err := validate(shown, first-1+n, schemas.Progress, line); err != nil {
			return err
		}
	}
	return nil
}

// validateProgressFile is Validate for the records' files: a segment or
// progress.jsonl; handled is false for any other file.
func validateProgressFile(rel, shown string, data []byte) (handled bool, err error) {
	if rel == ProgressFile {
		return true, checkProgress(shown, data)
	}
	if _, ok := SegmentOfFile(rel); ok {
		return true, checkProgress(shown, data)
	}
	if strings.HasPrefix(rel, ProgressDir+"/") && !strings.HasPrefix(path.Base(rel), ".tmp-") {
		return true, &SchemaError{File: shown, Rule: "only record segments named like 000001.jsonl belong in " + DirName + "/" + ProgressDir}
	}
	return false, nil
}

// progressLines yields the non-blank lines of a records file with their numbers,
// counted from 1.
func progressLines(data []byte) iter.Seq2[int, []byte] {
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

// AppendProgress adds one record. It takes the lock, checks the records as they
// stand, and appends the line with a single write, so concurrent writers lose
// nothing.
func (t *Tree) AppendProgress(ctx context.Context, r Record) error {
	return t.Locked(ctx, func() error { return t.AppendProgressLocked(r) })
}

// AppendProgressLocked is AppendProgress for a caller that holds the lock. It
// validates the new line and, through the index (progressindex.go), only what
// changed in the segments since strom last saw them; the index learns the new
// line. A research whose records are still in progress.jsonl is migrated first.
func (t *Tree) AppendProgressLocked(r Record) error {
	r.Version = 1
	r.Time = r.Time.UTC()
	r.Text = strings.TrimSpace(r.Text)
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if err := validate(t.rel(ProgressDir), 0, schemas.Progress, line); err != nil {
		return fmt.Errorf("refuse to write an invalid record: %w", err)
	}
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	st, err := t.progressIndexLocked()
	if err != nil {
		return err
	}
	line = append(line, '\n')
	seg, at := 1, 0 // the segment appended to, and where it is in st.Sources
	var was source
	if i := st.lastSegment(); i >= 0 {
		was, seg, at = st.Sources[i], st.Sources[i].Seg, i
		if was.Stamp.Size > 0 && was.Stamp.Size+int64(len(line)) > SegmentLimit {
			seg, was, at = seg+1, source{}, i+1
		}
	}
	if was.Seg == 0 {
		was = source{Seg: seg, Stamp: stamp{Tail: tailSum(nil)}}
	}
	file := SegmentFile(seg)
	if err := appendLine(t.Path(file), line); err != nil {
		return fmt.Errorf("append to %s: %w", t.rel(file), err)
	}
	// The index learns the line; if this stops half-way, or the segment holds more
	// than this append (someone wrote past the lock), the next use extends it.
	cur, err := stampOf(t.Path(file))
	if err != nil || cur.Size != was.Stamp.Size+int64(len(line)) || (was.Stamp.Size > 0 && cur.Ino != was.Stamp.Ino) {
		return nil
	}
	if err := t.addEntries(seg, map[string][]entry{r.Task: {{Seg: seg, Off: was.Stamp.Size, Len: len(line) - 1}}}); err != nil {
		return nil
	}
	next := source{Seg: seg, Stamp: cur, Lines: was.Lines + 1}
	made := was.Stamp.Size == 0 // a new segment: the folder changed
	if at < len(st.Sources) && st.Sources[at].Seg == seg {
		st.Sources[at] = next
	} else {
		st.Sources = slices.Insert(st.Sources, at, next)
	}
	if made {
		st.Folder = stamp{}
	}
	_ = t.noteAppend(st, next, made)
	return nil
}

// appendLine appends b to the file at path with one write and syncs it, creating
// the file (and its folder) when missing.
func appendLine(path string, b []byte) error {
	err := appendPlain(path, b, true, true)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(pathDir(path), 0o755); err != nil {
			return err
		}
		err = appendPlain(path, b, true, true)
	}
	return err
}

func pathDir(p string) string {
	i := strings.LastIndexByte(p, os.PathSeparator)
	if i < 0 {
		return "."
	}
	return p[:i]
}

// RenameTaskRecordsLocked gives the records of the tasks in ids (old id → new
// id) their new task id; every other line stays as it was, byte for byte. Only the
// segments that hold such records are read, checked and written (atomically).
// Hold the lock.
func (t *Tree) RenameTaskRecordsLocked(ids map[string]string) error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	st, err := t.progressIndexLocked()
	if err != nil {
		return err
	}
	segs := map[int]bool{}
	for old := range ids {
		list, ok, err := t.taskEntries(st, old)
		if err != nil {
			return err
		}
		if !ok {
			if st, err = t.rebuildProgressIndex(); err != nil {
				return err
			}
			if list, _, err = t.taskEntries(st, old); err != nil {
				return err
			}
		}
		for _, e := range list {
			segs[e.Seg] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(segs)) {
		if err := t.renameInFile(sourceFile(n), ids); err != nil {
			return err
		}
	}
	if len(segs) > 0 {
		_, err = t.progressIndexLocked()
	}
	return err
}

// renameInFile rewrites the records of one file whose tasks ids renames.
func (t *Tree) renameInFile(file string, ids map[string]string) error {
	data, err := readOptional(t.Path(file))
	if err != nil {
		return readError(t.rel(file), err)
	}
	if err := checkProgress(t.rel(file), data); err != nil {
		return err
	}
	out := make([]byte, 0, len(data))
	changed := false
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
				out, changed = append(append(out, b...), '\n'), true
				continue
			}
		}
		out = append(out, line...)
	}
	if !changed {
		return nil
	}
	return WriteAtomic(t.Path(file), out, 0o644)
}

// Record is one line of the records (.strom/progress/*.jsonl): what an agent (or a
// person) wrote down about a task.
type Record struct {
	Version int       `json:"version"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Task    string    `json:"task"`
	Text    string    `json:"text"`
}
