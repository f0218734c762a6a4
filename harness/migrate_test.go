package harness

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// unpack extracts a tar.gz under dir.
func unpack(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, os.FileMode(h.Mode)&0o777); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestMigrateResearchOfMain opens a research written by strom before the tasks had
// files of their own (testdata/research-b0236fb.tar.gz: made by strom at b0236fb,
// with tasks done, open, started, waiting, parked and moved, records, a question
// answered and one waiting, park counters). Reading commands leave it as it is;
// the first change migrates it with a commit of its own, keeping every task, field,
// the order and every record.
func TestMigrateResearchOfMain(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	dir := t.TempDir()
	unpack(t, filepath.Join("testdata", "research-b0236fb.tar.gz"), dir)
	root := filepath.Join(dir, "research")
	ctx := context.Background()
	r, err := Open(root, Env{Clock: clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	oldQueue, err := os.ReadFile(r.Tree.Path(statefiles.QueueFile))
	if err != nil {
		t.Fatal(err)
	}
	before, err := statefiles.ParseQueue("old", oldQueue)
	if err != nil {
		t.Fatalf("the fixture's queue: %v", err)
	}
	records, _ := os.ReadFile(r.Tree.Path(statefiles.ProgressFile))
	head := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD"))

	// Reading commands read version 1 as it is.
	if sum, err := r.Tree.QueueSummary(ctx); err != nil || sum.Total != len(before.Tasks) || sum.Counts[statefiles.Started] != 1 {
		t.Fatalf("summary of the old queue = %+v, %v", sum, err)
	}
	if task, err := r.Tree.FindTask(ctx, "T-4"); err != nil || task.State != statefiles.Waiting || len(task.Questions) != 1 {
		t.Fatalf("T-4 of the old queue = %+v, %v", task, err)
	}
	if page, _, err := r.Tree.QueuePage(ctx, statefiles.Open, 0, 10); err != nil || len(page) != 3 || page[0].ID != "T-6" {
		t.Fatalf("open tasks of the old queue = %+v, %v", page, err)
	}
	if now, _ := os.ReadFile(r.Tree.Path(statefiles.QueueFile)); string(now) != string(oldQueue) {
		t.Fatal("a reading command changed the old queue")
	}
	if got := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD")); got != head {
		t.Fatal("a reading command made a commit")
	}

	// The first change migrates, with a commit of its own before the change.
	added, err := r.AddTask(ctx, "Ask the archive in Písek", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if added.ID != "T-8" {
		t.Errorf("the new task is %s, want T-8 (next_id kept)", added.ID)
	}
	log := gitOut(t, root, "log", "-1", "--format=%s%n%b")
	if !strings.Contains(log, "strom: the queue's tasks moved to files of their own") || !strings.Contains(log, "Strom-Migrate: queue.json 1 to 2") {
		t.Errorf("the last commit is not the migration:\n%s", log)
	}
	// The records moved first, in a commit of their own
	// (migrateprogress_test.go), then the queue.
	if parent := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD~2")); parent != head {
		t.Errorf("the migrations are not two commits on top of the old HEAD")
	}
	if msg := gitOut(t, root, "log", "-1", "--format=%b", "HEAD~1"); !strings.Contains(msg, "Strom-Migrate: progress.jsonl to progress/") {
		t.Errorf("the commit before the queue's migration is not the records':\n%s", msg)
	}
	if files := gitOut(t, root, "show", "--name-status", "--no-renames", "--format=", "HEAD~1"); !strings.Contains(files, "M\t.strom/.gitattributes") {
		t.Errorf("the records' migration leaves .gitattributes:\n%s", files)
	}
	files := gitOut(t, root, "show", "--name-status", "--format=", "HEAD")
	for _, want := range []string{"M\t.strom/queue.json", "A\t.strom/tasks/T-1.json", "A\t.strom/tasks/T-7.json"} {
		if !strings.Contains(files, want) {
			t.Errorf("the migration commit lacks %q:\n%s", want, files)
		}
	}
	if strings.Contains(files, "T-8") {
		t.Error("the migration commit holds the change that caused it")
	}
	// HEAD's queue is the old queue, task for task, field for field, in order.
	committed := statefiles.At(t.TempDir())
	gitOut(t, root, "worktree", "add", "-q", committed.Root, "HEAD")
	after, err := committed.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	if after.NextID != before.NextID || !reflect.DeepEqual(after.Tasks, before.Tasks) {
		t.Errorf("migrated queue differs:\n got %+v\nwant %+v", after, before)
	}
	if now := segmentsText(t, r.Tree); now != string(records) {
		t.Error("the records changed")
	}
	if v, _ := r.Tree.QueueVersionOnDisk(); v != statefiles.QueueVersion {
		t.Errorf("queue.json is version %d after the migration", v)
	}
	if status := gitOut(t, root, "status", "--porcelain"); status != "?? .strom/tasks/T-8.json\n M .strom/queue.json\n" && status != " M .strom/queue.json\n?? .strom/tasks/T-8.json\n" {
		t.Errorf("after the migration and the change, git status is\n%s", status)
	}
	// The run's rules work on the migrated queue: the task left started returns.
	if err := r.recoverCrash(ctx, func(string) {}, ""); err != nil {
		t.Fatal(err)
	}
	if task, err := r.Tree.FindTask(ctx, "T-3"); err != nil || task.State != statefiles.Open {
		t.Errorf("T-3 after recovery = %+v, %v", task, err)
	}
}

// TestNewerQueue: a queue.json of a version this strom does not know is said in one
// sentence, and nothing is written.
func TestNewerQueue(t *testing.T) {
	t.Parallel()
	tr := statefiles.At(t.TempDir())
	os.MkdirAll(tr.Dir, 0o755)
	newer := []byte(`{"version": 3, "next_id": 1, "order": [], "shards": 16}`)
	os.WriteFile(tr.Path(statefiles.QueueFile), newer, 0o644)
	for name, f := range map[string]func() error{
		"load":    func() error { _, err := tr.LoadQueue(); return err },
		"find":    func() error { _, err := tr.FindTask(t.Context(), "T-1"); return err },
		"summary": func() error { _, err := tr.QueueSummary(t.Context()); return err },
		"add": func() error {
			_, err := tr.AddTask(t.Context(), func(id string) (statefiles.Task, error) { return statefiles.NewTask(id, "x", "", time.Now()) })
			return err
		},
	} {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "is written by a newer strom (version 3; this strom knows up to 2): update strom") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if now, _ := os.ReadFile(tr.Path(statefiles.QueueFile)); string(now) != string(newer) {
		t.Error("the newer queue was changed")
	}
}
