package remote

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
)

func TestMain(m *testing.M) {
	// Every git the tests start sees only the test repositories' own configuration,
	// a fixed identity and fixed dates.
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL":   "/dev/null",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_DATE":     "2026-11-30T09:00:00Z",
		"GIT_COMMITTER_DATE":  "2026-11-30T09:00:00Z",
		"GIT_AUTHOR_NAME":     "t",
		"GIT_AUTHOR_EMAIL":    "t@example.com",
		"GIT_COMMITTER_NAME":  "t",
		"GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		os.Setenv(k, v)
	}
	os.Exit(m.Run())
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// machines is a bare remote with one commit and n clones of it, each a Sync.
func machines(t testing.TB, n int) (string, []*Sync) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	git(t, dir, "init", "-q", "-b", "main", seed)
	write(t, seed, "notes.md", "notes\n")
	git(t, seed, "add", "-A")
	git(t, seed, "commit", "-q", "-m", "first")
	bare := filepath.Join(dir, "remote.git")
	git(t, dir, "clone", "-q", "--bare", seed, bare)
	var out []*Sync
	for i := 0; i < n; i++ {
		c := filepath.Join(dir, "m"+string(rune('a'+i)))
		git(t, dir, "clone", "-q", bare, c)
		g, err := gitrepo.Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Resolve(ctx, g, "origin", filepath.Base(c))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return bare, out
}

func commitFile(t testing.TB, s *Sync, name, text string) string {
	t.Helper()
	write(t, s.Git.Root, name, text)
	git(t, s.Git.Root, "add", "-A")
	git(t, s.Git.Root, "commit", "-q", "-m", "change "+name)
	return git(t, s.Git.Root, "rev-parse", "HEAD")
}

func TestResolve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ms := machines(t, 1)
	g := ms[0].Git
	if s, err := Resolve(ctx, g, "", "h"); s != nil || err != nil {
		t.Errorf("Resolve of an unset sync.remote = %v, %v; want off", s, err)
	}
	if _, err := Resolve(ctx, g, "nope", "h"); !errors.Is(err, ErrNoRemote) || !strings.Contains(err.Error(), "git remote add nope URL") {
		t.Errorf("Resolve of a missing remote: %v", err)
	}
	if ms[0].Branch != "main" || ms[0].Ref() != "refs/remotes/origin/main" {
		t.Errorf("branch %q, ref %q", ms[0].Branch, ms[0].Ref())
	}
	// A branch that tracks another branch of the remote syncs with that one.
	git(t, g.Root, "switch", "-q", "-c", "work", "--track", "origin/main")
	if s, err := Resolve(ctx, g, "origin", "h"); err != nil || s.Branch != "main" {
		t.Errorf("Resolve on a branch tracking origin/main = %+v, %v", s, err)
	}
	git(t, g.Root, "switch", "-q", "-c", "alone")
	if s, err := Resolve(ctx, g, "origin", "h"); err != nil || s.Branch != "alone" {
		t.Errorf("Resolve on an untracked branch = %+v, %v; want the same name", s, err)
	}
}

// claimCommit commits claim.txt in s as the claim of task (its trailers and
// session line), and returns the Claim of it.
func claimCommit(t testing.TB, s *Sync, task string, held map[string]Held, undos *int) *Claim {
	t.Helper()
	write(t, s.Git.Root, "claim.txt", task+" on "+s.Host+"\n")
	git(t, s.Git.Root, "add", "-A")
	git(t, s.Git.Root, "commit", "-q", "-m", task+" claimed\n\nsession 20261130T090000Z-"+s.Host+"\n\nStrom-Claim: "+task+"\nStrom-Host: "+s.Host)
	c := git(t, s.Git.Root, "rev-parse", "HEAD")
	return &Claim{Task: task, Session: "20261130T090000Z-" + s.Host, Commit: c, Over: held[task].Commit, Undo: func(ctx context.Context) error {
		if undos != nil {
			*undos++
		}
		return s.Git.UndoCommit(ctx, c, "claim.txt")
	}}
}

// firstFree is a take that claims the first of tasks neither held nor lost;
// before is called with the task just before its claim is pushed.
func firstFree(t testing.TB, s *Sync, tasks []string, undos *int, before func(task string)) func(context.Context, map[string]Held, map[string]bool) (*Claim, error) {
	return func(ctx context.Context, held map[string]Held, lost map[string]bool) (*Claim, error) {
		for _, task := range tasks {
			if _, ok := held[task]; ok || lost[task] {
				continue
			}
			c := claimCommit(t, s, task, held, undos)
			if before != nil {
				before(task)
			}
			return c, nil
		}
		return nil, nil
	}
}

