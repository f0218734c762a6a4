package statefiles

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkRecordsFresh is what every command pays for the records' index at 88
// segments (22 MB of records, as in scripts/bench-age.sh's big research): the
// freshness check reads the state, stamps the folder and every segment (and lists
// the folder when its stamp is not the state's: "check, listed"); a task's
// records are then read at the places the index names (a task with three
// records, in three segments). A segment's stamp costs the same at any size past
// 4 KiB, so the segments here are of 8 KiB. The folder was written a moment
// before: the clock is moved past folderSettled, as it is for a research's
// commands but those of the second it rolled a segment in.
func BenchmarkRecordsFresh(b *testing.B) {
	tr := eightyEightSegments(b, func(n int) string {
		if n == 10 || n == 50 || n == 88 {
			return recordLine("T-50", n, 200)
		}
		return ""
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, ok := tr.freshProgressIndex(); !ok {
				b.Fatal("the index is not fresh")
			}
		}
	})
	b.Run("check, listed", func(b *testing.B) {
		st, _ := tr.readProgressState()
		folder := st.Folder
		st.Folder = stamp{}
		if err := tr.writeProgressState(tr.progressIndexPath(progressIndexState), st); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, ok := tr.freshProgressIndex(); !ok {
				b.Fatal("the index is not fresh")
			}
		}
		st.Folder = folder
		if err := tr.writeProgressState(tr.progressIndexPath(progressIndexState), st); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("task", func(b *testing.B) {
		for b.Loop() {
			if recs, err := tr.TaskRecords(b.Context(), "T-50"); err != nil || len(recs) != 3 {
				b.Fatal(len(recs), err)
			}
		}
	})
}

// BenchmarkRecordAppend is a `strom record` at 88 segments: the index checked under
// the lock, the line appended (and synced), the index's state written after it.
func BenchmarkRecordAppend(b *testing.B) {
	tr := eightyEightSegments(b, func(int) string { return "" })
	r := Record{Time: t0, Task: "T-7", Text: strings.Repeat("x", 150)}
	for b.Loop() {
		if err := tr.AppendProgress(b.Context(), r); err != nil {
			b.Fatal(err)
		}
	}
}

// eightyEightSegments is a research of 88 segments of 40 records each of T-1 to
// T-9 and then more(n), indexed, its folder's stamp taken as settled.
func eightyEightSegments(b *testing.B, more func(n int) string) *Tree {
	settled(b)
	tr := At(b.TempDir())
	var seg strings.Builder
	for i := range 40 {
		seg.WriteString(recordLine("T-"+string(rune('1'+i%9)), i, 200))
	}
	for n := 1; n <= 88; n++ {
		writeSegment(b, tr, n, seg.String()+more(n))
	}
	if err := tr.CheckProgress(b.Context()); err != nil {
		b.Fatal(err)
	}
	return tr
}

// settled moves folderClock past folderSettled for the test: the folders it
// writes are taken as ones a research's commands find unchanged for long. Not in
// a parallel test.
func settled(tb testing.TB) {
	folderClock = func() time.Time { return time.Now().Add(time.Hour) }
	tb.Cleanup(func() { folderClock = time.Now })
}
