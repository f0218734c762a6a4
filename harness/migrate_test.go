package harness

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/session"
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

// openFixture unpacks testdata/NAME.tar.gz, a research another strom wrote, and
// opens it with the clock at HOUR:00 on 1 December 2026; it returns the research
// and its folder.
func openFixture(t *testing.T, name string, hour int) (*research.Research, string) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	dir := t.TempDir()
	unpack(t, filepath.Join("testdata", name+".tar.gz"), dir)
	root := filepath.Join(dir, "research")
	r, err := research.Open(root, research.Env{Clock: clock.NewFake(time.Date(2026, 12, 1, hour, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	return r, root
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
	r, root := openFixture(t, "research-b0236fb", 9)
	ctx := context.Background()
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
	added, err := queue.AddTask(ctx, r, "Ask the archive in Písek", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if added.ID != "T-8" {
		t.Errorf("the new task is %s, want T-8 (next_id kept)", added.ID)
	}
	// The records moved first, in a commit of their own
	// (migrateprogress_test.go), then the queue.
	checkMigration(t, root, head, 2, "1 to 4", "M\t.strom/queue.json", "A\t.strom/tasks/T-1-99.json")
	if msg := gitOut(t, root, "log", "-1", "--format=%b", "HEAD~1"); !strings.Contains(msg, "Strom-Migrate: progress to records/") {
		t.Errorf("the commit before the queue's migration is not the records':\n%s", msg)
	}
	if files := gitOut(t, root, "show", "--name-status", "--no-renames", "--format=", "HEAD~1"); !strings.Contains(files, "M\t.strom/.gitattributes") {
		t.Errorf("the records' migration leaves .gitattributes:\n%s", files)
	}
	if shard := gitOut(t, root, "show", "HEAD:.strom/tasks/T-1-99.json"); strings.Contains(shard, `"T-8"`) {
		t.Error("the migration commit holds the change that caused it")
	}
	// HEAD's queue is the old queue, task for task, field for field, in order.
	committed := statefiles.At(t.TempDir())
	gitOut(t, root, "worktree", "add", "-q", committed.Root, "HEAD")
	after, err := committed.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	if after.NextID != before.NextID || !reflect.DeepEqual(after.Tasks, doneLast(before.Tasks)) {
		t.Errorf("migrated queue differs:\n got %+v\nwant %+v", after, before)
	}
	if now := recordsText(t, r.Tree); now != string(records) {
		t.Error("the records changed")
	}
	if v, _ := r.Tree.QueueVersionOnDisk(); v != statefiles.QueueVersion {
		t.Errorf("queue.json is version %d after the migration", v)
	}
	if status := gitOut(t, root, "status", "--porcelain"); status != " M .strom/queue.json\n M .strom/tasks/T-1-99.json\n" {
		t.Errorf("after the migration and the change, git status is\n%s", status)
	}
	// The run's rules work on the migrated queue: the task left started returns.
	if err := session.RecoverCrash(ctx, r, func(string) {}, ""); err != nil {
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
	newer := []byte(`{"version": 5, "next_id": 1, "order": [], "shards": 16}`)
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
		if err == nil || !strings.Contains(err.Error(), "is written by a newer strom (version 5; this strom knows up to 4): update strom") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if now, _ := os.ReadFile(tr.Path(statefiles.QueueFile)); string(now) != string(newer) {
		t.Error("the newer queue was changed")
	}
}

// checkMigration checks that HEAD is the migration commit of the queue, versions
// ("2 to 3"), made the commits after head (the records' migration before it), with
// the name-status lines want.
func checkMigration(t *testing.T, root, head string, after int, versions string, want ...string) {
	t.Helper()
	log := gitOut(t, root, "log", "-1", "--format=%s%n%b")
	if !strings.Contains(log, "strom: queue.json lists the tasks not done, every task in its file of a hundred") || !strings.Contains(log, "Strom-Migrate: queue.json "+versions) {
		t.Errorf("the last commit is not the migration:\n%s", log)
	}
	if parent := strings.TrimSpace(gitOut(t, root, "rev-parse", fmt.Sprintf("HEAD~%d", after))); parent != head {
		t.Errorf("the migration is not %d commits on top of the old HEAD", after)
	}
	files := gitOut(t, root, "show", "--name-status", "--format=", "HEAD")
	for _, w := range want {
		if !strings.Contains(files, w) {
			t.Errorf("the migration commit lacks %q:\n%s", w, files)
		}
	}
}

// TestMigrateResearchOf5ce811e opens a research written by strom with a file per
// task (testdata/research-5ce811e.tar.gz: made by strom at 5ce811e, queue.json of
// version 2, tasks done, open, waiting, parked and moved, records, park counters,
// and a run killed mid-session: T-2 left started, its record and its task's
// change not committed). Reading commands read it as it is and change nothing;
// the first change migrates it to files of a hundred with a commit of its own that
// removes the task files, keeping every task, field, the order, every record and
// park counter; the run's rules then work on the migrated queue.
func TestMigrateResearchOf5ce811e(t *testing.T) {
	r, root := openFixture(t, "research-5ce811e", 16)
	ctx := context.Background()
	if v, _ := r.Tree.QueueVersionOnDisk(); v != 2 {
		t.Fatalf("the fixture's queue is version %d, want 2", v)
	}
	before, err := r.Tree.LoadQueue()
	if err != nil {
		t.Fatalf("the fixture's queue: %v", err)
	}
	if len(before.Tasks) != 8 {
		t.Fatalf("the fixture has %d tasks, want 8", len(before.Tasks))
	}
	keep := map[string][]byte{}
	for _, f := range []string{statefiles.QueueFile, statefiles.ProgressFile, statefiles.ParkFile} {
		keep[f], _ = os.ReadFile(r.Tree.Path(f))
	}
	head := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD"))
	status := gitOut(t, root, "status", "--porcelain")

	// Reading commands read version 2 as it is.
	if sum, err := r.Tree.QueueSummary(ctx); err != nil || sum.Total != 8 || sum.Counts[statefiles.Started] != 1 {
		t.Fatalf("summary of the old queue = %+v, %v", sum, err)
	}
	if task, err := r.Tree.FindTask(ctx, "T-2"); err != nil || task.State != statefiles.Started || task.Session == "" {
		t.Fatalf("T-2 of the old queue = %+v, %v", task, err)
	}
	if page, total, err := r.Tree.QueuePage(ctx, "", 0, 3); err != nil || total != 8 || len(page) != 3 || page[1].ID != "T-6" {
		t.Fatalf("the first page of the old queue = %+v, %d, %v", page, total, err)
	}
	if _, err := ReadStatus(ctx, r); err != nil {
		t.Fatal(err)
	}
	if now := gitOut(t, root, "status", "--porcelain"); now != status {
		t.Errorf("a reading command changed the research:\n%s", now)
	}
	if got := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD")); got != head {
		t.Fatal("a reading command made a commit")
	}

	// The first change migrates, with a commit of its own before the change.
	added, err := queue.AddTask(ctx, r, "Ask the archive in Písek", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if added.ID != "T-9" {
		t.Errorf("the new task is %s, want T-9 (next_id kept)", added.ID)
	}
	var gone []string
	for i := 1; i <= 8; i++ {
		gone = append(gone, fmt.Sprintf("D\t.strom/tasks/T-%d.json", i))
	}
	checkMigration(t, root, head, 2, "2 to 4", append([]string{"M\t.strom/queue.json", "A\t.strom/tasks/T-1-99.json"}, gone...)...)
	if files := gitOut(t, root, "show", "--name-only", "--format=", "HEAD"); strings.Contains(files, "progress") || strings.Contains(files, "park") {
		t.Errorf("the migration commit holds more than the queue:\n%s", files)
	}
	if shard := gitOut(t, root, "show", "HEAD:.strom/tasks/T-1-99.json"); strings.Contains(shard, `"T-9"`) {
		t.Error("the migration commit holds the change that caused it")
	}
	if left, _ := filepath.Glob(r.Tree.Path(statefiles.TasksDir, "T-?.json")); len(left) != 0 {
		t.Errorf("task files of version 2 are left: %v", left)
	}
	// HEAD's queue is the old HEAD's, task for task, field for field, in order:
	// the migration commits the layout and no change of a task.
	load := func(rev string) *statefiles.Queue {
		t.Helper()
		at := statefiles.At(t.TempDir())
		gitOut(t, root, "worktree", "add", "-q", "--detach", at.Root, rev)
		q, err := at.LoadQueue()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	was, after := load(head), load("HEAD")
	if was.Version != 2 || after.Version != 4 || after.NextID != was.NextID || !reflect.DeepEqual(after.Tasks, doneLast(was.Tasks)) {
		t.Errorf("migrated queue differs:\n got %+v\nwant %+v", after, was)
	}
	// The work tree's queue is the old work tree's, with the new task: T-2 left
	// started by the killed run stays a change not committed yet.
	now, err := r.Tree.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	if want := doneLast(append(slices.Clone(before.Tasks), statefiles.Task{ID: "T-9"})); now.NextID != 10 || len(now.Tasks) != 9 || !sameIDs(now.Tasks, want) {
		t.Errorf("the work tree's queue after the migration:\n got %+v\nwant %+v and T-9", now, before)
	}
	if diff := gitOut(t, root, "diff", "HEAD", "--", ".strom/tasks/T-1-99.json"); !strings.Contains(diff, `+      "state": "started",`) || !strings.Contains(diff, `+      "session": "20261201T151036Z-cb95"`) {
		t.Errorf("T-2's change is not left uncommitted:\n%s", diff)
	}
	if now := recordsText(t, r.Tree); now != string(keep[statefiles.ProgressFile]) {
		t.Error("the records changed")
	}
	if now, _ := os.ReadFile(r.Tree.Path(statefiles.ParkFile)); string(now) != string(keep[statefiles.ParkFile]) {
		t.Error("the park counters changed")
	}
	if v, _ := r.Tree.QueueVersionOnDisk(); v != statefiles.QueueVersion {
		t.Errorf("queue.json is version %d after the migration", v)
	}
	if st := gitOut(t, root, "status", "--porcelain", "--untracked-files=no"); st != " M .strom/queue.json\n M .strom/tasks/T-1-99.json\n" {
		t.Errorf("after the migrations and the change, git status is\n%s", st)
	}
	// The run's rules work on the migrated queue: the task left started returns.
	if err := session.RecoverCrash(ctx, r, func(string) {}, ""); err != nil {
		t.Fatal(err)
	}
	if task, err := r.Tree.FindTask(ctx, "T-2"); err != nil || task.State != statefiles.Open {
		t.Errorf("T-2 after recovery = %+v, %v", task, err)
	}
	park, err := r.Tree.LoadPark()
	if err != nil || park.Empty["T-2"] < 1 || park.Unfinished["T-2"] < 1 {
		t.Errorf("park counters after recovery = %+v, %v", park, err)
	}
}

// doneLast is tasks in the order a queue of version 4 reads them: the tasks not
// done in their order, then the done ones by id.
func doneLast(tasks []statefiles.Task) []statefiles.Task {
	var live, done []statefiles.Task
	for _, t := range tasks {
		if t.State == statefiles.Done {
			done = append(done, t)
		} else {
			live = append(live, t)
		}
	}
	slices.SortFunc(done, func(x, y statefiles.Task) int { return queue.ByIDNumber(x.ID, y.ID) })
	return append(live, done...)
}

func sameIDs(a, b []statefiles.Task) bool {
	return slices.EqualFunc(a, b, func(x, y statefiles.Task) bool { return x.ID == y.ID })
}

// TestMigrateResearchOf2ee4e57 opens a research written by strom with queue.json
// of version 3, the order of every task (testdata/research-2ee4e57.tar.gz: made by
// strom at 2ee4e57: 105 tasks in two files of a hundred, three done by sessions
// with their records, one parked, one moved, and T-8 reworded, not committed).
// Reading commands read it as it is and change nothing; the first change
// migrates queue.json to version 4 in a commit of its own that changes no task's
// file, keeping the order of the tasks not done and every task byte for byte.
func TestMigrateResearchOf2ee4e57(t *testing.T) {
	r, root := openFixture(t, "research-2ee4e57", 17)
	ctx := context.Background()
	if v, _ := r.Tree.QueueVersionOnDisk(); v != 3 {
		t.Fatalf("the fixture's queue is version %d, want 3", v)
	}
	before, err := r.Tree.LoadQueue()
	if err != nil {
		t.Fatalf("the fixture's queue: %v", err)
	}
	head := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD"))
	status := gitOut(t, root, "status", "--porcelain")
	if sum, err := r.Tree.QueueSummary(ctx); err != nil || sum.Total != 105 || sum.Counts[statefiles.Done] != 3 || sum.Counts[statefiles.Parked] != 1 {
		t.Fatalf("summary of the old queue = %+v, %v", sum, err)
	}
	if page, total, err := r.Tree.QueuePage(ctx, statefiles.Open, 0, 2); err != nil || total != 101 || page[0].ID != "T-7" || page[1].ID != "T-4" {
		t.Fatalf("the open tasks of the old queue = %+v, %d, %v", page, total, err)
	}
	if now := gitOut(t, root, "status", "--porcelain"); now != status {
		t.Errorf("a reading command changed the research:\n%s", now)
	}

	added, err := queue.AddTask(ctx, r, "Ask the archive in Písek", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if added.ID != "T-106" {
		t.Errorf("the new task is %s, want T-106 (next_id kept)", added.ID)
	}
	checkMigration(t, root, head, 1, "3 to 4", "M\t.strom/queue.json")
	if files := gitOut(t, root, "show", "--name-only", "--format=", "HEAD"); strings.TrimSpace(files) != ".strom/queue.json" {
		t.Errorf("the migration commit changes more than queue.json:\n%s", files)
	}
	want := "{\n  \"version\": 4,\n  \"next_id\": 106,\n  \"done\": 3,\n  \"tasks\": [\n    \"T-7 open\",\n    \"T-4 open\",\n    \"T-5 parked\",\n    \"T-6 open\",\n"
	if q := gitOut(t, root, "show", "HEAD:.strom/queue.json"); !strings.HasPrefix(q, want) || strings.Count(q, " open\"") != 101 || strings.Contains(q, "T-106") {
		t.Errorf("the migrated queue.json:\n%s", q)
	}
	// Every task's file in HEAD is the old HEAD's, byte for byte.
	if diff := gitOut(t, root, "diff", head, "HEAD", "--", ".strom/tasks", ".strom/records"); diff != "" {
		t.Errorf("the migration changed the tasks' or records' files:\n%s", diff)
	}
	now, err := r.Tree.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	wantTasks := doneLast(append(slices.Clone(before.Tasks), added))
	if !reflect.DeepEqual(now.Tasks, wantTasks) {
		t.Errorf("the work tree's queue after the migration differs from the old one with T-106")
	}
	if diff := gitOut(t, root, "diff", "HEAD", "--", ".strom/tasks/T-1-99.json"); !strings.Contains(diff, `volume 1"`) {
		t.Errorf("T-8's rewording is not left uncommitted:\n%s", diff)
	}
}
