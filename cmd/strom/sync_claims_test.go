package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
