package statefiles

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// answers is every task's records as texts, and whether the records check.
func answers(t *testing.T, tr *Tree) string {
	t.Helper()
	if err := tr.CheckProgress(t.Context()); err != nil {
		return "check: " + err.Error()
	}
	var out []string
	for _, task := range []string{"T-1", "T-2", "T-3"} {
		out = append(out, task+"="+texts(t, tr, task))
	}
	return strings.Join(out, " ")
}

// TestStateCutOrGarbledRebuilt: a state file cut short anywhere, or with any byte
// changed, is read as no state (the index is built again) or as a state the files
// then correct; a task's records are never other than the files hold.
func TestStateCutOrGarbledRebuilt(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	writeSegment(t, tr, 1, recordLine("T-1", 1, 120)+recordLine("T-2", 2, 120))
	appendRecs(t, tr,
		Record{Time: t0, Task: "T-1", Text: "a"},
		Record{Time: t0, Task: "T-3", Text: "b"},
		Record{Time: t0, Task: "T-1", Text: "c"})
	want := answers(t, tr)
	path := tr.progressIndexPath(progressIndexState)
	state, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := parseProgressState(state)
	if !ok || st.appended == 0 {
		t.Fatalf("the appends wrote no line of their own: %q", state)
	}
	sources := len(st.encode()) // where the appends' lines begin
	try := func(what string, b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := answers(t, tr); got != want {
			t.Fatalf("%s: %s, want %s", what, got, want)
		}
	}
	for n := range len(state) {
		if _, ok := parseProgressState(state[:n]); ok && n < sources {
			t.Errorf("cut at %d of %d, in the sources, read as a state", n, len(state))
		}
		try(fmt.Sprintf("cut at %d", n), state[:n])
	}
	garbles := []byte("9 0\n-a")
	for i := range state {
		c := garbles[i%len(garbles)]
		if state[i] == c {
			c = '1'
		}
		b := bytes.Clone(state)
		b[i] = c
		try(fmt.Sprintf("byte %d as %q", i, c), b)
	}
	try("empty", nil)
	try("an older layout", []byte(`{"version":2,"schema":"x","sources":[]}`+"\n"))
}

// TestStateAppendsALine: an append adds one line to the state file rather than
// writing it whole; a line cut short (an append stopped while it wrote it) is left
// out, and the next append writes the file whole, as it does past stateAppendMax
// lines.
func TestStateAppendsALine(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	path := tr.progressIndexPath(progressIndexState)
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "a"})
	before, _ := os.ReadFile(path)
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "b"})
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, before) || bytes.Count(after[len(before):], []byte("\n")) != 1 {
		t.Fatalf("the append did not add one line:\n%s\nthen\n%s", before, after)
	}
	// The line of a third append cut short.
	st, _ := parseProgressState(after)
	line := appendSource(nil, st.Sources[0])
	if err := os.WriteFile(path, append(after, line[:len(line)/2]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, ok := tr.readProgressState(); !ok || !st.rewrite {
		t.Fatalf("a state with its last line cut short: %v, %+v", ok, st)
	}
	if got := texts(t, tr, "T-1"); got != "a,b" {
		t.Errorf("T-1 = %q, want a,b", got)
	}
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "c"})
	if st, ok := tr.readProgressState(); !ok || st.rewrite || st.appended != 0 {
		t.Errorf("after a cut line the append did not write the state whole: %v, %+v", ok, st)
	}
	// Past stateAppendMax lines the file is written whole. It may be so earlier
	// too: once the segments' folder has settled (folderSettled after the first
	// segment was made, which a slow machine reaches within the loop), its stamp
	// is recorded by writing the state whole.
	prev, wholes := 0, 0
	for i := range stateAppendMax + 2 {
		appendRecs(t, tr, Record{Time: t0, Task: "T-2", Text: strings.Repeat("x", i+1)})
		st, ok := tr.readProgressState()
		if !ok || st.appended > stateAppendMax {
			t.Fatalf("after append %d the state holds %d lines of appends, at most %d wanted (%v)", i+1, st.appended, stateAppendMax, ok)
		}
		if st.appended != prev+1 {
			wholes++
		}
		prev = st.appended
	}
	if wholes == 0 {
		t.Errorf("%d appends and the state was never written whole", stateAppendMax+2)
	}
	if got := texts(t, tr, "T-1"); got != "a,b,c" {
		t.Errorf("T-1 = %q, want a,b,c", got)
	}
	if recs, err := tr.TaskRecords(t.Context(), "T-2"); err != nil || len(recs) != stateAppendMax+2 {
		t.Errorf("T-2 has %d records, %v", len(recs), err)
	}
}

