package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// committedRecords is every record segment of rev (.strom/progress/*.jsonl), in
// order: all the records that commit holds. git runs git in the research.
func committedRecords(git func(args ...string) string, rev string) string {
	var b strings.Builder
	for _, p := range strings.Fields(git("ls-tree", "--name-only", rev, ".strom/progress/")) {
		b.WriteString(git("show", rev+":"+p))
	}
	return b.String()
}

// TestMigrateRecordsByTheCLI runs strom on a research written by strom at 5ce811e
// (every record in .strom/progress.jsonl, one not committed, a task changed by a
// run that was killed): status, task, log and task list change nothing; the first
// run moves the records into segments in a commit of its own before its session,
// and the session's record goes after them.
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
	if got := git("status", "--porcelain"); got != status || strings.TrimSpace(git("rev-parse", "HEAD")) != head {
		t.Fatalf("a reading command changed the research:\n%s", got)
	}

	h.must(t, "run", "--agent", "command", "--", "sh", "-c", `strom record "the farms of 1850" && strom done`)
	migrations := strings.Fields(git("log", "--format=%H", "--grep=^Strom-Migrate: progress.jsonl to progress/$"))
	if len(migrations) != 1 {
		t.Fatalf("%d commits migrate the records, want 1", len(migrations))
	}
	if parent := strings.TrimSpace(git("rev-parse", migrations[0]+"~1")); parent != head {
		t.Errorf("the migration is not the first commit after the old HEAD")
	}
	if got := committedRecords(git, migrations[0]); got != string(records) {
		t.Errorf("the migration's segments are not progress.jsonl byte for byte:\n%s", got)
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
