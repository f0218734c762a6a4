package statefiles

// The index's state file (progressindex.go) and the check that it covers the
// records as they stand.
//
// The file is lines of text, read without reflection:
//
//	strom progress index 3 <the progress schema's sum>
//	folder <inode> <size> <mtime> <ctime>
//	sources <n>
//	<segment> <inode> <size> <mtime> <ctime> <lines> <tail>    (n of them)
//	<segment> <inode> <size> <mtime> <ctime> <lines> <tail>    (an append's, any number)
//
// The first n source lines are the files of records in order (the segments by
// number, then progress.jsonl as segment 0); each line after them is what an
// append (AppendProgressLocked) wrote instead of the whole file: the segment's
// new stamp, in place of the one before. Such a line is added with one write, so
// a reader or a stop half-way leaves at most a last line without its newline:
// it is left out, and the state is the one before that append, whose records the
// next use indexes again (the task's entry written before it is then repeated,
// which readers drop). Anything else that does not read as above (another
// version, a file cut short in its sources, a garbled line) is no state, and the
// index is built again.
//
// The folder line is the stamp of .strom/progress/ when the sources' segments
// were listed. A file created, removed or renamed there changes the folder's
// times, so while they are the ones recorded, the list of segments is the one
// the state has and the folder is not listed again. Zeros where the folder's
// times are whole seconds, or were within folderSettled of the listing (two
// changes in one tick of the file system's clock keep the times of the first).

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
)

// stateAppendMax is how many appends' lines a state file takes before the next
// append writes it whole.
const stateAppendMax = 32

// source is one file of records as the index covers it.
type source struct {
	Seg   int // the segment's number; 0: progress.jsonl
	Stamp stamp
	Lines int // lines in the covered bytes, for error messages
}

type progressState struct {
	// Folder is the stamp of the segments' folder its Sources were listed at; zero
	// when the next check lists it.
	Folder stamp
	// Sources are the segments in order, then progress.jsonl when there is one.
	Sources []source

	appended int  // the appends' lines the file holds past its sources
	rewrite  bool // the file is to be written whole (cut short, or Folder is new)
}

// lastSegment is the index in Sources of the highest-numbered segment; -1 when
// there is none.
func (st progressState) lastSegment() int {
	for i := len(st.Sources) - 1; i >= 0; i-- {
		if st.Sources[i].Seg > 0 {
			return i
		}
	}
	return -1
}

func (st progressState) covered(seg int) (int64, bool) {
	for _, s := range st.Sources {
		if s.Seg == seg {
			return s.Stamp.Size, true
		}
	}
	return 0, false
}

// readProgressState returns the index's state; ok is false when there is none this
// strom can use.
func (t *Tree) readProgressState() (progressState, bool) {
	b, err := os.ReadFile(t.progressIndexPath(progressIndexState))
	if err != nil {
		return progressState{}, false
	}
	return parseProgressState(b)
}

func stateHeader() string {
	return "strom progress index " + strconv.Itoa(progressIndexVersion) + " " + progressSchemaSum()
}

// parseProgressState reads a state file (the layout above). Its text is one
// string: the tails are parts of it.
func parseProgressState(data []byte) (st progressState, ok bool) {
	r := &textLines{rest: string(data)}
	next := r.next
	l, ok := next()
	if !ok || l != stateHeader() {
		return st, false
	}
	if l, ok = next(); !ok {
		return st, false
	}
	var f [7]string
	if !splitFields(l, f[:5]) || f[0] != "folder" {
		return st, false
	}
	if st.Folder, ok = parseStamp(f[1:5], "", false); !ok {
		return st, false
	}
	if l, ok = next(); !ok || !splitFields(l, f[:2]) || f[0] != "sources" {
		return st, false
	}
	n, ok := parseUint(f[1])
	if !ok || n > uint64(len(r.rest)/14) { // no source line is shorter: "0 0 0 0 0 0 -\n"
		return st, false
	}
	st.Sources = make([]source, 0, n)
	for range n {
		l, ok := next()
		if !ok {
			return st, false
		}
		s, ok := parseSource(l)
		if !ok || !inOrder(st.Sources, s.Seg) {
			return st, false
		}
		st.Sources = append(st.Sources, s)
	}
	for len(r.rest) > 0 {
		l, ok := next()
		if !ok {
			st.rewrite = true // an append's line cut short: the state before it
			break
		}
		s, ok := parseSource(l)
		if !ok {
			return st, false
		}
		at := -1
		for i := range st.Sources {
			if st.Sources[i].Seg == s.Seg {
				at = i
			}
		}
		if at < 0 {
			return st, false
		}
		st.Sources[at] = s
		st.appended++
	}
	return st, true
}

