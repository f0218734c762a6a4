package runfiles

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// The activity mark of a session (.strom/run/active-<session>) holds the moment of
// the last strom command its agent ran, on the run's clock; its modification time
// is the same moment on the real clock. An agent runs a strom command every few
// seconds, so the mark is written in place, always the same 40 bytes: the time
// with nine decimals and a checksum of it. A file replaced by a rename costs a new
// inode each time, and ext4 walks past every inode freed in the last minute to
// find one (a burst of commands made each write a millisecond). A reader that
// meets a write half done sees a checksum that does not match, and reads again.
const activityLayout = "2006-01-02T15:04:05.000000000Z"

// activitySize is the mark's length: the time, a space, eight hex digits, a newline.
const activitySize = len(activityLayout) + 1 + 8 + 1

// activityFile holds the moment of the last strom command the session's agent ran.
func activityFile(r *research.Research, session string) string {
	return RequestFile(r, "active", session)
}

// encodeActivity is the mark for moment t.
func encodeActivity(t time.Time) []byte {
	ts := t.UTC().Format(activityLayout)
	return fmt.Appendf(nil, "%s %08x\n", ts, crc32.ChecksumIEEE([]byte(ts)))
}

// parseActivity reads a mark; ok is false for anything but a whole one. The
// variable-length time an older strom wrote, alone on its line, is read too.
func parseActivity(b []byte) (time.Time, bool) {
	s := string(b)
	if len(s) == activitySize && s[len(activityLayout)] == ' ' && s[activitySize-1] == '\n' {
		ts, sum := s[:len(activityLayout)], s[len(activityLayout)+1:activitySize-1]
		if fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(ts))) != sum {
			return time.Time{}, false
		}
		t, err := time.Parse(activityLayout, ts)
		return t, err == nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	return t, err == nil
}

// NoteActivity records that the session's agent ran a strom command now (R7.2): an
// agent that only calls strom commands is at work, not idle.
func NoteActivity(r *research.Research, session string) {
	if !research.ValidSessionID(session) {
		return
	}
	_ = writeActivity(activityFile(r, session), r.Now())
}

// writeActivity writes the mark for t over the one at path, in place. The
// folder is made only when it is missing: every strom command inside a session
// writes the mark.
func writeActivity(path string, t time.Time) error {
	f, err := openMark(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.WriteAt(encodeActivity(t), 0); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// LastCommand is when the session's agent last ran a strom command; zero when it
// did not, or when its mark cannot be read.
func LastCommand(r *research.Research, session string) time.Time {
	return readActivity(activityFile(r, session))
}

// readActivity reads the mark at path, again when a write was under way.
func readActivity(path string) time.Time {
	for range 3 {
		b, err := statefiles.ReadFile(path)
		if err != nil {
			return time.Time{}
		}
		if t, ok := parseActivity(b); ok {
			return t
		}
	}
	return time.Time{}
}

// LastActivity is the latest of the agent's last output (the transcript's change,
// on the real clock) and its last strom command (its mark's change), for a session
// another process runs: what strom session list reads to tell that the agent
// waits for input.
func LastActivity(r *research.Research, session string) time.Time {
	var last time.Time
	if fi, err := os.Stat(r.Tree.Path(statefiles.SessionsDir, session+".log")); err == nil {
		last = fi.ModTime()
	}
	if fi, err := os.Stat(activityFile(r, session)); err == nil && fi.ModTime().After(last) {
		last = fi.ModTime()
	}
	return last
}

// openMark opens the file at path for writing in place, made when missing,
// and its folder only when that is missing too: the activity mark is written often.
func openMark(path string) (*os.File, error) {
	f, err := statefiles.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err := statefiles.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err = statefiles.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	}
	return f, err
}