// claimAs claims task for s; it fails the test when s does not get it.
func claimAs(t testing.TB, s *Sync, task string) {
	t.Helper()
	if ok, err := s.Claim(context.Background(), firstFree(t, s, []string{task}, nil, nil)); !ok || err != nil {
		t.Fatalf("%s claims %s: %v, %v", s.Host, task, ok, err)
	}
}

// TestClaimLostTakesNext: another machine claimed the task between this one's
// fetch and its claim's push. The claim is undone and take asked again with the
// task lost; the next task's claim is made, and the branch is not touched.
func TestClaimLostTakesNext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	branch := git(t, bare, "rev-parse", "main")
	takes, undos := 0, 0
	ok, err := a.Claim(ctx, firstFree(t, a, []string{"T-1", "T-2"}, &undos, func(task string) {
		takes++
		if takes == 1 {
			claimAs(t, b, task) // b claims it first
		}
	}))
	if err != nil || !ok {
		t.Fatalf("Claim = %v, %v", ok, err)
	}
	if takes != 2 || undos != 1 {
		t.Errorf("take asked %d times, undo %d; want 2 and 1", takes, undos)
	}
	if got := git(t, bare, "log", "-1", "--format=%(trailers:key=Strom-Host,valueonly)", "refs/strom/claims/T-1"); got != "mb" {
		t.Errorf("T-1's claim on the remote is by %q, want mb", got)
	}
	if got := git(t, bare, "log", "-1", "--format=%(trailers:key=Strom-Host,valueonly)", "refs/strom/claims/T-2"); got != "ma" {
		t.Errorf("T-2's claim on the remote is by %q, want ma", got)
	}
	if got := git(t, bare, "rev-parse", "main"); got != branch {
		t.Errorf("a claim moved the remote's branch")
	}
}

// TestClaimsDoNotMeet: another machine pushes a session to the branch between
// this one's fetch and its claim: the claim is made in its first try all the
// same, after Still said the task is free at the branch's new tip.
func TestClaimsDoNotMeet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	takes, stills := 0, 0
	take := firstFree(t, a, []string{"T-1"}, nil, func(string) {
		takes++
		commitFile(t, b, "b.txt", "b\n")
		if err := b.Publish(ctx, nil, 0); err != nil {
			t.Fatal(err)
		}
	})
	ok, err := a.Claim(ctx, func(ctx context.Context, held map[string]Held, lost map[string]bool) (*Claim, error) {
		c, err := take(ctx, held, lost)
		if c != nil {
			c.Still = func(ctx context.Context, tip string) (bool, error) {
				stills++
				if want := git(t, b.Git.Root, "rev-parse", "HEAD"); tip != want {
					t.Errorf("Still asked of %s, want the branch's tip %s", tip, want)
				}
				return true, nil
			}
		}
		return c, err
	})
	if err != nil || !ok || takes != 1 || stills != 1 {
		t.Fatalf("Claim = %v, %v after %d takes and %d looks; want one of each", ok, err, takes, stills)
	}
}

// TestClaimNotStillReleases: the task's session reached the branch between
// this machine's fetch and its claim (Still says so): the claim ref is deleted
// again, the claim undone, and the next task taken.
func TestClaimNotStillReleases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	undos := 0
	take := firstFree(t, a, []string{"T-1", "T-2"}, &undos, func(task string) {
		if task == "T-1" {
			commitFile(t, b, "b.txt", "T-1 done\n")
			if err := b.Publish(ctx, nil, 0); err != nil {
				t.Fatal(err)
			}
		}
	})
	ok, err := a.Claim(ctx, func(ctx context.Context, held map[string]Held, lost map[string]bool) (*Claim, error) {
		c, err := take(ctx, held, lost)
		if c != nil {
			task := c.Task
			c.Still = func(context.Context, string) (bool, error) { return task != "T-1", nil }
		}
		return c, err
	})
	if err != nil || !ok || undos != 1 {
		t.Fatalf("Claim = %v, %v with %d undos; want a claim after one undo", ok, err, undos)
	}
	if refs := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/strom/"); refs != "refs/strom/claims/T-2" {
		t.Errorf("the remote's claims: %q, want T-2's alone", refs)
	}
}