// TestFolderListedAfterAChange: a state written within folderSettled of a change
// to the segments' folder records no folder stamp: the next check lists it.
func TestFolderListedAfterAChange(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	appendRecs(t, tr, Record{Time: t0, Task: "T-1", Text: "a"})
	writeSegment(t, tr, 2, recordLine("T-2", 1, 100))
	if err := tr.CheckProgress(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st, ok := tr.readProgressState(); !ok || st.Folder != (stamp{}) {
		t.Errorf("a folder changed a moment ago was recorded: %+v", st.Folder)
	}
}

// TestFolderNotListedWhileUnchanged: while the segments' folder keeps the stamp
// the state recorded, it is not listed (a segment put there behind the index's
// back, the folder's stamp recorded after it, is not seen); a segment created,
// removed or replaced changes the stamp and is seen. Not parallel: it moves
// folderClock.
func TestFolderNotListedWhileUnchanged(t *testing.T) {
	settled(t)
	tr := newTree(t)
	line := func(task, text string) string {
		return `{"version":1,"time":"2026-11-30T10:00:00Z","task":"` + task + `","text":"` + text + `"}` + "\n"
	}
	writeSegment(t, tr, 1, line("T-1", "a"))
	writeSegment(t, tr, 2, line("T-2", "b"))
	if got := answers(t, tr); got != "T-1=a T-2=b T-3=" {
		t.Fatalf("first read: %s", got)
	}
	st, ok := tr.readProgressState()
	if !ok || st.Folder.Ino == 0 {
		t.Fatalf("no folder stamp recorded: %+v", st.Folder)
	}
	hidden := st
	writeSegment(t, tr, 3, line("T-3", "c"))
	if hidden.Folder, ok = folderStamp(t, tr); !ok {
		t.Fatal("no folder")
	}
	if err := tr.writeProgressState(tr.progressIndexPath(progressIndexState), hidden); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, tr, "T-3"); got != "" {
		t.Fatalf("the folder was listed though its stamp was the state's: T-3 = %q", got)
	}
	// The state as it was: segment 3 is a change of the folder.
	if err := tr.writeProgressState(tr.progressIndexPath(progressIndexState), st); err != nil {
		t.Fatal(err)
	}
	if got := answers(t, tr); got != "T-1=a T-2=b T-3=c" {
		t.Errorf("a new segment: %s", got)
	}
	os.Remove(tr.Path(SegmentFile(1)))
	if got := answers(t, tr); got != "T-1= T-2=b T-3=c" {
		t.Errorf("a segment removed: %s", got)
	}
	if err := WriteAtomic(tr.Path(SegmentFile(2)), []byte(line("T-1", "d")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := answers(t, tr); got != "T-1=d T-2= T-3=c" {
		t.Errorf("a segment replaced: %s", got)
	}
	// Edited in place: the folder keeps its stamp, the segment's stamp tells.
	if st, _ := tr.readProgressState(); st.Folder.Ino == 0 {
		t.Fatal("no folder stamp after the changes")
	}
	writeSegment(t, tr, 2, line("T-2", "e"))
	if got := answers(t, tr); got != "T-1= T-2=e T-3=c" {
		t.Errorf("a segment edited in place: %s", got)
	}
}

func folderStamp(t *testing.T, tr *Tree) (stamp, bool) {
	t.Helper()
	d, err := openStampDir(tr.Path(ProgressDir))
	if err != nil {
		return stamp{}, false
	}
	defer d.close()
	s, err := d.own()
	return s, err == nil
}

// FuzzProgressState: any bytes read as no state or as one that, written whole,
// reads back the same, and is those very bytes when no append added a line; a
// line added to it replaces its segment's source.
func FuzzProgressState(f *testing.F) {
	sum := strings.Repeat("ab", 32)
	st := progressState{Folder: stamp{Ino: 7, Size: 4096, MTime: 1764000000123456789, CTime: 1764000000123456789}, Sources: []source{
		{Seg: 1, Stamp: stamp{Ino: 12, Size: 262000, MTime: 1764000000000000001, CTime: 1764000000000000002, Tail: sum}, Lines: 1200},
		{Seg: 2, Stamp: stamp{Ino: 13, Size: 5, MTime: 5e9, CTime: 6e9, Tail: "-"}, Lines: 1},
		{Seg: 0, Stamp: stamp{Ino: 14, Size: 0, MTime: -1, CTime: 0, Tail: sum}},
	}}
	whole := st.encode()
	f.Add(whole)
	f.Add(append(slices.Clone(whole), appendSource(nil, st.Sources[1])...))
	f.Add(append(slices.Clone(whole), "2 13 6 5"...))
	f.Add(progressState{}.encode())
	f.Add([]byte("1 2 3 -4 5 6 -\n01 2 3 4 5 6 -\n1 2 3 -0 5 6 -\n1  2 3 4 5 6 -\n1 2 3 4 5 6 - \n18446744073709551615 18446744073709551616 9223372036854775808 -9223372036854775808 5 6 -\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Every line reads as a source as the fields cut apart and read one by one
		// say.
		for l := range strings.SplitSeq(string(b), "\n") {
			got, ok1 := parseSource(l)
			want, ok2 := sourceByFields(l)
			if ok1 != ok2 || got != want {
				t.Fatalf("source line %q read as %+v, %v; by its fields %+v, %v", l, got, ok1, want, ok2)
			}
			// Numbers read as strconv writes them, and no other way.
			for w := range strings.SplitSeq(l, " ") {
				u, ok := parseUint(w)
				su, err := strconv.ParseUint(w, 10, 64)
				if want := err == nil && strconv.FormatUint(su, 10) == w; ok != want || (ok && u != su) {
					t.Fatalf("parseUint(%q) = %d, %v; strconv says %d, %v", w, u, ok, su, want)
				}
				i, ok := parseInt(w)
				si, err := strconv.ParseInt(w, 10, 64)
				if want := err == nil && strconv.FormatInt(si, 10) == w; ok != want || (ok && i != si) {
					t.Fatalf("parseInt(%q) = %d, %v; strconv says %d, %v", w, i, ok, si, want)
				}
			}
		}
		st, ok := parseProgressState(b)
		if !ok {
			return
		}
		again := st.encode()
		st2, ok := parseProgressState(again)
		if !ok || st2.appended != 0 || st2.rewrite || st2.Folder != st.Folder || !slices.Equal(st2.Sources, st.Sources) {
			t.Fatalf("%q read as %+v, written as %q, read back as %+v (%v)", b, st, again, st2, ok)
		}
		if st.appended == 0 && !st.rewrite && !bytes.Equal(again, b) {
			t.Fatalf("%q read as %+v is written %q", b, st, again)
		}
		if st.rewrite || len(st.Sources) == 0 {
			return
		}
		s := st.Sources[len(st.Sources)-1]
		s.Stamp.Size = s.Stamp.Size/2 + 1
		st3, ok := parseProgressState(append(slices.Clone(b), appendSource(nil, s)...))
		if !ok || st3.Sources[len(st3.Sources)-1] != s || st3.appended != st.appended+1 {
			t.Fatalf("%q with a line of %+v added read as %+v (%v)", b, s, st3, ok)
		}
	})
}

// sourceByFields is parseSource by way of splitFields and the field parsers.
func sourceByFields(l string) (source, bool) {
	var f [7]string
	if !splitFields(l, f[:]) {
		return source{}, false
	}
	seg, ok1 := parseUint(f[0])
	lines, ok2 := parseUint(f[5])
	s, ok3 := parseStamp(f[1:5], f[6], true)
	if !ok1 || !ok2 || !ok3 || seg > math.MaxInt32 || lines > math.MaxInt32 {
		return source{}, false
	}
	return source{Seg: int(seg), Stamp: s, Lines: int(lines)}, true
}

// TestSegmentBase: the names the folder's stamps are read by are SegmentFile's.
func TestSegmentBase(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 42, 999999, 1000000, 12345678} {
		if got, want := ProgressDir+"/"+segmentBase(n), SegmentFile(n); got != want {
			t.Errorf("segmentBase(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestEightAtATime: the eight-byte checks and the value of eight digits agree with
// a byte-by-byte reading, for every byte value in every place among digits and
// letters, and for mixed words.
func TestEightAtATime(t *testing.T) {
	t.Parallel()
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isHex := func(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') }
	check := func(b [8]byte) {
		x := binary.LittleEndian.Uint64(b[:])
		digits, hex, n := true, true, uint64(0)
		for _, c := range b {
			digits = digits && isDigit(c)
			hex = hex && isHex(c)
			n = n*10 + uint64(c-'0')
		}
		if eightDigits(x) != digits || eightHex(x) != hex || (digits && eightValue(x) != n) {
			t.Fatalf("%q: eightDigits %v, eightHex %v, eightValue %d; byte by byte %v, %v, %d", b[:], eightDigits(x), eightHex(x), eightValue(x), digits, hex, n)
		}
	}
	for _, fill := range []byte("09af5") {
		for place := range 8 {
			for c := range 256 {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[place] = byte(c)
				check(b)
			}
		}
	}
	seed := uint64(1)
	const alphabet = "0123456789abcdef/:`g\x00\xff \xb0"
	for range 100000 {
		var b [8]byte
		for i := range b {
			seed = seed*6364136223846793005 + 1442695040888963407
			b[i] = alphabet[(seed>>33)%uint64(len(alphabet))]
		}
		check(b)
	}
}
