package statefiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// version2 writes a queue of version 2 into tr: n tasks, a file each, the last
// one first in the order.
func version2(t *testing.T, tr *Tree, n int) *Queue {
	t.Helper()
	q := &Queue{Version: 2, NextID: n + 1}
	order := []string{fmt.Sprintf("T-%d", n)}
	for i := 1; i <= n; i++ {
		task := Task{ID: fmt.Sprintf("T-%d", i), Title: fmt.Sprintf("Task %d", i), State: Open, Created: t0, Updated: t0}
		if i%3 == 0 {
			task.State, task.Reason, task.ParkedFrom = Parked, "the register is away", Open
		}
		q.Tasks = append(q.Tasks, task)
		if i < n {
			order = append(order, task.ID)
		}
	}
	q.Tasks = append(q.Tasks[n-1:], q.Tasks[:n-1]...)
	os.MkdirAll(tr.Path(TasksDir), 0o755)
	for _, task := range q.Tasks {
		if err := os.WriteFile(tr.Path(TaskFile(task.ID)), mustMarshalTask(t, task), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := fmt.Sprintf(`{"version": 2, "next_id": %d, "order": ["%s"]}`, n+1, strings.Join(order, `", "`))
	if err := os.WriteFile(tr.Path(QueueFile), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return q
}

// snapshotDir reads every file under dir, by path.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.Contains(p, string(filepath.Separator)+RunDir+string(filepath.Separator)) {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// TestMigrateVersion2: a queue of version 2 is read as it is; the first write
// migrates it into files of a hundred before its own change, removing the task
// files, and a migration whose commit fails leaves every file as it was.
func TestMigrateVersion2(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	before := version2(t, tr, 150)
	if q, err := tr.LoadQueue(); err != nil || !reflect.DeepEqual(q.Tasks, before.Tasks) {
		t.Fatalf("the queue of version 2 read as %v", err)
	}
	if task, err := tr.FindTask(t.Context(), "T-120"); err != nil || task.Title != "Task 120" {
		t.Fatalf("T-120 of version 2 = %+v, %v", task, err)
	}
	files := snapshotDir(t, tr.Dir)

	fail := errors.New("git refused the commit")
	tr.OnMigrate = func(from, to, tasks int) error { return fail }
	add := func(id string) (Task, error) { return NewTask(id, "Added", "", t0) }
	if _, err := tr.AddTask(t.Context(), add); !errors.Is(err, fail) {
		t.Fatalf("a migration whose commit failed: %v", err)
	}
	if now := snapshotDir(t, tr.Dir); !reflect.DeepEqual(now, files) {
		t.Errorf("a failed migration left the files changed: %d files, was %d", len(now), len(files))
	}

	var migrated []int
	tr.OnMigrate = func(from, to, tasks int) error {
		migrated = append(migrated, from, to, tasks)
		// The commit sees the migrated queue alone: not the task being added.
		if q, err := tr.LoadQueue(); err != nil || !reflect.DeepEqual(q.Tasks, before.Tasks) {
			t.Errorf("at the migration's commit the queue is %v", err)
		}
		return nil
	}
	added, err := tr.AddTask(t.Context(), add)
	if err != nil || added.ID != "T-151" {
		t.Fatalf("added %+v, %v", added, err)
	}
	if !reflect.DeepEqual(migrated, []int{2, 4, 150}) {
		t.Errorf("OnMigrate got %v, want 2 to 4 with 150 tasks", migrated)
	}
	left, _ := filepath.Glob(tr.Path(TasksDir, "*"))
	if len(left) != 2 || filepath.Base(left[0]) != "T-1-99.json" || filepath.Base(left[1]) != "T-100-199.json" {
		t.Errorf("the tasks' folder holds %v, want T-1-99.json and T-100-199.json", left)
	}
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	if q.Version != 4 || len(q.Tasks) != 151 || !reflect.DeepEqual(q.Tasks[:150], before.Tasks) || q.Tasks[150].ID != "T-151" {
		t.Errorf("after the migration the queue is version %d with %d tasks", q.Version, len(q.Tasks))
	}
	if got := tr.WrittenTasks(); !reflect.DeepEqual(got, []string{"T-151"}) {
		t.Errorf("tasks written since the last commit: %v, want T-151 alone (the migration committed the rest)", got)
	}
}

func mustMarshalTask(t *testing.T, task Task) []byte {
	t.Helper()
	b, err := marshal(&task)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
