package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/strom-research/strom/statefiles"
)

// Transcripts and the sessions folder are bounded: a session's transcript
// (.strom/sessions/<id>.log) keeps at most TranscriptMax bytes of the agent's output,
// its first half and its last bytes, with one line between them saying how much
// was cut; the folder keeps the files of the last SessionsKeepDays days and at most
// SessionsKeepBytes, the oldest sessions going first.
const (
	TranscriptMax     = 64 << 20
	SessionsKeepDays  = 90
	SessionsKeepBytes = 1 << 30
)

// transcript writes a session's output to its file: the first max/2 bytes straight
// into it, then the rest into two tail files of max/4 each (<id>.log.tail-0, the
// older, and .tail-1), the older one dropped when the newer is full. Close puts the
// cut line and the kept tail at the end of the transcript. Memory stays at one copy
// buffer whatever the output's size; the disk holds at most max bytes a session.
type transcript struct {
	path    string
	max     int64
	f       *os.File
	head    int64 // bytes still to go to the head
	seg     int64 // the size of a tail file
	cur     *os.File
	curN    int64
	dropped int64 // bytes of output in tail files already dropped
	err     error
}

func OpenTranscript(path string, limit int64) (*transcript, error) {
	f, err := statefiles.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	return &transcript{path: path, max: limit, f: f, head: max(0, limit/2-st.Size()), seg: max(1, limit/4)}, nil
}

// Name is the transcript's path.
func (t *transcript) Name() string { return t.path }

func (t *transcript) tailPath(n int) string { return fmt.Sprintf("%s.tail-%d", t.path, n) }

func (t *transcript) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n := len(p)
	if t.head > 0 {
		k := min(int64(len(p)), t.head)
		if _, err := t.f.Write(p[:k]); err != nil {
			t.err = err
			return 0, err
		}
		t.head -= k
		p = p[k:]
	}
	for len(p) > 0 {
		if t.cur == nil || t.curN == t.seg {
			if err := t.rotate(); err != nil {
				t.err = err
				return 0, err
			}
		}
		k := min(int64(len(p)), t.seg-t.curN)
		if _, err := t.cur.Write(p[:k]); err != nil {
			t.err = err
			return 0, err
		}
		t.curN += k
		p = p[k:]
	}
	return n, nil
}

// rotate makes the full tail file the older one, dropping the one before it.
func (t *transcript) rotate() error {
	if t.cur != nil {
		if err := t.cur.Close(); err != nil {
			return err
		}
		t.cur = nil
		if st, err := os.Stat(t.tailPath(0)); err == nil {
			t.dropped += st.Size()
		}
		if err := os.Rename(t.tailPath(1), t.tailPath(0)); err != nil {
			return err
		}
	}
	f, err := statefiles.OpenFile(t.tailPath(1), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	t.cur, t.curN = f, 0
	return nil
}

// Close ends the transcript: the cut line and the tail go after the head.
func (t *transcript) Close() error {
	if t.cur == nil {
		return t.f.Close()
	}
	err := t.cur.Close()
	if t.dropped > 0 {
		_, werr := fmt.Fprintf(t.f, "\r\n\x1b[0m[strom: %s of output cut here; a transcript keeps the first %s and the last part, %s at most]\r\n",
			byteSize(t.dropped), byteSize(t.max/2), byteSize(t.max))
		err = errors.Join(err, werr)
	}
	for n := range 2 {
		err = errors.Join(err, appendFile(t.f, t.tailPath(n)))
	}
	if err == nil {
		os.Remove(t.tailPath(0))
		os.Remove(t.tailPath(1))
	}
	return errors.Join(err, t.f.Close())
}

func appendFile(w io.Writer, path string) error {
	f, err := statefiles.OpenRead(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// byteSize says a size in MiB, KiB or bytes, as a person reads it.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// PruneSessions removes the files of sessions older than keepDays days (by the time
// in their session id) and then, while the folder holds more than keepBytes, those of
// the oldest sessions. Files whose names are no session id are left alone.
func PruneSessions(dir string, now time.Time, keepDays int, keepBytes int64) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("prune sessions: %w", err)
	}
	type session struct {
		id    string
		when  time.Time
		files []string
		size  int64
	}
	byID := map[string]*session{}
	var total int64
	for _, e := range entries {
		id, _, _ := strings.Cut(e.Name(), ".")
		if len(id) < 16 || !e.Type().IsRegular() {
			continue
		}
		when, err := time.Parse("20060102T150405Z", id[:16])
		if err != nil {
			continue
		}
		s := byID[id]
		if s == nil {
			s = &session{id: id, when: when}
			byID[id] = s
		}
		s.files = append(s.files, e.Name())
		if fi, err := e.Info(); err == nil {
			s.size += fi.Size()
			total += fi.Size()
		}
	}
	var all []*session
	for _, s := range byID {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	cutoff := now.Add(-time.Duration(keepDays) * 24 * time.Hour)
	for _, s := range all {
		if !s.when.Before(cutoff) && total <= keepBytes {
			break
		}
		for _, name := range s.files {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("prune sessions: %w", err)
			}
		}
		total -= s.size
	}
	return nil
}
