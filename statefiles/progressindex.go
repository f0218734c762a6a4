package statefiles

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// The index of the records lives in .strom/run/progress/ (never committed): a file
// per task listing where its records are ("segment offset length" lines; segment 0
// is an older progress.jsonl), a file per segment under segments/ listing the
// records it holds ("task offset length"), and a state file saying which version
// of each segment the index covers (its stamp, stamp.go) and how many lines that
// is (progressstate.go). With it, a session's prompt and the agent's `strom task`
// read one task's records and a `strom record` validates only its own line,
// whatever the number of segments.
//
// The index is built from the committed files and checked against them on every
// use: the folder's list of segments (not listed again while the folder's own
// stamp is the one recorded: no file was created, removed or renamed there) and
// every segment's stamp.
//   - a segment's stamp is the one covered: it is used as it is;
//   - a segment grew and the bytes the index covered end as they did (an append by
//     a strom that stopped before it updated the index, a pull, `>>` by hand), or
//     is new (a pull, another machine's next segment): only the new lines are
//     validated and indexed;
//   - a segment changed otherwise (a renumbering, a merge, an edit) or is gone: that
//     segment alone is validated again (or found in the memo) and the entries of
//     the tasks it held or holds are written anew;
//   - the index is missing, from another schema or unreadable, progress.jsonl of
//     an older research changed but by an append, or is beside the segments: every
//     file is validated (or found in the memo) and the index rebuilt.
//
// Records are read back from the segments themselves, so the index holds no text
// and can never show a record the files do not have. A task's list may hold an
// entry past the covered size (written by an append that stopped before its state
// did), repeat one (indexed again after that) or list a segment's entries after a
// later segment's (an append to an older segment): readers skip, drop and sort.

