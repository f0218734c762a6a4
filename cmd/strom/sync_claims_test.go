package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strom-research/strom/statefiles"
)

// gitCounts runs strom run --max 1 in dir with the agent of syncSetup, every git
// that strom (and the strom commands the agent runs) starts noted in a file, and
// returns how many git processes it started, how many of them did not talk to
// the remote (a fetch, a push, an ls-remote), and their command lines.
func (h *cliHarness) gitCounts(t *testing.T, dir string) (all, local int, lines []string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "git.log")
	cmd := exec.Command(h.strom, "run", "--max", "1", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
	cmd.Dir, cmd.Env = dir, append(slices.Clip(h.env), "STROM_HOST="+filepath.Base(dir), "STROM_TEST_GIT_LOG="+log)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ended: done") {
		t.Fatalf("strom run --max 1 in %s: %v\n%s", filepath.Base(dir), err, out)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if sub, _, _ := strings.Cut(l, " "); sub != "fetch" && sub != "push" && sub != "ls-remote" {
			local++
		}
	}
	return len(lines), local, lines
}

// TestSyncGitProcesses: a synced session starts at most twice the git processes
// of a session alone, besides those that talk to the remote (its fetch, the look
// at the branch after its claim, its pushes); the merge drivers are registered
// by the first run, not again.
func TestSyncGitProcesses(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	h := syncSetup(t, syncAgent, 4)
	url := "file://" + filepath.Join(h.dir, "remote.git")
	synced, alone := filepath.Join(h.dir, "laptop"), filepath.Join(h.dir, "alone")
	for _, dir := range []string{synced, alone} {
		h.gitIn(t, h.dir, "clone", "-q", url, dir)
	}
	h.mustIn(t, alone, "config", "unset", "sync.remote", "--for-tree")
	h.gitIn(t, alone, "commit", "-q", "-am", "alone")
	// The first runs register the merge drivers (synced) and build the clone's
	// indexes; the second ones are counted.
	h.gitCounts(t, synced)
	h.gitCounts(t, alone)
	sAll, sLocal, sLines := h.gitCounts(t, synced)
	aAll, _, aLines := h.gitCounts(t, alone)
	t.Logf("git processes of a session: %d synced (%d that do not talk to the remote), %d alone", sAll, sLocal, aAll)
	if sLocal > 2*aAll {
		t.Errorf("a synced session started %d git processes besides those that talk to the remote, more than twice the %d of a session alone:\nsynced:\n%s\nalone:\n%s",
			sLocal, aAll, strings.Join(sLines, "\n"), strings.Join(aLines, "\n"))
	}
	for _, l := range sLines {
		if strings.HasPrefix(l, "config merge.") {
			t.Errorf("the second synced run registered a merge driver again: git %s", l)
		}
	}
}

