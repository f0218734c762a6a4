package main

import (
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/fakemodel"
)

// TestOpenCodeSessionRecordsAndCloses: OpenCode's TUI takes the task, runs strom,
// records, writes a file and closes; strom commits.
func TestOpenCodeSessionRecordsAndCloses(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	c := newClientRepo(t, clientSetup{agent: "opencode", turns: annaTurn()})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	before := strings.TrimSpace(c.git(t, "rev-list", "--count", "HEAD"))
	code, screen := c.run(t, 240*time.Second, "run")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
	checkAnnaCommit(t, c, before, "opencode")
	if left := processesOf("HOME=" + c.home); len(left) > 0 {
		t.Errorf("processes left running after the session:\n%s", strings.Join(left, "\n"))
	}
}

// TestOpenCodeWrapUpAtTimeLimit: the wrap-up typed into OpenCode's TUI at the
// time limit reaches the model as a user turn; the model records and closes. The
// session's clock runs 4 times faster: OpenCode takes a while to start.
func TestOpenCodeWrapUpAtTimeLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const wrapUp = "Time is up for this session."
	c := newClientRepo(t, clientSetup{agent: "opencode", turns: []fakemodel.Turn{
		{Steps: fakemodel.Bash("strom task"), Text: "I am reading the registers."},
		{When: wrapUp, Steps: fakemodel.Bash(`strom record "wrapped up at the time limit"`, "strom session close"), Text: "Recorded and closed."},
	}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	origin := time.Now().Format(time.RFC3339Nano)
	c.env = append(c.env, "STROM_TEST_TIME_SCALE=4", "STROM_TEST_TIME_ORIGIN="+origin, "STROM_TEST_TIME_BASE="+origin)
	code, screen := c.run(t, 300*time.Second, "run", "--minutes", "5")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "time limit: the agent has 5 minutes more", "ended: closed")
	mustSeeUserText(t, c, wrapUp)
	mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "wrapped up at the time limit")
}

// TestOpenCodeFinishRequest: a person's finish request is typed into OpenCode's
// TUI and followed.
func TestOpenCodeFinishRequest(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const finish = "A person asked this session to finish."
	c := newClientRepo(t, clientSetup{agent: "opencode", turns: []fakemodel.Turn{
		{Steps: fakemodel.Bash("strom task", "sleep 3"), Text: "I am reading the registers."},
		{When: finish, Steps: fakemodel.Bash(`strom record "finished as asked"`, "strom session close"), Text: "Recorded and closed."},
	}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	c.must(t, "task", "add", "Find the marriage of Anna Novak")
	code, screen := c.finishWhen(t, 240*time.Second, "sleep 3", "run", "--loop")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustSeeUserText(t, c, finish)
	mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "finished as asked")
	if got := c.trailer(t, "Strom-End"); got != "finish-requested" {
		t.Errorf("Strom-End = %q, want finish-requested", got)
	}
	mustContain(t, "the run's output", screen, "1 session · stopped")
}

// TestOpenCodeUsageLimit: OpenCode Go's 5-hour limit, which OpenCode waits out
// silently ("[retrying in 2h 29m attempt #1]"), ends the run as a subscription
// limit at the reset OpenCode showed, even with --loop.
func TestOpenCodeUsageLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	c := newClientRepo(t, clientSetup{agent: "opencode", turns: []fakemodel.Turn{{Error: fakemodel.GoUsageLimitError("5-hour", 9000*time.Second)}}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	c.must(t, "task", "add", "Find the marriage of Anna Novak")
	start := time.Now().UTC()
	code, screen := c.run(t, 240*time.Second, "run", "--loop")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "ended: subscription-limit — the agent said “5-hour usage limit reached. It will reset in 2 hours 30 minutes")
	// The reset is 2 h 30 min after OpenCode showed it, to the minute.
	found := false
	for at := start; !at.After(time.Now().UTC().Add(time.Minute)); at = at.Add(time.Minute) {
		found = found || strings.Contains(screen, "1 session · stopped: subscription limit (resets "+at.Add(150*time.Minute).Format("3:04 PM"))
	}
	if !found {
		t.Errorf("the run's output lacks the reset 2 h 30 min ahead:\n%s", lastLines(screen, 2))
	}
	if got := c.trailer(t, "Strom-End"); got != "subscription-limit" {
		t.Errorf("Strom-End = %q", got)
	}
	mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open", "T-2  open")
}

// TestOpenCodeRateLimitIsNoLimit: OpenCode retries a plain rate limit after its
// retry-after; the session goes on and closes.
func TestOpenCodeRateLimitIsNoLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	turns := annaTurn()
	turns[0].Error, turns[0].ErrorTimes = fakemodel.RateLimitExceededError("mock-model", 1), 1
	c := newClientRepo(t, clientSetup{agent: "opencode", turns: turns})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	code, screen := c.run(t, 240*time.Second, "run")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
}

// TestOpenCodeNotLoggedIn: a provider without its key, or with a key the server
// refuses, ends the run "not logged in".
func TestOpenCodeNotLoggedIn(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup clientSetup
		says  string
	}{
		{"no-key", clientSetup{agent: "opencode", noLogin: true, turns: annaTurn()}, "Missing bearer or basic authentication in header"},
		{"refused-key", clientSetup{agent: "opencode", turns: []fakemodel.Turn{{Error: fakemodel.InvalidAPIKeyError("sk-test")}}}, "Incorrect API key provided: sk-test."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClientRepo(t, tc.setup)
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			code, screen := c.run(t, 240*time.Second, "run", "--loop")
			if code != 3 {
				t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
			}
			mustContain(t, "the run's output", screen, "ended: not-logged-in — the agent said “"+tc.says,
				"1 session · stopped: the agent is not logged in — run opencode once and log in")
			mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
		})
	}
}