const (
	progressIndexDir     = "progress"
	progressIndexState   = "state" // progressstate.go
	progressIndexSegs    = "segments"
	progressIndexVersion = 3
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

// entry is where one record is: its segment, offset and length (no newline).
type entry struct {
	Seg int
	Off int64
	Len int
}

// order sorts entries as the records are read: segments by number, progress.jsonl
// after them, lines in order.
func (e entry) order(o entry) int {
	key := func(s int) int {
		if s == 0 {
			return int(^uint(0) >> 1)
		}
		return s
	}
	if c := cmp.Compare(key(e.Seg), key(o.Seg)); c != 0 {
		return c
	}
	return cmp.Compare(e.Off, o.Off)
}

func (t *Tree) progressIndexPath(elem ...string) string {
	return t.Path(append([]string{RunDir, progressIndexDir}, elem...)...)
}

func (t *Tree) segmentIndexPath(seg int) string {
	return t.progressIndexPath(progressIndexSegs, strconv.Itoa(seg))
}

func progressSchemaSum() string {
	s, _ := schemaSum(schemas.Progress)
	return hex.EncodeToString(s[:])
}

// besides reports whether progress.jsonl is there beside segments.
func besides(srcs []source) bool {
	return len(srcs) > 1 && srcs[len(srcs)-1].Seg == 0
}

// freshProgressIndex returns the index's state when it covers the records as they
// stand.
func (t *Tree) freshProgressIndex() (progressState, bool) {
	st, ok := t.readProgressState()
	if !ok {
		return st, false
	}
	cur, _, err := t.currentSources(st)
	if err != nil || !sameSources(st.Sources, cur) {
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

// progressIndexLocked brings the index up to the records as they stand, validating
// what it had not covered; an invalid file is a *SchemaError. Hold the lock.
func (t *Tree) progressIndexLocked() (progressState, error) {
	st, ok := t.readProgressState()
	cur, folder, err := t.currentSources(st)
	if err != nil {
		return st, err
	}
	if ok && sameSources(st.Sources, cur) {
		if !sameFolder(folder, st.Folder) {
			st.Folder, st.rewrite = folder, true
		}
		return st, nil
	}
	if !ok || besides(cur) || besides(st.Sources) {
		return t.rebuildProgressIndex()
	}
	old := make(map[int]source, len(st.Sources))
	for _, s := range st.Sources {
		old[s.Seg] = s
	}
	next := progressState{Folder: folder}
	var grown []source // covered versions of the files that grew
	var redo []int     // files to index again
	for _, c := range cur {
		o, had := old[c.Seg]
		delete(old, c.Seg)
		switch {
		case had && o.Stamp.same(c.Stamp):
			next.Sources = append(next.Sources, o)
			continue
		case !had && c.Seg > 0:
			o = source{Seg: c.Seg, Stamp: stamp{Tail: tailSum(nil)}}
			fallthrough
		case t.grewFrom(o, c):
			grown = append(grown, o)
		case c.Seg == 0:
			return t.rebuildProgressIndex()
		default:
			redo = append(redo, c.Seg)
		}
		next.Sources = append(next.Sources, source{Seg: c.Seg}) // filled in below
	}
	gone := slices.Sorted(maps.Keys(old))
	if slices.Contains(gone, 0) {
		return t.rebuildProgressIndex() // progress.jsonl migrated or removed
	}
	if len(redo) > 0 || len(gone) > 0 {
		// A state that no longer matches the entries must not outlive a stop
		// half-way: without one the next use rebuilds.
		if err := os.Remove(t.progressIndexPath(progressIndexState)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
		}
	}
	done := map[int]source{}
	for _, o := range grown {
		s, err := t.extendSource(o)
		if err != nil {
			return st, err
		}
		done[o.Seg] = s
	}
	if len(redo) > 0 || len(gone) > 0 {
		redone, err := t.reindexSegments(redo, gone)
		if err != nil {
			return st, err
		}
		for _, s := range redone {
			done[s.Seg] = s
		}
	}
	for i, s := range next.Sources {
		if d, ok := done[s.Seg]; ok {
			next.Sources[i] = d
		}
	}
	return next, t.writeProgressState(t.progressIndexPath(progressIndexState), next)
}

// grewFrom reports whether the file of cur is the one o covers with lines
// appended.
func (t *Tree) grewFrom(o, cur source) bool {
	if cur.Stamp.Size <= o.Stamp.Size || (o.Stamp.Size > 0 && cur.Stamp.Ino != o.Stamp.Ino) {
		return false
	}
	if o.Stamp.Size == 0 {
		return true
	}
	f, err := os.Open(t.Path(sourceFile(cur.Seg)))
	if err != nil {
		return false
	}
	defer f.Close()
	was, err := tailAt(f, o.Stamp.Size)
	return err == nil && was == o.Stamp.Tail
}

// readStamped reads a file of records whole, with the stamp of what it read.
func (t *Tree) readStamped(seg int) ([]byte, stamp, error) {
	file := sourceFile(seg)
	f, err := os.Open(t.Path(file))
	if err != nil {
		return nil, stamp{}, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, stamp{}, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	if err := checkFileSize(t.rel(file), fi.Size()); err != nil {
		return nil, stamp{}, err
	}
	data := make([]byte, fi.Size())
	n, err := f.ReadAt(data, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, stamp{}, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	data = data[:n]
	s := stampOfInfo(fi, int64(n))
	s.Tail = tailSum(data[max(0, n-stampTail):])
	return data, s, nil
}

// extendSource validates and indexes the lines of a file past what o covers.
func (t *Tree) extendSource(o source) (source, error) {
	file := sourceFile(o.Seg)
	f, err := os.Open(t.Path(file))
	if err != nil {
		return o, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return o, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	if err := checkFileSize(t.rel(file), fi.Size()); err != nil {
		return o, err
	}
	data := make([]byte, max(0, fi.Size()-o.Stamp.Size))
	n, err := f.ReadAt(data, o.Stamp.Size)
	if err != nil && !errors.Is(err, io.EOF) {
		return o, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	data = data[:n]
	size := o.Stamp.Size + int64(n)
	tail, err := tailAt(f, size)
	if err != nil {
		return o, fmt.Errorf("read %s: %w", t.rel(file), err)
	}
	entries, lines, err := t.indexLines(o.Seg, data, o.Stamp.Size, o.Lines, true, nil)
	if err != nil {
		return o, err
	}
	if err := t.addEntries(o.Seg, entries); err != nil {
		return o, err
	}
	s := stampOfInfo(fi, size)
	s.Tail = tail
	return source{Seg: o.Seg, Stamp: s, Lines: lines}, nil
}

// addEntries appends entries of segment seg to the tasks' lists and the
// segment's.
func (t *Tree) addEntries(seg int, entries map[string][]entry) error {
	if len(entries) == 0 {
		return nil
	}
	var list []byte
	for _, task := range slices.Sorted(maps.Keys(entries)) {
		var b []byte
		for _, e := range entries[task] {
			b = append(b, entryLine(e)...)
			list = append(list, task+" "+offLen(e)...)
		}
		if err := appendTo(t.progressIndexPath(task), b); err != nil {
			return err
		}
	}
	if seg == 0 {
		return nil
	}
	return appendTo(t.segmentIndexPath(seg), list)
}

func entryLine(e entry) []byte {
	return []byte(strconv.Itoa(e.Seg) + " " + offLen(e))
}

func offLen(e entry) string {
	return strconv.FormatInt(e.Off, 10) + " " + strconv.Itoa(e.Len) + "\n"
}

// parseEntries reads a task's list; a line that is no entry ends it.
func parseEntries(list []byte) []entry {
	var out []entry
	for l := range bytes.Lines(list) {
		f := strings.Fields(string(l))
		if len(f) != 3 {
			return out
		}
		seg, err1 := strconv.Atoi(f[0])
		off, err2 := strconv.ParseInt(f[1], 10, 64)
		n, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil || seg < 0 || off < 0 || n <= 0 {
			return out
		}
		out = append(out, entry{Seg: seg, Off: off, Len: n})
	}
	return out
}

func appendTo(path string, b []byte) error {
	err := appendPlain(path, b, true, false)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("index progress: %w", err)
		}
		err = appendPlain(path, b, true, false)
	}
	if err != nil {
		return fmt.Errorf("index progress: %w", err)
	}
	return nil
}
