package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/fakemodel"
)

// annaTurn is the session every client works: strom task, a record, a file, close.
func annaTurn() []fakemodel.Turn {
	return []fakemodel.Turn{{
		Steps: append(append(fakemodel.Bash("strom task", `strom record "Anna Novak was baptised in Tábor on 3 May 1850"`),
			fakemodel.Write("notes.md", "# Anna Novak\nBaptism: Tábor, 3 May 1850.\n")),
			fakemodel.Bash("strom session close")...),
		Text: "Recorded and closed.",
	}}
}

// checkAnnaCommit checks the commit of annaTurn's session.
func checkAnnaCommit(t *testing.T, c *claudeRepo, before, agent string) {
	t.Helper()
	after := strings.TrimSpace(c.git(t, "rev-list", "--count", "HEAD"))
	if fmt.Sprint(atoiT(t, before)+1) != after {
		t.Errorf("commits before %s, after %s: want exactly one more", before, after)
	}
	for key, want := range map[string]string{"Strom-End": "closed", "Strom-Task": "T-1", "Strom-Agent": agent} {
		if got := c.trailer(t, key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if c.trailer(t, "Strom-Session") == "" {
		t.Error("no Strom-Session trailer")
	}
	mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "Anna Novak was baptised in Tábor on 3 May 1850")
	mustContain(t, "the committed notes", c.git(t, "show", "HEAD:notes.md"), "Baptism: Tábor, 3 May 1850.")
	mustContain(t, ".strom/records/", committedRecords(func(args ...string) string { return c.git(t, args...) }, "HEAD"), "Anna Novak was baptised")
	if st := c.git(t, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("the work tree is not clean after the commit:\n%s", st)
	}
	texts := c.srv.UserTexts()
	if len(texts) == 0 || !strings.Contains(texts[0], "Find the baptism of Anna Novak") || !strings.Contains(texts[0], "run it as "+c.strom) {
		t.Errorf("the model never saw the task and strom's path in the prompt: %q", texts)
	}
}

// TestCodexSessionRecordsAndCloses: Codex (its TUI, and codex exec) takes the
// task, runs strom (its shell must find it), records, writes a file and closes;
// strom commits, and no process Codex started outlives the session.
func TestCodexSessionRecordsAndCloses(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	for _, agent := range []string{"codex", "codex-exec"} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			c := newClientRepo(t, clientSetup{agent: agent, turns: annaTurn()})
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			before := strings.TrimSpace(c.git(t, "rev-list", "--count", "HEAD"))
			code, screen := c.run(t, 120*time.Second, "run", "--agent", agent)
			if code != 0 {
				t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
			}
			mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
			checkAnnaCommit(t, c, before, agent)
			if left := processesOf("HOME=" + c.home); len(left) > 0 {
				t.Errorf("processes left running after the session:\n%s", strings.Join(left, "\n"))
			}
		})
	}
}

// TestCodexWrapUpAtTimeLimit: at the time limit strom types the wrap-up into
// Codex's TUI; it reaches the model as a user turn, and the model records and
// closes in the extra minutes. The session's clock runs 15 times faster.
func TestCodexWrapUpAtTimeLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const wrapUp = "Time is up for this session."
	c := newClientRepo(t, clientSetup{agent: "codex", turns: []fakemodel.Turn{
		{Steps: fakemodel.Bash("strom task"), Text: "I am reading the registers."},
		{When: wrapUp, Steps: fakemodel.Bash(`strom record "wrapped up at the time limit"`, "strom session close"), Text: "Recorded and closed."},
	}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	origin := time.Now().Format(time.RFC3339Nano)
	c.env = append(c.env, "STROM_TEST_TIME_SCALE=15", "STROM_TEST_TIME_ORIGIN="+origin, "STROM_TEST_TIME_BASE="+origin)
	code, screen := c.run(t, 120*time.Second, "run", "--minutes", "5")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "time limit: the agent has 5 minutes more", "ended: closed")
	mustSeeUserText(t, c, wrapUp)
	mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "wrapped up at the time limit")
	if got := c.trailer(t, "Strom-End"); got != "closed" {
		t.Errorf("Strom-End = %q", got)
	}
}

// mustSeeUserText checks that a text typed into the client reached the model as
// a user turn.
func mustSeeUserText(t *testing.T, c *claudeRepo, text string) {
	t.Helper()
	for _, u := range c.srv.UserTexts() {
		if strings.Contains(u, text) {
			return
		}
	}
	t.Errorf("%q never reached the model as a user turn: %q", text, c.srv.UserTexts())
}

