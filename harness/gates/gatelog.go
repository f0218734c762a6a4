package gates

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/strom-research/strom/statefiles"
)

// How much of gate.log is kept (R7.4.3).
const (
	LogKeep     = 90 * 24 * time.Hour
	LogMaxBytes = 2 << 20
)

// What the run did with an answer, gate.log's "did".
const (
	DidGo     = "go"
	DidWait   = "wait"
	DidStop   = "stop"
	DidAnyway = "anyway"
)

// LogEntry is one line of .strom/gate.log.
type LogEntry struct {
	When    time.Time       `json:"when"`
	Gate    string          `json:"gate"`
	Args    []string        `json:"args"`
	Exit    int             `json:"exit"`
	Verdict string          `json:"verdict"` // go, wait, stop, or error
	Reason  string          `json:"reason"`
	WaitS   float64         `json:"wait_s,omitempty"`
	Hard    bool            `json:"hard,omitempty"`
	Watch   *Watch          `json:"watch,omitempty"`
	Limits  json.RawMessage `json:"limits,omitempty"`
	Did     string          `json:"did"`
}

// AppendLog adds an entry to .strom/gate.log and prunes it: lines older than 90
// days go, then the oldest lines until the file is at most 2 MB.
func AppendLog(tree *statefiles.Tree, e LogEntry) error {
	if e.Args == nil {
		e.Args = []string{}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode gate log entry: %w", err)
	}
	path := tree.Path(statefiles.GateLogFile)
	old, err := statefiles.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read gate log: %w", err)
	}
	data := Prune(old, e.When)
	data = append(data, line...)
	data = append(data, '\n')
	for len(data) > LogMaxBytes {
		i := bytes.IndexByte(data, '\n')
		if i < 0 || i+1 >= len(data) {
			break
		}
		data = data[i+1:]
	}
	if err := statefiles.WriteAtomic(path, data, 0o644); err != nil {
		return fmt.Errorf("write gate log: %w", err)
	}
	return nil
}

// Prune returns the lines of a gate log that are at most 90 days old at now. A line
// whose time cannot be read is kept: the size limit still bounds it.
func Prune(data []byte, now time.Time) []byte {
	cut := now.Add(-LogKeep)
	out := make([]byte, 0, len(data))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e struct {
			When time.Time `json:"when"`
		}
		if json.Unmarshal(line, &e) == nil && !e.When.IsZero() && e.When.Before(cut) {
			continue
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

// LastAnswers returns the newest n entries of .strom/gate.log, newest first; lines
// strom cannot read are left out. Only the log's tail is read.
func LastAnswers(tree *statefiles.Tree, n int) []LogEntry {
	f, err := statefiles.OpenRead(tree.Path(statefiles.GateLogFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	const tail = 64 << 10
	var off int64
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		off = fi.Size() - tail
	}
	data := make([]byte, tail)
	k, _ := f.ReadAt(data, off)
	data = data[:k]
	if off > 0 { // the first line is likely cut
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	var out []LogEntry
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		var e LogEntry
		if json.Unmarshal(lines[i], &e) == nil && !e.When.IsZero() {
			out = append(out, e)
		}
	}
	return out
}