// inOrder reports whether a source of segment seg may follow srcs: segments by
// number, progress.jsonl (0) last.
func inOrder(srcs []source, seg int) bool {
	if len(srcs) == 0 {
		return true
	}
	last := srcs[len(srcs)-1].Seg
	return last != 0 && (seg == 0 || seg > last)
}

func parseSource(l string) (source, bool) {
	r := fieldReader{rest: l}
	seg := r.uint(false)
	st := r.stamp(false)
	lines := r.uint(false)
	st.Tail = r.tail()
	if r.bad || seg > math.MaxInt32 || lines > math.MaxInt32 {
		return source{}, false
	}
	return source{Seg: int(seg), Stamp: st, Lines: int(lines)}, true
}

// encode is the whole state file.
func (st progressState) encode() []byte {
	b := make([]byte, 0, 160+140*len(st.Sources))
	b = append(b, stateHeader()...)
	b = append(b, "\nfolder "...)
	b = appendStamp(b, st.Folder)
	b = append(b, "\nsources "...)
	b = strconv.AppendInt(b, int64(len(st.Sources)), 10)
	b = append(b, '\n')
	for _, s := range st.Sources {
		b = appendSource(b, s)
	}
	return b
}

// appendSource adds a source's line.
func appendSource(b []byte, s source) []byte {
	b = strconv.AppendInt(b, int64(s.Seg), 10)
	b = append(b, ' ')
	b = appendStamp(b, s.Stamp)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s.Lines), 10)
	b = append(b, ' ')
	if isSum(s.Stamp.Tail) {
		b = append(b, s.Stamp.Tail...)
	} else {
		b = append(b, '-')
	}
	return append(b, '\n')
}

func (t *Tree) writeProgressState(path string, st progressState) error {
	if err := WriteTransient(path, st.encode()); err != nil {
		return fmt.Errorf("index progress: %w", err)
	}
	return nil
}

// noteAppend writes the state after an append to the segment of s: one line added
// to the file, or the whole file when it asks for it, has taken stateAppendMax
// lines already or whole is set (the append made a new segment).
func (t *Tree) noteAppend(st progressState, s source, whole bool) error {
	path := t.progressIndexPath(progressIndexState)
	if whole || st.rewrite || st.appended >= stateAppendMax {
		return t.writeProgressState(path, st)
	}
	// Not created: a state gone since it was read is built again by the next use.
	if err := appendPlain(path, appendSource(nil, s), false, false); err != nil {
		return fmt.Errorf("index progress: %w", err)
	}
	return nil
}

// currentSources lists the files of records as they stand, with their stamps (no
// line counts), and the stamp of the segments' folder that stands for its listing
// (zero when none does). The folder is not listed when its stamp is st's.
func (t *Tree) currentSources(st progressState) ([]source, stamp, error) {
	before := folderClock().UnixNano()
	var out []source
	var folder stamp
	d, err := openStampDir(t.Path(ProgressDir))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, folder, fmt.Errorf("read %s: %w", t.rel(ProgressDir), err)
	default:
		defer d.close()
		var recorded []int
		for _, s := range st.Sources {
			if s.Seg > 0 {
				recorded = append(recorded, s.Seg)
			}
		}
		nums, stamps, f, err := d.numberedStamps(st.Folder, recorded, segmentName, segmentBase, true, before)
		if err != nil {
			return nil, folder, fmt.Errorf("read %s: %w", t.rel(ProgressDir), err)
		}
		folder = f
		out = make([]source, len(nums), len(nums)+1)
		for i, n := range nums {
			out[i] = source{Seg: n, Stamp: stamps[i]}
		}
	}
	if _, err := os.Lstat(t.Path(ProgressFile)); err == nil {
		s, err := statStamp(t.Path(ProgressFile))
		if err != nil {
			return nil, folder, fmt.Errorf("read %s: %w", t.rel(ProgressFile), err)
		}
		out = append(out, source{Seg: 0, Stamp: s})
	}
	return out, folder, nil
}

// sameFolder reports whether the folder's stamp cur is the one recorded.
func sameFolder(cur, rec stamp) bool {
	return cur.Ino == rec.Ino && cur.Size == rec.Size && cur.MTime == rec.MTime && cur.CTime == rec.CTime
}

// segmentBase is segment n's file name in its folder: "000042.jsonl".
func segmentBase(n int) string {
	var buf [32]byte
	b := strconv.AppendInt(append(buf[:0], "000000"...), int64(n), 10)
	b = b[min(len(b)-6, 6):] // six digits or more
	return string(append(b, segmentExt...))
}

// sameSources reports whether the index covers the files as they stand.
func sameSources(covered, cur []source) bool {
	if len(covered) != len(cur) {
		return false
	}
	for i := range cur {
		if covered[i].Seg != cur[i].Seg || !covered[i].Stamp.same(cur[i].Stamp) {
			return false
		}
	}
	return true
}
