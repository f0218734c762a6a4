package statefiles

import (
	"strings"
	"testing"
)

// BenchmarkRecordsFresh is what every command pays for the records' index at 88
// segments (22 MB of records, as in scripts/bench-age.sh's big research): the
// freshness check lists the folder and stamps every segment; a task's records are
// then read at the places the index names (a task with three records, in three
// segments). A segment's stamp costs the same at any size past 4 KiB, so the
// segments here are of 8 KiB.
func BenchmarkRecordsFresh(b *testing.B) {
	tr := At(b.TempDir())
	var seg strings.Builder
	for i := range 40 {
		seg.WriteString(recordLine("T-"+string(rune('1'+i%9)), i, 200))
	}
	for n := 1; n <= 88; n++ {
		data := seg.String()
		if n == 10 || n == 50 || n == 88 {
			data += recordLine("T-50", n, 200)
		}
		writeSegment(b, tr, n, data)
	}
	if err := tr.CheckProgress(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, ok := tr.freshProgressIndex(); !ok {
				b.Fatal("the index is not fresh")
			}
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
