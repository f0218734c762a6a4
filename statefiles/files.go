package statefiles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"strings"
	"time"

	"github.com/strom-research/strom/schemas"
)

// Record is one line of .strom/progress.jsonl: what an agent (or a person) wrote down
// about a task.
type Record struct {
	Version int       `json:"version"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Task    string    `json:"task"`
	Text    string    `json:"text"`
}

// LoadProgress reads and validates every record. A missing file has none.
func (t *Tree) LoadProgress() ([]Record, error) {
	data, err := readOptional(t.Path(ProgressFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	return parseProgress(t.rel(ProgressFile), data)
}

// parseProgress validates the file (checkProgress) and decodes the records.
func parseProgress(shown string, data []byte) ([]Record, error) {
	if err := checkProgress(shown, data); err != nil {
		return nil, err
	}
	var recs []Record
	for n, line := range progressLines(data) {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, &SchemaError{File: shown, Line: n, Rule: err.Error()}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// checkProgress validates every line, unless the whole file's bytes were validated
// before (memo.go).
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

// progressLines yields the non-blank lines of progress.jsonl with their numbers,
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

// AppendProgress adds one record. It takes the lock, checks the file as it stands,
// and appends the line with a single write, so concurrent writers lose nothing.
func (t *Tree) AppendProgress(ctx context.Context, r Record) error {
	return t.Locked(ctx, func() error { return t.AppendProgressLocked(r) })
}

// AppendProgressLocked is AppendProgress for a caller that holds the lock. It
// validates the new line and, through the index (progressindex.go), only what
// changed in the file since strom last saw it; the index learns the new line.
func (t *Tree) AppendProgressLocked(r Record) error {
	r.Version = 1
	r.Time = r.Time.UTC()
	r.Text = strings.TrimSpace(r.Text)
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if err := validate(t.rel(ProgressFile), 0, schemas.Progress, line); err != nil {
		return fmt.Errorf("refuse to write an invalid record: %w", err)
	}
	st, err := t.progressIndexLocked()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(t.Path(ProgressFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", t.rel(ProgressFile), err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", t.rel(ProgressFile), err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", t.rel(ProgressFile), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", t.rel(ProgressFile), err)
	}
	// The index learns the line; if this stops half-way, or the file holds more
	// than this append (someone wrote past the lock), the next use extends it.
	cur, err := stampOf(t.Path(ProgressFile))
	if err != nil || cur.Size != st.Stamp.Size+int64(len(line))+1 {
		return nil
	}
	if err := appendTo(t.progressIndexPath(r.Task), entryLine(st.Stamp.Size, len(line))); err != nil {
		return nil
	}
	st.Stamp, st.Lines = cur, st.Lines+1
	_ = t.writeProgressState(t.progressIndexPath(progressIndexState), st)
	return nil
}

// RenameTaskRecordsLocked gives the records of the tasks in ids (old id → new
// id) their new task id; every other line stays as it was, byte for byte. It
// checks the file first and writes it atomically. Hold the lock.
func (t *Tree) RenameTaskRecordsLocked(ids map[string]string) error {
	data, err := readOptional(t.Path(ProgressFile))
	if err != nil {
		return fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
	}
	if err := checkProgress(t.rel(ProgressFile), data); err != nil {
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
	if err := WriteAtomic(t.Path(ProgressFile), out, 0o644); err != nil {
		return err
	}
	os.Remove(t.progressIndexPath(progressIndexState))
	return nil
}

// Park is .strom/park.json: the counters that park a task. For each task, Empty
// counts its sessions in a row that recorded nothing, Unfinished its sessions in a
// row that ended neither done nor waiting (run.sessionsPerTask).
type Park struct {
	Version    int            `json:"version"`
	Empty      map[string]int `json:"empty,omitempty"`
	Unfinished map[string]int `json:"unfinished,omitempty"`
}

// LoadPark reads the park counters; a missing file has none.
func (t *Tree) LoadPark() (*Park, error) {
	p := &Park{Version: 1}
	if _, err := loadFile(t.Path(ParkFile), t.rel(ParkFile), schemas.Park, p); err != nil {
		return nil, err
	}
	if p.Empty == nil {
		p.Empty = map[string]int{}
	}
	if p.Unfinished == nil {
		p.Unfinished = map[string]int{}
	}
	return p, nil
}

// SavePark writes the park counters. Hold the lock.
func (t *Tree) SavePark(p *Park) error {
	return saveFile(t.Path(ParkFile), t.rel(ParkFile), schemas.Park, p)
}

// Mode values.
const (
	ModeResearch = "research"
	ModeArchive  = "archive"
)

// Mode is .strom/mode.json.
type Mode struct {
	Version int        `json:"version"`
	Mode    string     `json:"mode"`
	Changed *time.Time `json:"changed,omitempty"`
}

// LoadMode reads the mode; a missing file means research.
func (t *Tree) LoadMode() (*Mode, error) {
	m := &Mode{Version: 1, Mode: ModeResearch}
	if _, err := loadFile(t.Path(ModeFile), t.rel(ModeFile), schemas.Mode, m); err != nil {
		return nil, err
	}
	return m, nil
}

// SaveMode writes the mode. Hold the lock.
func (t *Tree) SaveMode(m *Mode) error {
	return saveFile(t.Path(ModeFile), t.rel(ModeFile), schemas.Mode, m)
}

// LoadHold reads a gate's own state from .strom/gates/<gate>/hold.json into v;
// found is false when the gate has none yet.
func (t *Tree) LoadHold(gate string, v any) (found bool, err error) {
	return loadFile(t.Path(GatesDir, gate, HoldFile), t.rel(GatesDir, gate, HoldFile), schemas.Hold, v)
}

// SaveHold writes a gate's own state. Hold the lock.
func (t *Tree) SaveHold(gate string, v any) error {
	return saveFile(t.Path(GatesDir, gate, HoldFile), t.rel(GatesDir, gate, HoldFile), schemas.Hold, v)
}
