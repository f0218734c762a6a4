package statefiles

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// The index of progress.jsonl lives in .strom/run/progress/ (never committed): a
// file per task listing where its records are in progress.jsonl ("offset length"
// lines), and a state file saying which version of progress.jsonl the index covers
// (its stamp, stamp.go) and how many lines that is. With it, a session's prompt and
// the agent's `strom task` read one task's records and a `strom record` validates
// only its own line, whatever the size of the file.
//
// The index is built from the committed file and checked against it on every use:
//   - the stamp is the file's: the index is used as it is;
//   - the file grew and the bytes the index covered end as they did (an append by a
//     strom that stopped before it updated the index, a pull, `>>` by hand): only
//     the new lines are validated and indexed;
//   - anything else (the file is missing, shorter, edited, or the index is missing,
//     from another schema or unreadable): the whole file is validated (or found in
//     the memo) and the index rebuilt.
//
// Records are read back from progress.jsonl itself, so the index holds no text and
// can never show a record the file does not have. A task's list may end with an
// entry past the covered size (written by an append that stopped before its state
// did) or repeat one (indexed again after that): readers skip both.

const (
	progressIndexDir     = "progress"
	progressIndexState   = "state.json"
	progressIndexVersion = 1
)

// isTaskID reports whether s is a task id as the schemas have it (T-1, T-12, …):
// ids name the index's files.
func isTaskID(s string) bool {
	n, ok := strings.CutPrefix(s, "T-")
	if !ok || n == "" || n[0] == '0' {
		return false
	}
	for _, c := range []byte(n) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

type progressState struct {
	Version int    `json:"version"`
	Schema  string `json:"schema"` // the progress schema's sum: another strom rebuilds
	Stamp   stamp  `json:"stamp"`
	Lines   int    `json:"lines"` // lines in the covered bytes, for error messages
}

func (t *Tree) progressIndexPath(elem ...string) string {
	return t.Path(append([]string{RunDir, progressIndexDir}, elem...)...)
}

func progressSchemaSum() string {
	s, _ := schemaSum(schemas.Progress)
	return hex.EncodeToString(s[:])
}

// readProgressState returns the index's state; ok is false when there is none this
// strom can use.
func (t *Tree) readProgressState() (progressState, bool) {
	b, err := os.ReadFile(t.progressIndexPath(progressIndexState))
	if err != nil {
		return progressState{}, false
	}
	var st progressState
	if json.Unmarshal(b, &st) != nil || st.Version != progressIndexVersion || st.Schema != progressSchemaSum() {
		return progressState{}, false
	}
	return st, true
}

// freshProgressIndex returns the index's state when it covers progress.jsonl as it
// stands.
func (t *Tree) freshProgressIndex() (progressState, bool) {
	st, ok := t.readProgressState()
	if !ok {
		return st, false
	}
	cur, err := stampOf(t.Path(ProgressFile))
	if err != nil || cur != st.Stamp {
		return st, false
	}
	return st, true
}

// progressIndex returns a fresh index, bringing it up to date under the lock when
// it is not.
func (t *Tree) progressIndex(ctx context.Context) (progressState, error) {
	if st, ok := t.freshProgressIndex(); ok {
		return st, nil
	}
	var st progressState
	err := t.Locked(ctx, func() error {
		var err error
		st, err = t.progressIndexLocked()
		return err
	})
	return st, err
}

// progressIndexLocked brings the index up to progress.jsonl as it stands, validating
// what it had not covered; an invalid file is a *SchemaError. Hold the lock.
func (t *Tree) progressIndexLocked() (progressState, error) {
	st, ok := t.readProgressState()
	f, err := os.Open(t.Path(ProgressFile))
	if errors.Is(err, os.ErrNotExist) {
		return t.rebuildProgressIndex(nil, stamp{Tail: tailSum(nil)})
	}
	if err != nil {
		return st, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return st, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	cur := stamp{Ino: inode(fi), Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if cur.Tail, err = tailAt(f, cur.Size); err != nil {
		return st, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	if ok && cur == st.Stamp {
		return st, nil
	}
	if ok && cur.Ino == st.Stamp.Ino && cur.Size > st.Stamp.Size {
		if was, err := tailAt(f, st.Stamp.Size); err == nil && was == st.Stamp.Tail {
			return t.extendProgressIndex(f, st, cur)
		}
	}
	data := make([]byte, cur.Size)
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return st, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	return t.rebuildProgressIndex(data, cur)
}

// extendProgressIndex validates and indexes the lines past what st covers.
func (t *Tree) extendProgressIndex(f *os.File, st progressState, cur stamp) (progressState, error) {
	data := make([]byte, cur.Size-st.Stamp.Size)
	if _, err := f.ReadAt(data, st.Stamp.Size); err != nil && !errors.Is(err, io.EOF) {
		return st, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	entries, lines, err := t.indexLines(data, st.Stamp.Size, st.Lines, true)
	if err != nil {
		return st, err
	}
	for task, list := range entries {
		if err := appendTo(t.progressIndexPath(task), list); err != nil {
			return st, err
		}
	}
	next := progressState{Version: progressIndexVersion, Schema: progressSchemaSum(), Stamp: cur, Lines: lines}
	return next, t.writeProgressState(t.progressIndexPath(progressIndexState), next)
}

// rebuildProgressIndex validates the whole file and writes a new index in place of
// the old one.
func (t *Tree) rebuildProgressIndex(data []byte, cur stamp) (progressState, error) {
	if err := checkProgress(t.rel(ProgressFile), data); err != nil {
		return progressState{}, err
	}
	entries, lines, err := t.indexLines(data, 0, 0, false)
	if err != nil {
		return progressState{}, err
	}
	run := t.Path(RunDir)
	if err := os.MkdirAll(run, 0o755); err != nil {
		return progressState{}, fmt.Errorf("index %s: %w", t.rel(ProgressFile), err)
	}
	tmp, err := os.MkdirTemp(run, ".tmp-"+progressIndexDir+"-*")
	if err != nil {
		return progressState{}, fmt.Errorf("index %s: %w", t.rel(ProgressFile), err)
	}
	defer os.RemoveAll(tmp)
	for task, list := range entries {
		if err := os.WriteFile(filepath.Join(tmp, task), list, 0o644); err != nil {
			return progressState{}, fmt.Errorf("index %s: %w", t.rel(ProgressFile), err)
		}
	}
	st := progressState{Version: progressIndexVersion, Schema: progressSchemaSum(), Stamp: cur, Lines: lines}
	if err := t.writeProgressState(filepath.Join(tmp, progressIndexState), st); err != nil {
		return st, err
	}
	// A reader between the two steps finds no index, takes the lock and waits for
	// this one.
	dir := t.progressIndexPath()
	if err := os.RemoveAll(dir); err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressFile), err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressFile), err)
	}
	return st, nil
}

// indexLines validates the lines of data, which starts at byte offset and line
// number line of progress.jsonl (when check is set: a rebuild validated the whole
// file before), and returns each task's entries and the line count at the end of data.
func (t *Tree) indexLines(data []byte, offset int64, line int, check bool) (map[string][]byte, int, error) {
	shown := t.rel(ProgressFile)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n := line + bytes.Count(data, []byte("\n")) + 1
		return nil, 0, &SchemaError{File: shown, Line: n, Rule: "the last line has no newline: the file looks truncated"}
	}
	entries := map[string][]byte{}
	pos := offset
	for l := range bytes.Lines(data) {
		line++
		start := pos
		pos += int64(len(l))
		l = bytes.TrimSuffix(l, []byte("\n"))
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if check {
			if err := validate(shown, line, schemas.Progress, l); err != nil {
				return nil, 0, err
			}
		}
		var r struct {
			Task string `json:"task"`
		}
		if err := json.Unmarshal(l, &r); err != nil || !isTaskID(r.Task) {
			return nil, 0, &SchemaError{File: shown, Line: line, Rule: "the record names no task"}
		}
		entries[r.Task] = append(entries[r.Task], entryLine(start, len(l))...)
	}
	return entries, line, nil
}