// TestClaimRemoteAway: with the remote away no claim is made, and a claim whose
// push did not get through is taken back.
func TestClaimRemoteAway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 1)
	a := ms[0]
	undos := 0
	ok, err := a.Claim(ctx, firstFree(t, a, []string{"T-1"}, &undos, func(string) {
		if err := os.Rename(bare, bare+".away"); err != nil {
			t.Fatal(err)
		}
	}))
	if ok || !errors.Is(err, gitrepo.ErrRemoteAway) || undos != 1 {
		t.Fatalf("Claim with the remote away = %v, %v (undos %d)", ok, err, undos)
	}
	if _, err := a.Claim(ctx, func(context.Context, map[string]Held, map[string]bool) (*Claim, error) {
		t.Fatal("take asked while the remote is away")
		return nil, nil
	}); !errors.Is(err, gitrepo.ErrRemoteAway) {
		t.Errorf("the next Claim = %v", err)
	}
}

// TestPublishDeletesEndedClaims: the push of a session's commit deletes, in the
// same atomic push, this machine's claims that ended says ended; a claim another
// machine took over is left to it, and the push goes through.
func TestPublishDeletesEndedClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	claimAs(t, a, "T-1")
	claimAs(t, a, "T-2")
	// b takes T-2 over (a's claim grew old).
	if err := b.IntegrateClaims(ctx); err != nil {
		t.Fatal(err)
	}
	held := b.Claims()
	c := claimCommit(t, b, "T-2", held, nil)
	if _, err := b.Git.PushRefs(ctx, b.Remote, false, gitrepo.RefUpdate{Src: c.Commit, Dst: ClaimsPrefix + "T-2", Lease: true, Expect: held["T-2"].Commit}); err != nil {
		t.Fatalf("take T-2 over: %v", err)
	}
	session := commitFile(t, a, "session.txt", "T-1 and T-2 ended\n")
	if err := a.Publish(ctx, func(Held) bool { return true }, 0); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if got := git(t, bare, "rev-parse", "main"); got != session {
		t.Errorf("the remote's branch is %s, want the session's commit %s", got, session)
	}
	if refs := git(t, bare, "for-each-ref", "--format=%(refname) %(objectname)", "refs/strom/"); refs != "refs/strom/claims/T-2 "+c.Commit {
		t.Errorf("the remote's claims: %q, want b's of T-2 alone", refs)
	}
}

// TestPublishKeepsCommitsWhileAway: a session commit made while the remote is
// away stays, is counted, and the next Publish pushes it after merging.
func TestPublishKeepsCommitsWhileAway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	if err := os.Rename(bare, bare+".away"); err != nil {
		t.Fatal(err)
	}
	write(t, a.Git.Root, "s.txt", "session\n")
	git(t, a.Git.Root, "add", "-A")
	git(t, a.Git.Root, "commit", "-q", "-m", "session\n\nStrom-Session: s1")
	if err := a.Publish(ctx, nil, 0); !errors.Is(err, gitrepo.ErrRemoteAway) {
		t.Fatalf("Publish while away = %v", err)
	}
	if n, err := a.Unpushed(ctx, "Strom-Session"); n != 1 || err != nil {
		t.Errorf("Unpushed = %d, %v; want 1", n, err)
	}
	if err := os.Rename(bare+".away", bare); err != nil {
		t.Fatal(err)
	}
	commitFile(t, b, "b.txt", "b\n")
	if err := b.Publish(ctx, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, nil, 0); err != nil {
		t.Fatalf("Publish with the remote back: %v", err)
	}
	if n, _ := a.Unpushed(ctx, "Strom-Session"); n != 0 {
		t.Errorf("Unpushed after the push = %d", n)
	}
	if git(t, bare, "show", "main:s.txt") != "session" || git(t, bare, "show", "main:b.txt") != "b" {
		t.Error("the remote lacks one side's commit")
	}
}

// TestIntegrateConflictTakesBack: both machines changed a file of the research's
// own: the merge is taken back, the branch and the work tree as they were.
func TestIntegrateConflictTakesBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	commitFile(t, b, "notes.md", "b's notes\n")
	if err := b.Publish(ctx, nil, 0); err != nil {
		t.Fatal(err)
	}
	head := commitFile(t, a, "notes.md", "a's notes\n")
	write(t, a.Git.Root, "draft.txt", "not committed\n")
	err := a.Integrate(ctx)
	var ce *gitrepo.ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) != 1 || ce.Paths[0] != "notes.md" {
		t.Fatalf("Integrate = %v; want a conflict in notes.md", err)
	}
	if got := git(t, a.Git.Root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
	if op, _ := a.Git.InProgress(ctx); op != "" {
		t.Errorf("a %s is left in progress", op)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Git.Root, "notes.md")); string(b) != "a's notes\n" {
		t.Errorf("notes.md = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Git.Root, "draft.txt")); string(b) != "not committed\n" {
		t.Errorf("draft.txt = %q", b)
	}
}

