package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// committedRecords is every file of records of rev (.strom/records/*.jsonl, and
// an older strom's segments, .strom/progress/*.jsonl), in order: all the records
// that commit holds. git runs git in the research.
func committedRecords(git func(args ...string) string, rev string) string {
	var b strings.Builder
	for _, dir := range []string{".strom/records/", ".strom/progress/"} {
		for _, p := range strings.Fields(git("ls-tree", "--name-only", rev, dir)) {
			b.WriteString(git("show", rev+":"+p))
		}
	}
	return b.String()
}

// TestMigrateRecordsByTheCLI runs strom on a research written by strom at 5ce811e
// (every record in .strom/progress.jsonl, one not committed, a task changed by a
// run that was killed): status, task, log and task list change nothing; the first
// run moves the records into the files of a hundred beside their tasks in a commit
// of its own before its session, and the session's record goes after them.
func TestMigrateRecordsByTheCLI(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	tar := exec.Command("tar", "-xzf", filepath.Join("..", "..", "harness", "testdata", "research-5ce811e.tar.gz"), "-C", h.dir)
	if out, err := tar.CombinedOutput(); err != nil {
		t.Fatalf("unpack: %v\n%s", err, out)
	}
	h.repo = filepath.Join(h.dir, "research")
	git := func(args ...string) string { return h.git(t, args...) }
	records, err := os.ReadFile(filepath.Join(h.repo, ".strom", "progress.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(git("rev-parse", "HEAD"))
	status := git("status", "--porcelain")

	if out := h.must(t, "task", "show", "T-2"); !strings.Contains(out, "Letters 1 to 3 read: none names Anna") {
		t.Errorf("strom task show T-2 lacks its record:\n%s", out)
	}
	h.must(t, "status")
	h.must(t, "log")
	h.must(t, "task", "list")
	if now, _ := os.ReadFile(filepath.Join(h.repo, ".strom", "progress.jsonl")); string(now) != string(records) {
		t.Fatal("a reading command changed progress.jsonl")
	}
	if _, err := os.Stat(filepath.Join(h.repo, ".strom", "progress")); err == nil {
		t.Fatal("a reading command made segments")
	}
	if _, err := os.Stat(filepath.Join(h.repo, ".strom", "records")); err == nil {
		t.Fatal("a reading command made files of records")
	}
	if got := git("status", "--porcelain"); got != status || strings.TrimSpace(git("rev-parse", "HEAD")) != head {
		t.Fatalf("a reading command changed the research:\n%s", got)
	}

	h.must(t, "run", "--agent", "command", "--", "sh", "-c", `strom record "the farms of 1850" && strom done`)
	migrations := strings.Fields(git("log", "--format=%H", "--grep=^Strom-Migrate: progress to records/$"))
	if len(migrations) != 1 {
		t.Fatalf("%d commits migrate the records, want 1", len(migrations))
	}
	if parent := strings.TrimSpace(git("rev-parse", migrations[0]+"~1")); parent != head {
		t.Errorf("the migration is not the first commit after the old HEAD")
	}
	if got := committedRecords(git, migrations[0]); got != string(records) {
		t.Errorf("the migration's files of records are not progress.jsonl byte for byte:\n%s", got)
	}
	if _, err := exec.Command("git", "-C", h.repo, "cat-file", "-e", "HEAD:.strom/progress.jsonl").CombinedOutput(); err == nil {
		t.Error("HEAD still has progress.jsonl")
	}
	after := committedRecords(git, "HEAD")
	if !strings.HasPrefix(after, string(records)) || !strings.HasSuffix(after, "\"text\":\"the farms of 1850\"}\n") {
		t.Errorf("the records after the session:\n%s", after)
	}
	if subject := git("log", "-1", "--format=%s"); !strings.Contains(subject, "done") {
		t.Errorf("the last commit is not the session's: %s", subject)
	}
}

// TestMigrateSegmentsByTheCLI: a research whose records are in an older strom's
// segments (.strom/progress/000001.jsonl, …: records of tasks of several hundreds,
// interleaved) is read as it is by the reading commands, and the first write moves
// every line, byte for byte, into the file of its task's hundred, each task's
// records in their order, in a commit of its own; the segments are gone from it.
func TestMigrateSegmentsByTheCLI(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	git := func(args ...string) string { return h.git(t, args...) }
	git("init", "-q")
	h.must(t, "init", "--agent", "demo")
	for i := 1; i <= 3; i++ {
		h.must(t, "task", "add", fmt.Sprintf("Task %d", i))
	}
	line := func(task string, n int) string {
		return fmt.Sprintf(`{"version":1,"time":"2026-11-30T09:%02d:00Z","task":%q,"text":"finding %d of %s"}`, n, task, n, task) + "\n"
	}
	var seg1, seg2 strings.Builder
	want := map[string]*strings.Builder{"records/T-1-99.jsonl": {}, "records/T-100-199.jsonl": {}, "records/T-200-299.jsonl": {}}
	for n, task := range []string{"T-1", "T-150", "T-2", "T-1", "T-250", "T-150", "T-3", "T-1"} {
		l := line(task, n)
		if n < 5 {
			seg1.WriteString(l)
		} else {
			seg2.WriteString(l)
		}
		rel := map[string]string{"T-1": "records/T-1-99.jsonl", "T-2": "records/T-1-99.jsonl", "T-3": "records/T-1-99.jsonl",
			"T-150": "records/T-100-199.jsonl", "T-250": "records/T-200-299.jsonl"}[task]
		want[rel].WriteString(l)
	}
	dir := filepath.Join(h.repo, ".strom", "progress")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "000001.jsonl"), []byte(seg1.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "000002.jsonl"), []byte(seg2.String()), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "a research of segments")
	head := strings.TrimSpace(git("rev-parse", "HEAD"))

	if out := h.must(t, "task", "show", "T-1"); !strings.Contains(out, "finding 0 of T-1") || !strings.Contains(out, "finding 7 of T-1") {
		t.Errorf("strom task show T-1 of the segments:\n%s", out)
	}
	if st := git("status", "--porcelain"); st != "" || strings.TrimSpace(git("rev-parse", "HEAD")) != head {
		t.Fatalf("a reading command changed the research:\n%s", st)
	}

	h.must(t, "record", "--task", "T-2", "after the move")
	migration := strings.TrimSpace(git("log", "-1", "--format=%H", "--grep=^Strom-Migrate: progress to records/$"))
	if migration == "" || strings.TrimSpace(git("rev-parse", migration+"~1")) != head {
		t.Fatalf("the migration is not one commit on the old HEAD: %q", migration)
	}
	if files := git("show", "--name-status", "--no-renames", "--format=", migration); files !=
		"D\t.strom/progress/000001.jsonl\nD\t.strom/progress/000002.jsonl\nA\t.strom/records/T-1-99.jsonl\nA\t.strom/records/T-100-199.jsonl\nA\t.strom/records/T-200-299.jsonl\n" {
		t.Errorf("the migration commit holds\n%s", files)
	}
	moved := 0
	for rel, b := range want {
		if got := git("show", migration+":.strom/"+rel); got != b.String() {
			t.Errorf("%s after the migration:\n%s\nwant\n%s", rel, got, b.String())
		}
		moved += strings.Count(b.String(), "\n")
	}
	if moved != 8 {
		t.Fatalf("%d lines moved", moved)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the segments' folder is still there")
	}
	if got, _ := os.ReadFile(filepath.Join(h.repo, ".strom", "records", "T-1-99.jsonl")); !strings.HasPrefix(string(got), want["records/T-1-99.jsonl"].String()) ||
		!strings.Contains(string(got), `"task":"T-2","text":"after the move"`) {
		t.Errorf("the record after the move:\n%s", got)
	}
	if out := h.must(t, "task", "show", "T-1"); strings.Count(out, "of T-1\n") != 3 {
		t.Errorf("T-1 after the move:\n%s", out)
	}
}