func entryLine(offset int64, n int) []byte {
	return []byte(strconv.FormatInt(offset, 10) + " " + strconv.Itoa(n) + "\n")
}

func appendTo(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("index progress: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("index progress: %w", err)
	}
	return f.Close()
}

func (t *Tree) writeProgressState(path string, st progressState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("index progress: %w", err)
	}
	if err := WriteTransient(path, append(b, '\n')); err != nil {
		return fmt.Errorf("index progress: %w", err)
	}
	return nil
}

// TaskRecords returns the records of one task, oldest first, read through the index:
// what they cost does not depend on how many other records the file holds.
func (t *Tree) TaskRecords(ctx context.Context, task string) ([]Record, error) {
	st, err := t.progressIndex(ctx)
	if err != nil {
		return nil, err
	}
	recs, ok, err := t.taskRecords(st, task)
	if err != nil || ok {
		return recs, err
	}
	// The index and the file disagree: build it again, once.
	err = t.Locked(ctx, func() error {
		os.Remove(t.progressIndexPath(progressIndexState))
		if st, err = t.progressIndexLocked(); err != nil {
			return err
		}
		recs, ok, err = t.taskRecords(st, task)
		return err
	})
	if err == nil && !ok {
		err = fmt.Errorf("read %s: the index in %s does not match it", t.rel(ProgressFile), t.rel(RunDir, progressIndexDir))
	}
	return recs, err
}

