package main

import (
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/fakemodel"
)

// Grok CLI runs headless (grok --prompt): its TUI asks before every command and
// has no flag to stop asking. Nothing can be typed into it, so it takes no extra
// minutes, and it learns of a finish request from the note strom's commands print.

// TestGrokSessionRecordsAndCloses: Grok CLI takes the task, runs strom, records,
// writes a file and closes; strom commits.
func TestGrokSessionRecordsAndCloses(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	c := newClientRepo(t, clientSetup{agent: "grok", turns: annaTurn()})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	before := strings.TrimSpace(c.git(t, "rev-list", "--count", "HEAD"))
	code, screen := c.run(t, 120*time.Second, "run")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
	checkAnnaCommit(t, c, before, "grok")
}

// TestGrokFinishRequest: a person's finish request reaches Grok CLI in the note of
// its next strom command (the server sees it in the tool output); the model
// records and closes. The finish is asked as soon as the server has the first
// strom task's output, so that it lands during the model's sleep 3 and not in a
// race with the session's own close.
func TestGrokFinishRequest(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	c := newClientRepo(t, clientSetup{agent: "grok", turns: []fakemodel.Turn{{
		Steps: fakemodel.Bash("strom task", "sleep 3", "strom task", `strom record "finished as asked"`, "strom session close"),
		Text:  "Recorded and closed.",
	}}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	c.must(t, "task", "add", "Find the marriage of Anna Novak")
	code, screen := c.finishWhen(t, 120*time.Second, "state: started (session", "run", "--loop")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	seen := false
	for _, r := range c.srv.Requests() {
		seen = seen || strings.Contains(string(r.Body), "A person asked this session to finish")
	}
	if !seen {
		t.Error("the finish note never reached the model in a tool output")
	}
	if got := c.trailer(t, "Strom-End"); got != "finish-requested" {
		t.Errorf("Strom-End = %q, want finish-requested", got)
	}
	mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "finished as asked")
	mustContain(t, "the run's output", screen, "1 session · stopped")
}

// TestGrokLimits: Grok CLI prints an API error as the assistant's message and
// exits 0; strom reads it. Used-up credits end the run as a subscription limit
// (xAI names no reset), even with --loop; a plain rate limit is retried by the
// client and the session goes on.
func TestGrokLimits(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	credits := &fakemodel.Error{Status: 429, Type: "invalid_request_error",
		Message: "Your team team-strom has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit."}
	t.Run("credits", func(t *testing.T) {
		t.Parallel()
		c := newClientRepo(t, clientSetup{agent: "grok", turns: []fakemodel.Turn{{Error: credits}}})
		c.must(t, "task", "add", "Find the baptism of Anna Novak")
		c.must(t, "task", "add", "Find the marriage of Anna Novak")
		code, screen := c.run(t, 120*time.Second, "run", "--loop")
		if code != 3 {
			t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
		}
		mustContain(t, "the run's output", screen,
			"ended: subscription-limit — the agent said “Sorry, I encountered an error: Grok API error: 429 Your team team-strom has either used all available credits",
			"1 session · stopped: subscription limit (the agent did not say when it resets)")
		mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open", "T-2  open")
	})
	t.Run("rate-limit", func(t *testing.T) {
		t.Parallel()
		turns := annaTurn()
		turns[0].Error, turns[0].ErrorTimes = fakemodel.RateLimitExceededError("grok-code-fast-1", 1), 1
		c := newClientRepo(t, clientSetup{agent: "grok", turns: turns})
		c.must(t, "task", "add", "Find the baptism of Anna Novak")
		code, screen := c.run(t, 120*time.Second, "run")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
		}
		mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
	})
}

// TestGrokNotLoggedIn: without an API key Grok CLI says "API key required"; with a
// refused one it prints the 401 as its message. Both end the run "not logged in".
func TestGrokNotLoggedIn(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup clientSetup
		says  string
	}{
		{"no-key", clientSetup{agent: "grok", noLogin: true}, "❌ Error: API key required. Set GROK_API_KEY environment variable"},
		{"refused-key", clientSetup{agent: "grok", turns: []fakemodel.Turn{{Error: fakemodel.InvalidAPIKeyError("sk-test")}}},
			"Sorry, I encountered an error: Grok API error: 401 Incorrect API key provided: sk-test."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClientRepo(t, tc.setup)
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			code, screen := c.run(t, 90*time.Second, "run", "--loop")
			if code != 3 {
				t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
			}
			mustContain(t, "the run's output", screen, "ended: not-logged-in — the agent said “"+tc.says,
				"1 session · stopped: the agent is not logged in — run grok once and log in")
			mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
		})
	}
}
