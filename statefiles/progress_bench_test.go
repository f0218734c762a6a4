package statefiles

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// recordLine is one record of task of about size bytes.
func recordLine(task string, n, size int) string {
	text := fmt.Sprintf("finding %d ", n)
	return fmt.Sprintf(`{"version":1,"time":"2026-11-30T09:00:00Z","task":%q,"text":%q}`, task, text+strings.Repeat("x", max(1, size-90-len(text)))) + "\n"
}

// hundredsOfRecords is a research whose file of T-1 to T-99 holds as many records
// as one of scripts/bench-age.sh's big research (100,000 records of 20,000 tasks:
// 500 a hundred, of some 200 bytes), and 199 more such files beside it.
func hundredsOfRecords(b *testing.B) *Tree {
	tr := At(b.TempDir())
	if err := os.MkdirAll(tr.Path(RecordsDir), 0o755); err != nil {
		b.Fatal(err)
	}
	for h := range 200 {
		var f strings.Builder
		for i := range 500 {
			f.WriteString(recordLine(fmt.Sprintf("T-%d", max(1, h*100)+i%99), i, 200))
		}
		if err := os.WriteFile(tr.Path(RecordsFile(fmt.Sprintf("T-%d", max(1, h*100)))), []byte(f.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return tr
}

// BenchmarkTaskRecords is what the agent's strom task and a session's prompt pay
// for a task's records: its file of a hundred read, its own lines decoded and
// validated. The research's other files cost nothing.
func BenchmarkTaskRecords(b *testing.B) {
	tr := hundredsOfRecords(b)
	for b.Loop() {
		if recs, err := tr.TaskRecords(b.Context(), "T-50"); err != nil || len(recs) != 5 {
			b.Fatal(len(recs), err)
		}
	}
}

// BenchmarkRecordAppend is a `strom record`: the lock, the line validated and
// appended (and synced).
func BenchmarkRecordAppend(b *testing.B) {
	tr := hundredsOfRecords(b)
	r := Record{Time: t0, Task: "T-7", Text: strings.Repeat("x", 150)}
	for b.Loop() {
		if err := tr.AppendProgress(b.Context(), r); err != nil {
			b.Fatal(err)
		}
	}
}
