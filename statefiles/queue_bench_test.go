package statefiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// bigQueue writes a queue of n tasks byte for byte as strom writes it (queue.json
// of version 4, the tasks in files of a hundred, as scripts/bench-age.sh's big
// research), the last quarter open and the others done, and reads it once: every
// shard validated.
func bigQueue(b *testing.B, n int) *Tree {
	b.Helper()
	tr := At(b.TempDir())
	if err := os.MkdirAll(tr.Path(TasksDir), 0o755); err != nil {
		b.Fatal(err)
	}
	o := &Order{NextID: n + 1}
	var buf bytes.Buffer
	flush := func(rel string) {
		buf.WriteString("]}")
		var out bytes.Buffer
		if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
			b.Fatal(err)
		}
		out.WriteByte('\n')
		if err := os.WriteFile(tr.Path(rel), out.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		buf.Reset()
	}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("T-%d", i)
		if i > 1 && shardOf(i) != shardOf(i-1) {
			flush(shardOf(i - 1))
		}
		if buf.Len() == 0 {
			buf.WriteString(`{"tasks":[`)
		} else {
			buf.WriteByte(',')
		}
		task := Task{ID: id, Title: fmt.Sprintf("Find the baptism record number %d in the parish books of Tábor", i),
			Body:  "Parish of Tábor, around 1850. Look in the registers and write down what was found, with the sources and page numbers.",
			State: Done, Created: t0, Updated: t0}
		if i > n-n/4 {
			task.State = Open
		}
		if task.State == Done {
			o.Done++
		} else {
			o.Live = append(o.Live, Entry{ID: id, State: task.State})
		}
		one, err := compactTask(&task)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(one)
	}
	flush(shardOf(n))
	data, err := EncodeOrder(o)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(tr.Path(QueueFile), data, 0o644); err != nil {
		b.Fatal(err)
	}
	if _, _, err := tr.QueuePage(b.Context(), "", 0, n); err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkFindTask is what `strom task` and `strom record` pay to read their task
// in a queue of 20,000 tasks: one task of the file of a hundred that holds it.
func BenchmarkFindTask(b *testing.B) {
	tr := bigQueue(b, 20000)
	for _, id := range []string{"T-7", "T-12345"} {
		if _, err := tr.FindTask(b.Context(), id); err != nil { // the memo learns the shard
			b.Fatal(err)
		}
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				if task, err := tr.FindTask(b.Context(), id); err != nil || task.ID != id {
					b.Fatal(task.ID, err)
				}
			}
		})
	}
}

// BenchmarkQueuePage is what `strom task list` pays for its first page (100 tasks)
// of a queue of 20,000, all of them and the open ones (the last quarter).
func BenchmarkQueuePage(b *testing.B) {
	tr := bigQueue(b, 20000)
	for _, c := range []struct {
		name string
		want State
	}{{"all", ""}, {"open", Open}} {
		if _, _, err := tr.QueuePage(b.Context(), c.want, 0, 100); err != nil { // the memo learns the shards
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if page, _, err := tr.QueuePage(b.Context(), c.want, 0, 100); err != nil || len(page) != 100 {
					b.Fatal(len(page), err)
				}
			}
		})
	}
}
