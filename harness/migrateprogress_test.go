package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/harness/views"
	"github.com/strom-research/strom/statefiles"
)

// recordsText is every file of records' bytes in the work tree, in order.
func recordsText(t *testing.T, tr *statefiles.Tree) string {
	t.Helper()
	names, _ := filepath.Glob(tr.Path(statefiles.RecordsDir, "*.jsonl"))
	var b strings.Builder
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestMigrateRecordsOfMain opens a research written by strom at 5ce811e (every
// record in .strom/progress.jsonl, one of them not committed yet, a task left
// changed by a run that was killed). Reading commands read progress.jsonl as it is
// and change nothing; the first write moves the records into the files of a
// hundred beside their tasks, byte for byte and in order, in a commit of its own
// before the write's change.
func TestMigrateRecordsOfMain(t *testing.T) {
	r, root := openFixture(t, "research-5ce811e", 16)
	ctx := context.Background()
	legacy := r.Tree.Path(statefiles.ProgressFile)
	records, err := os.ReadFile(legacy)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD"))
	status := gitOut(t, root, "status", "--porcelain")
	if !strings.Contains(status, " M .strom/progress.jsonl") {
		t.Fatalf("the fixture has no uncommitted record:\n%s", status)
	}

	// Reading commands read progress.jsonl as it is.
	all, err := r.Tree.LoadProgress()
	if err != nil || len(all) != 5 {
		t.Fatalf("records of the old layout = %d, %v", len(all), err)
	}
	t2, err := queue.Records(ctx, r, "T-2")
	if err != nil || len(t2) != 2 || t2[1].Text != "Letters 1 to 3 read: none names Anna" {
		t.Fatalf("T-2's records in the old layout = %+v, %v", t2, err)
	}
	if _, err := ReadStatus(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := views.ReadOverview(ctx, r); err != nil {
		t.Fatal(err)
	}
	if errs := views.CheckStateFiles(r); len(errs) > 0 {
		t.Fatal(errs)
	}
	if now, _ := os.ReadFile(legacy); string(now) != string(records) {
		t.Fatal("a reading command changed progress.jsonl")
	}
	if _, err := os.Stat(r.Tree.Path(statefiles.RecordsDir)); err == nil {
		t.Fatal("a reading command made files of records")
	}
	if got := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD")); got != head {
		t.Fatal("a reading command made a commit")
	}
	if got := gitOut(t, root, "status", "--porcelain"); got != status {
		t.Fatalf("a reading command changed the work tree:\n%s", got)
	}

	// The first write migrates, with a commit of its own before the change.
	_, err = queue.AddTask(ctx, r, "Ask the archive in Písek", "", "")
	if err != nil {
		t.Fatal(err)
	}
	// The queue's own migration (migrate_test.go) follows the records'.
	if parent := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD~2")); parent != head {
		t.Fatalf("the migrations are not two commits on top of the old HEAD")
	}
	msg := gitOut(t, root, "log", "-1", "--format=%s%n%b", "HEAD~1")
	if !strings.Contains(msg, "strom: the records moved into files beside their tasks") || !strings.Contains(msg, "Strom-Migrate: progress to records/") ||
		!strings.Contains(msg, "The 5 records of .strom/progress.jsonl") {
		t.Errorf("the last commit is not the records' migration:\n%s", msg)
	}
	files := gitOut(t, root, "show", "--name-status", "--no-renames", "--format=", "HEAD~1")
	if files != "M\t.strom/.gitattributes\nD\t.strom/progress.jsonl\nA\t.strom/records/T-1-99.jsonl\n" {
		t.Errorf("the migration commit holds\n%s", files)
	}
	if got := gitOut(t, root, "show", "HEAD:.strom/records/T-1-99.jsonl"); got != string(records) {
		t.Errorf("the committed file of records is not progress.jsonl byte for byte:\n%s", got)
	}
	if got := gitOut(t, root, "show", "HEAD:.strom/.gitattributes"); got != statefiles.Attributes {
		t.Errorf("the committed .gitattributes:\n%s", got)
	}
	// The change that caused it is not in it; what was left uncommitted stays so.
	if got := gitOut(t, root, "status", "--porcelain"); !strings.Contains(got, " M .strom/tasks/T-1-99.json") || strings.Contains(got, "progress") {
		t.Errorf("after the migration and the change, git status is\n%s", got)
	}
	if got := recordsText(t, r.Tree); got != string(records) {
		t.Errorf("the files of records are not progress.jsonl:\n%s", got)
	}
	if again, err := queue.Records(ctx, r, "T-2"); err != nil || len(again) != 2 || again[1] != t2[1] {
		t.Errorf("T-2's records after the migration = %+v, %v", again, err)
	}

	// Records go on in the files of records; the run's rules work on the migrated research.
	if err := r.Tree.AppendProgress(ctx, statefiles.Record{Time: r.Now(), Task: "T-6", Text: "the farms of 1850"}); err != nil {
		t.Fatal(err)
	}
	if got := recordsText(t, r.Tree); !strings.HasPrefix(got, string(records)) || !strings.HasSuffix(got, "\"text\":\"the farms of 1850\"}\n") {
		t.Errorf("the new record is not after the old ones:\n%s", got)
	}
	if err := session.RecoverCrash(ctx, r, func(string) {}, ""); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(gitOut(t, root, "log", "--format=%b"), "Strom-Migrate: progress to records/"); n != 1 {
		t.Errorf("%d migration commits, want 1", n)
	}
}

// TestProgressAgainBesideRecords: a progress.jsonl that comes back beside the
// files of records (a merge from a history an older strom wrote) is read with
// them, and the next write moves in its records the files do not hold, in a commit
// of the same kind.
func TestProgressAgainBesideRecords(t *testing.T) {
	r, root := openFixture(t, "research-5ce811e", 16)
	ctx := context.Background()
	records, _ := os.ReadFile(r.Tree.Path(statefiles.ProgressFile))
	// The records and the queue in today's layout (the queue's migration is
	// migrate_test.go's).
	if err := r.Tree.Locked(ctx, r.Tree.MigrateQueue); err != nil {
		t.Fatal(err)
	}
	older := string(records) + `{"version":1,"time":"2026-12-01T15:30:00Z","task":"T-1","text":"the older strom's note"}` + "\n"
	if err := os.WriteFile(r.Tree.Path(statefiles.ProgressFile), []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, root, "add", ".strom/progress.jsonl")
	gitOut(t, root, "-c", "user.name=Eva", "-c", "user.email=eva@example.com", "commit", "-q", "--no-verify", "-m", "merge from an older strom")
	head := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD"))
	if recs, err := queue.Records(ctx, r, "T-1"); err != nil || len(recs) != 3 || recs[2].Text != "the older strom's note" {
		t.Fatalf("T-1 beside the files of records = %+v, %v", recs, err)
	}
	if _, err := r.Tree.LoadProgress(); err != nil {
		t.Fatal(err)
	}
	if _, err := queue.AddTask(ctx, r, "Ask the archive in Písek", "", ""); err != nil {
		t.Fatal(err)
	}
	if parent := strings.TrimSpace(gitOut(t, root, "rev-parse", "HEAD~1")); parent != head {
		t.Fatal("the move is not one commit on top of the merge")
	}
	if msg := gitOut(t, root, "log", "-1", "--format=%b"); !strings.Contains(msg, "The 1 record of .strom/progress.jsonl") || !strings.Contains(msg, "Strom-Migrate: progress to records/") {
		t.Errorf("the move's commit:\n%s", msg)
	}
	if got := recordsText(t, r.Tree); got != older {
		t.Errorf("the files of records after the move:\n%s", got)
	}
	if recs, err := queue.Records(ctx, r, "T-1"); err != nil || len(recs) != 3 {
		t.Errorf("T-1 after the move = %+v, %v", recs, err)
	}
}

// TestOlderStromAttributes: strom rewrites a .gitattributes an older strom wrote,
// never one a person changed.
func TestOlderStromAttributes(t *testing.T) {
	t.Parallel()
	head := "# strom merges its own files where two lines of history meet (strom hooks install).\n"
	for text, want := range map[string]bool{
		statefiles.Attributes: false,
		head + "queue.json merge=strom-queue\nprogress.jsonl merge=strom-progress\npark.json merge=strom-park\n":                                true,
		head + "queue.json merge=strom-queue\ntasks/*.json merge=strom-task\nprogress.jsonl merge=strom-progress\npark.json merge=strom-park\n": true,
		head + "queue.json merge=strom-queue\n*.pdf binary\n":                                                                                   false,
	} {
		if got := research.OlderStromAttributes(text); got != want {
			t.Errorf("olderStromAttributes(%q) = %v, want %v", text, got, want)
		}
	}
}