// TestBeforeMergeSeesBoth: BeforeMerge runs after the fetch, before the merge:
// it sees the remote's new commit and its merge base with HEAD, and what the two
// sides changed; an error from it leaves the branch unmerged.
func TestBeforeMergeSeesBoth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	base := git(t, a.Git.Root, "rev-parse", "HEAD")
	commitFile(t, b, "b.txt", "b")
	if err := b.Publish(ctx, nil, 0); err != nil {
		t.Fatal(err)
	}
	ours := commitFile(t, a, "a.txt", "a")
	stop := errors.New("stop here")
	a.BeforeMerge = func(ctx context.Context) error {
		mb, err := a.Git.MergeBase(ctx, a.Ref())
		if err != nil || mb != base {
			t.Errorf("merge base = %q %v, want %s", mb, err, base)
		}
		if ch, err := a.Git.Changed(ctx, mb, "HEAD", "a.txt"); err != nil || !ch {
			t.Errorf("a.txt changed on our side: %v %v", ch, err)
		}
		if ch, err := a.Git.Changed(ctx, mb, a.Ref(), "a.txt"); err != nil || ch {
			t.Errorf("a.txt changed on theirs: %v %v", ch, err)
		}
		dir := t.TempDir()
		if err := a.Git.Extract(ctx, a.Ref(), dir, "b.txt", "missing.txt"); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "b" {
			t.Errorf("b.txt extracted = %q", got)
		}
		return stop
	}
	if err := a.Integrate(ctx); !errors.Is(err, stop) {
		t.Fatalf("Integrate = %v, want the hook's error", err)
	}
	if head := git(t, a.Git.Root, "rev-parse", "HEAD"); head != ours {
		t.Errorf("HEAD moved to %s without the merge", head)
	}
}

// instant is a clock whose waits are over at once.
type instant struct{}

func (instant) Now() time.Time { return time.Now() }
func (instant) After(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Now()
	return c
}

// TestClaimNeverGivesUpOnProgress: another machine claims first the task this
// one takes, 40 times in a row; the claim goes on and is made in the 41st. A
// machine never ends its run because others made progress.
func TestClaimNeverGivesUpOnProgress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	a.Clock = instant{}
	var tasks []string
	for i := 1; i <= 41; i++ {
		tasks = append(tasks, "T-"+strconv.Itoa(i))
	}
	takes := 0
	ok, err := a.Claim(ctx, firstFree(t, a, tasks, nil, func(task string) {
		takes++
		if takes <= 40 {
			claimAs(t, b, task)
		}
	}))
	if err != nil || !ok || takes != 41 {
		t.Fatalf("Claim = %v, %v after %d takes; want a claim in the 41st", ok, err, takes)
	}
	if got := git(t, bare, "log", "-1", "--format=%(trailers:key=Strom-Host,valueonly)", "refs/strom/claims/T-41"); got != "ma" {
		t.Errorf("T-41's claim is by %q", got)
	}
}

// TestClaimStuckGivesUp: a remote whose hook declines every push, its branch
// never moving, ends the claim after MaxStuck rounds with ErrBusy, the claim taken
// back; so does a push of a session's commit.
func TestClaimStuckGivesUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 1)
	a := ms[0]
	a.Clock = instant{}
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho declined >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	takes, undos := 0, 0
	ok, err := a.Claim(ctx, firstFree(t, a, []string{"T-1", "T-2"}, &undos, func(string) { takes++ }))
	if ok || !errors.Is(err, ErrBusy) || takes != MaxStuck || undos != takes {
		t.Fatalf("Claim = %v, %v after %d takes and %d undos; want ErrBusy after %d", ok, err, takes, undos, MaxStuck)
	}
	commitFile(t, a, "session.txt", "found\n")
	if err := a.Publish(ctx, nil, 0); !errors.Is(err, ErrBusy) {
		t.Fatalf("Publish = %v, want ErrBusy", err)
	}
}