// TaskRecordsLocked is TaskRecords for a caller that holds the lock.
func (t *Tree) TaskRecordsLocked(task string) ([]Record, error) {
	st, err := t.progressIndexLocked()
	if err != nil {
		return nil, err
	}
	recs, ok, err := t.taskRecords(st, task)
	if err != nil || ok {
		return recs, err
	}
	os.Remove(t.progressIndexPath(progressIndexState))
	if st, err = t.progressIndexLocked(); err != nil {
		return nil, err
	}
	recs, ok, err = t.taskRecords(st, task)
	if err == nil && !ok {
		err = fmt.Errorf("read %s: the index in %s does not match it", t.rel(ProgressFile), t.rel(RunDir, progressIndexDir))
	}
	return recs, err
}

// CheckProgress validates progress.jsonl as it stands through the index: only what
// changed since the index last saw it costs anything.
func (t *Tree) CheckProgress(ctx context.Context) error {
	_, err := t.progressIndex(ctx)
	return err
}

// CheckProgressLocked is CheckProgress for a caller that holds the lock.
func (t *Tree) CheckProgressLocked() error {
	_, err := t.progressIndexLocked()
	return err
}

// taskRecords reads a task's records at the places the index names; ok is false
// when a place does not hold a record of the task.
func (t *Tree) taskRecords(st progressState, task string) (recs []Record, ok bool, err error) {
	task = NormalizeID(task)
	if !isTaskID(task) {
		return nil, true, nil
	}
	list, err := os.ReadFile(t.progressIndexPath(task))
	if errors.Is(err, os.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the index of %s: %w", t.rel(ProgressFile), err)
	}
	f, err := os.Open(t.Path(ProgressFile))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	defer f.Close()
	last := int64(-1)
	var offsets []int64
	var lengths []int
	for l := range bytes.Lines(list) {
		off, n, found := bytes.Cut(bytes.TrimSpace(l), []byte(" "))
		o, err1 := strconv.ParseInt(string(off), 10, 64)
		ln, err2 := strconv.Atoi(string(n))
		if !found || err1 != nil || err2 != nil || o < 0 || ln <= 0 {
			return nil, false, nil
		}
		if o <= last || o+int64(ln) > st.Stamp.Size {
			continue // indexed twice, or past what the index covers
		}
		last = o
		offsets, lengths = append(offsets, o), append(lengths, ln)
	}
	buf := make([]byte, 0, 512)
	for i, o := range offsets {
		buf = slices.Grow(buf[:0], lengths[i])[:lengths[i]]
		if _, err := f.ReadAt(buf, o); err != nil {
			return nil, false, nil
		}
		var r Record
		if json.Unmarshal(buf, &r) != nil || r.Task != task {
			return nil, false, nil
		}
		recs = append(recs, r)
	}
	return recs, true, nil
}