// TestSyncClaimRefs: a claim is a ref of its task on the remote
// (refs/strom/claims/T-1) while its session works, naming the claim commit, and
// it is gone once the session's commit is on the remote's branch; the branch
// gets the claim commit with the session's.
func TestSyncClaimRefs(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	agent := `#!/bin/sh
git ls-remote origin 'refs/strom/claims/*' > "$SEEN"
` + strings.TrimPrefix(syncAgent, "#!/bin/sh\n")
	h := syncSetup(t, agent, 2)
	bare := filepath.Join(h.dir, "remote.git")
	clone := filepath.Join(h.dir, "laptop")
	h.gitIn(t, h.dir, "clone", "-q", "file://"+bare, clone)
	seen := filepath.Join(h.dir, "seen")
	cmd := exec.CommandContext(context.Background(), h.strom, "run", "--max", "1", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
	cmd.Dir, cmd.Env = clone, append(slices.Clip(h.env), "STROM_HOST=laptop", "SEEN="+seen)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("strom run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "⇄ T-1 claimed on origin/main by laptop") {
		t.Errorf("the run does not say which machine took T-1:\n%s", out)
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[1] != "refs/strom/claims/T-1" {
		t.Fatalf("the remote's claims during the session: %q, want T-1's alone", b)
	}
	if msg := h.gitIn(t, bare, "log", "-1", "--format=%B", f[0]); !strings.Contains(msg, "Strom-Claim: T-1") || !strings.Contains(msg, "Strom-Host: laptop") {
		t.Errorf("the claim ref names %s:\n%s", f[0], msg)
	}
	if left := strings.TrimSpace(h.gitIn(t, bare, "for-each-ref", "refs/strom/")); left != "" {
		t.Errorf("claims left on the remote after the session was pushed:\n%s", left)
	}
	if err := exec.Command("git", "-C", bare, "merge-base", "--is-ancestor", f[0], "main").Run(); err != nil {
		t.Errorf("the claim commit %s is not on the remote's branch: %v", f[0], err)
	}
}

// TestSyncClaimsOnlyPublishedIDs: a task a person added here and did not commit
// has an id another machine may have given its own task on the remote. A claim
// names a task by its id on the remote, so the run shares the new task first (it
// becomes T-2) and then claims each task once: one session commit for T-1, the
// other machine's, and one for T-2, this clone's.
func TestSyncClaimsOnlyPublishedIDs(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	h, url, laptop, desktop := laptopAndDesktop(t, syncAgent, 0)
	h.mustIn(t, desktop, "task", "add", "Desktop's find")
	h.gitIn(t, desktop, "add", "-A")
	h.gitIn(t, desktop, "commit", "-q", "-m", "desktop's task")
	h.gitIn(t, desktop, "push", "-q", "origin", "main")
	h.mustIn(t, laptop, "task", "add", "Laptop's find")

	out := h.mustSyncRun(t, laptop, "STROM_HOST=laptop")
	if n := strings.Count(out, "▶ session"); n != 2 {
		t.Errorf("%d sessions, want 2:\n%s", n, out)
	}
	check := filepath.Join(h.dir, "check")
	h.gitIn(t, h.dir, "clone", "-q", url, check)
	q, err := statefiles.At(check).LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range q.Tasks {
		got = append(got, fmt.Sprintf("%s %s %s", tk.ID, tk.Title, tk.State))
	}
	slices.Sort(got)
	if want := []string{"T-1 Desktop's find done", "T-2 Laptop's find done"}; !slices.Equal(got, want) {
		t.Errorf("the remote's tasks = %q, want %q\n%s", got, want, out)
	}
	worked := strings.Fields(h.gitIn(t, check, "log", "--format=%(trailers:key=Strom-Task,valueonly)", "--grep=Strom-Session:"))
	slices.Sort(worked)
	if want := []string{"T-1", "T-2"}; !slices.Equal(worked, want) {
		t.Errorf("the remote's session commits worked %q, want %q\n%s", worked, want, out)
	}
	if left := strings.TrimSpace(h.gitIn(t, check, "ls-remote", "origin", "refs/strom/*")); left != "" {
		t.Errorf("claims left on the remote:\n%s", left)
	}
}

// TestSyncClaimNamesPublishedTask: a task committed here and not pushed yet is
// on the remote's branch before its claim is: while its session works, the
// remote holds the task the claim ref names.
func TestSyncClaimNamesPublishedTask(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	agent := `#!/bin/sh
git fetch -q origin main && git show "origin/main:.strom/tasks/T-1-99.json" > "$SEEN" 2>&1
` + strings.TrimPrefix(syncAgent, "#!/bin/sh\n")
	h := syncSetup(t, agent, 0)
	clone := filepath.Join(h.dir, "laptop")
	h.gitIn(t, h.dir, "clone", "-q", "file://"+filepath.Join(h.dir, "remote.git"), clone)
	h.mustIn(t, clone, "task", "add", "Laptop's find")
	h.gitIn(t, clone, "add", "-A")
	h.gitIn(t, clone, "commit", "-q", "-m", "laptop's task")
	seen := filepath.Join(h.dir, "seen")
	out := h.mustSyncRun(t, clone, "STROM_HOST=laptop", "SEEN="+seen)
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Laptop's find") {
		t.Errorf("while T-1's claim held it, the remote's branch had no T-1:\n%s\n%s", b, out)
	}
}