// TestPublishLaterWhileMoving: another machine pushes in each round of this
// one's Publish: after its tries it gives ErrMoving, the session's commit and
// the claim that holds its task stay; a later Publish pushes both, the claim
// deleted with it.
func TestPublishLaterWhileMoving(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	a.Clock = instant{}
	claimAs(t, a, "T-1")
	session := commitFile(t, a, "session.txt", "T-1 ended\n")
	n := 0
	push := func(ctx context.Context) error {
		n++
		git(t, b.Git.Root, "pull", "-q", "--no-rebase", "--no-edit")
		commitFile(t, b, "b.txt", strings.Repeat("b", n)+"\n")
		return b.Publish(ctx, nil, 0)
	}
	if err := push(ctx); err != nil {
		t.Fatal(err)
	}
	a.BeforeMerge = push
	if err := a.Publish(ctx, func(Held) bool { return true }, 2); !errors.Is(err, ErrMoving) {
		t.Fatalf("Publish while b pushes in every round = %v, want ErrMoving", err)
	}
	if git(t, bare, "for-each-ref", "--format=%(refname)", "refs/strom/") != "refs/strom/claims/T-1" {
		t.Error("the claim of the session not pushed is gone")
	}
	a.BeforeMerge = nil
	if err := a.Publish(ctx, func(Held) bool { return true }, 0); err != nil {
		t.Fatalf("the later Publish: %v", err)
	}
	if err := exec.Command("git", "-C", bare, "merge-base", "--is-ancestor", session, "main").Run(); err != nil {
		t.Error("the session's commit is not on the remote")
	}
	if refs := git(t, bare, "for-each-ref", "refs/strom/"); refs != "" {
		t.Errorf("claims left: %s", refs)
	}
}

// TestClaimLostSkipsClaimedSince: another machine claimed two tasks since this
// one's fetch. Losing the first, this machine asks the remote for its claims
// and does not try the second: its next claim is the third task's.
func TestClaimLostSkipsClaimedSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	var tried []string
	ok, err := a.Claim(ctx, firstFree(t, a, []string{"T-1", "T-2", "T-3"}, nil, func(task string) {
		tried = append(tried, task)
		if len(tried) == 1 {
			claimAs(t, b, "T-1")
			claimAs(t, b, "T-2")
		}
	}))
	if err != nil || !ok {
		t.Fatalf("Claim = %v, %v", ok, err)
	}
	if strings.Join(tried, " ") != "T-1 T-3" {
		t.Errorf("claims tried: %v, want T-1 and then T-3", tried)
	}
	if got := git(t, bare, "log", "-1", "--format=%(trailers:key=Strom-Host,valueonly)", "refs/strom/claims/T-3"); got != "ma" {
		t.Errorf("T-3's claim on the remote is by %q, want ma", got)
	}
}

// TestPublishLastTryMergesNothing: a Publish whose last try the remote refuses
// (its branch moved on) gives ErrMoving at once: no fetch and merge that no
// push would follow.
func TestPublishLastTryMergesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	commitFile(t, b, "b.txt", "b\n")
	if err := b.Publish(ctx, nil, 0); err != nil {
		t.Fatal(err)
	}
	merges := 0
	a.BeforeMerge = func(context.Context) error { merges++; return nil }
	commitFile(t, a, "session.txt", "a's session\n")
	if err := a.Publish(ctx, nil, 1); !errors.Is(err, ErrMoving) {
		t.Fatalf("Publish(1) after b's push = %v, want ErrMoving", err)
	}
	if merges != 0 {
		t.Errorf("Publish(1) merged the remote's branch %d times after its one push, want 0", merges)
	}
}

// TestClaimPushesWhatWaits: a session's commit the remote refused (its branch
// moved on) goes with the next claim's round, right after its merge, and its
// claim is deleted with it: the claim made in that round is the only one left.
func TestClaimPushesWhatWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, ms := machines(t, 2)
	a, b := ms[0], ms[1]
	claimAs(t, a, "T-1")
	session := commitFile(t, a, "session.txt", "T-1 ended\n")
	commitFile(t, b, "b.txt", "b\n")
	if err := b.Publish(ctx, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, func(Held) bool { return true }, 1); !errors.Is(err, ErrMoving) {
		t.Fatalf("Publish(1) after b's push = %v, want ErrMoving", err)
	}
	a.Ended = func(h Held) bool { return h.Task == "T-1" }
	if ok, err := a.Claim(ctx, firstFree(t, a, []string{"T-2"}, nil, nil)); !ok || err != nil {
		t.Fatalf("Claim = %v, %v", ok, err)
	}
	if err := exec.Command("git", "-C", bare, "merge-base", "--is-ancestor", session, "main").Run(); err != nil {
		t.Error("the session's commit is not on the remote's branch after the next claim")
	}
	if refs := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/strom/"); refs != "refs/strom/claims/T-2" {
		t.Errorf("the remote's claims: %q, want T-2's alone", refs)
	}
}