// TestCodexFinishRequest: a person's strom session finish is typed into Codex's
// TUI; the model records and closes, and the session ends finish-requested.
func TestCodexFinishRequest(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const finish = "A person asked this session to finish."
	c := newClientRepo(t, clientSetup{agent: "codex", turns: []fakemodel.Turn{
		{Steps: fakemodel.Bash("strom task", "sleep 3"), Text: "I am reading the registers."},
		{When: finish, Steps: fakemodel.Bash(`strom record "finished as asked"`, "strom session close"), Text: "Recorded and closed."},
	}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	c.must(t, "task", "add", "Find the marriage of Anna Novak")
	code, screen := c.finishWhen(t, 120*time.Second, "sleep 3", "run", "--loop")
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

// TestCodexUsageLimit: the ChatGPT plan's usage limit ends the run as a
// subscription limit at the time Codex printed, even with --loop; the task is back
// in the queue.
func TestCodexUsageLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	for _, agent := range []string{"codex", "codex-exec"} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			reset := time.Now().UTC().Truncate(time.Minute).Add(2*time.Hour + 7*time.Minute)
			c := newClientRepo(t, clientSetup{agent: agent, turns: []fakemodel.Turn{{Error: fakemodel.UsageLimitError("plus", reset)}}})
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			c.must(t, "task", "add", "Find the marriage of Anna Novak")
			code, screen := c.run(t, 120*time.Second, "run", "--loop", "--agent", agent)
			if code != 3 {
				t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
			}
			mustContain(t, "the run's output", screen,
				"ended: subscription-limit — ", "You've hit your usage limit. Upgrade to Pro",
				"1 session · stopped: subscription limit (resets "+reset.Format("3:04 PM"))
			if got := c.trailer(t, "Strom-End"); got != "subscription-limit" {
				t.Errorf("Strom-End = %q", got)
			}
			mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open", "T-2  open")
		})
	}
}

// TestCodexRateLimitIsNoLimit: a plain rate limit (429 with retry-after) is waited
// out and tried again by Codex; the session goes on and closes.
func TestCodexRateLimitIsNoLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	turns := annaTurn()
	turns[0].Error, turns[0].ErrorTimes = fakemodel.RateLimitExceededError("gpt-5-codex", 1), 1
	c := newClientRepo(t, clientSetup{agent: "codex", turns: turns})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	code, screen := c.run(t, 120*time.Second, "run")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
	}
	mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
	if n := len(c.srv.Requests()); n < 5 {
		t.Errorf("%d requests: the 429 was not tried again", n)
	}
}

// TestCodexNotLoggedIn: without a login the run ends "the agent is not logged
// in": before any session when codex login status says so or the provider's key
// is missing, in the session when the server refuses the key.
func TestCodexNotLoggedIn(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	for _, tc := range []struct {
		name     string
		setup    clientSetup
		sessions string
		says     string
	}{
		{"login-status", clientSetup{agent: "codex", noConfig: true, noLogin: true}, "0 sessions",
			"the agent is not logged in — run codex once and log in"},
		{"provider-key", clientSetup{agent: "codex", noLogin: true}, "0 sessions",
			"the agent is not logged in — set MOCK_API_KEY: Codex's model provider mock"},
		{"refused-key", clientSetup{agent: "codex", turns: []fakemodel.Turn{{Error: fakemodel.InvalidAPIKeyError("sk-test")}}}, "1 session",
			"the agent is not logged in — run codex once and log in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClientRepo(t, tc.setup)
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			code, screen := c.run(t, 90*time.Second, "run", "--loop")
			if code != 3 {
				t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
			}
			mustContain(t, "the run's output", screen, tc.sessions+" · stopped: "+tc.says)
			if tc.sessions == "0 sessions" {
				if n := len(c.srv.Requests()); n != 0 {
					t.Errorf("the model server got %d requests, want none", n)
				}
			} else if got := c.trailer(t, "Strom-End"); got != "not-logged-in" {
				t.Errorf("Strom-End = %q", got)
			}
			mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
		})
	}
}

// TestCodexTrustDialog: in a CODEX_HOME that does not trust the repo Codex asks;
// strom ends the session with a sentence, presses nothing, and the run stops for
// a person.
func TestCodexTrustDialog(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	c := newClientRepo(t, clientSetup{agent: "codex", untrusted: true, turns: annaTurn()})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	code, screen := c.run(t, 90*time.Second, "run")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
	}
	says := "Codex asks whether to trust " + c.repo + ": run `codex` once in this folder, answer the trust question, then run strom again."
	mustContain(t, "the run's output", screen, "ended: agent-failed — "+says, "1 session · stopped: the agent needs a person — "+says)
	for _, r := range c.srv.Requests() {
		if r.Main {
			t.Errorf("the model got a main request: the trust question was answered")
		}
	}
	cfg, err := os.ReadFile(filepath.Join(c.home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "trust_level") {
		t.Errorf("the folder is trusted now: something answered the question:\n%s", cfg)
	}
	mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
}

// TestCodexExecOffline: codex exec whose provider cannot be reached waits for the
// network for ever ("Reconnecting... waiting for network"), as it does without a
// login offline; strom ends the session with a sentence that names the login, and
// the run stops for a person.
func TestCodexExecOffline(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	c := newClientRepo(t, clientSetup{agent: "codex-exec", noLogin: true,
		codexConfig: "openai_base_url = \"http://127.0.0.1:9/v1\"\ncheck_for_update_on_startup = false\n",
		env:         []string{"CODEX_API_KEY=sk-test"}})
	c.must(t, "task", "add", "Find the baptism of Anna Novak")
	code, screen := c.run(t, 120*time.Second, "run", "--agent", "codex-exec", "--loop")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
	}
	says := "Codex cannot reach its model provider and waits for the network: check this machine's network and Codex's login (run `codex` once and log in), then run strom again."
	mustContain(t, "the run's output", screen, "ended: agent-failed — "+says, "1 session · stopped: the agent needs a person — "+says)
	mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
	if left := processesOf("HOME=" + c.home); len(left) > 0 {
		t.Errorf("processes left running after the session:\n%s", strings.Join(left, "\n"))
	}
}
