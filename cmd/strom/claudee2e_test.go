package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/fakemodel"
)

// The real Claude Code client under strom, end to end, against a scripted model
// server (issue 6). The client is installed by npm, pinned: its screens and its
// defaults change between versions. The tests run each version in claudeClients.

// claudeClients are the Claude Code versions every test runs: the pinned 2.1.197
// (the last that declares Node 20; from 2.1.198 on npm warns that it wants Node 22,
// and the native client runs all the same) and 2.1.332, the newest npm served when
// the permission flags were measured (issue 25: it starts in "auto" mode unless
// told otherwise).
var claudeClients = []*npmClient{
	{name: "claude-code", pkg: "@anthropic-ai/claude-code", version: "2.1.197", bin: "claude"},
	{name: "claude-code", pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude"},
}

// claudeRuns bounds how many real clients run at once: each is a large program,
// and the machines that run the tests may have two cores.
var claudeRuns = make(chan struct{}, 2)

// eachClaude runs test once per version of claudeClients, as parallel subtests
// named after the version.
func eachClaude(t *testing.T, test func(t *testing.T, cc *npmClient)) {
	t.Helper()
	for _, cc := range claudeClients {
		t.Run(cc.version, func(t *testing.T) {
			t.Parallel()
			test(t, cc)
		})
	}
}

// claudeSetup says how a test's client starts.
type claudeSetup struct {
	turns     []fakemodel.Turn
	header    map[string]string // on every 200 answer
	token     bool              // subscriber: CLAUDE_CODE_OAUTH_TOKEN
	home      string            // "seeded" (onboarding done, repo trusted), "onboarded" (not trusted)
	configDir string            // CLAUDE_CONFIG_DIR, "" for none
}

// claudeRepo is a research repo whose agent is the real Claude Code.
type claudeRepo struct {
	*cliHarness
	srv  *fakemodel.Server
	home string
}

// newClaudeRepo makes a research repo with agent claude, a HOME for the client cc and
// a model server playing the scenario.
func newClaudeRepo(t *testing.T, cc *npmClient, cs claudeSetup) *claudeRepo {
	t.Helper()
	bin := cc.need(t)
	claudeRuns <- struct{}{}
	t.Cleanup(func() { <-claudeRuns })
	h := newCLIHarness(t)
	// strom puts its own path into the client's statusLine and hooks.
	h.stromAsItself(t)
	repo, err := filepath.EvalSymlinks(h.repo)
	if err != nil {
		t.Fatal(err)
	}
	h.repo = repo
	home := filepath.Join(h.dir, "home")
	srv, err := fakemodel.Start(cs.turns, cs.header)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	var env []string
	for _, kv := range h.env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE_") || strings.HasPrefix(k, "STROM_") || k == "IS_SANDBOX" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PATH="+filepath.Dir(h.strom)+string(os.PathListSeparator)+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"ANTHROPIC_BASE_URL="+srv.URL,
		"TZ=UTC",
	)
	if cs.token {
		env = append(env, "CLAUDE_CODE_OAUTH_TOKEN=strom-test-token")
	}
	if cs.configDir != "" {
		env = append(env, "CLAUDE_CONFIG_DIR="+cs.configDir)
	}
	h.env = env

	state := map[string]any{"hasCompletedOnboarding": true}
	switch cs.home {
	case "seeded":
		state["projects"] = map[string]any{repo: map[string]any{"hasTrustDialogAccepted": true}}
	case "onboarded":
	default:
		t.Fatalf("unknown home %q", cs.home)
	}
	writeJSONFile(t, filepath.Join(home, ".claude.json"), state)

	h.must(t, "init", "--agent", "claude")
	c := &claudeRepo{cliHarness: h, srv: srv, home: home}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the model server's requests:\n%s", c.requestLog())
		}
	})
	return c
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// clientStartLimit bounds how long a test waits for a real client's first request
// to the model server: on a loaded machine a client can take minutes to start,
// which is no fault of strom's. From the first request on, a test's own bound holds.
const clientStartLimit = 5 * time.Minute

// run runs strom with the outer pty as the person's terminal and returns its exit
// status and everything shown. within bounds the run from the client's first
// request to the model server; a run whose client has sent none yet (one starting
// slowly, or one strom never started) is bounded by clientStartLimit instead.
func (c *claudeRepo) run(t *testing.T, within time.Duration, args ...string) (int, string) {
	t.Helper()
	start := time.Now()
	r := startTTYRun(t, c.cliHarness, args...)
	errc := make(chan error, 1)
	go func() { errc <- r.cmd.Wait() }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-errc:
			<-r.done
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			t.Logf("strom %s: exit %d after %s; its last lines:\n%s", strings.Join(args, " "), code,
				time.Since(start).Round(100*time.Millisecond), lastLines(r.text(), 3))
			return code, r.text()
		case now := <-tick.C:
			reqs := c.srv.Requests()
			var over string
			switch {
			case len(reqs) == 0 && now.Sub(start) > clientStartLimit:
				over = fmt.Sprintf("the client sent no request to the model server within %s of the start", clientStartLimit)
			case len(reqs) > 0 && now.Sub(reqs[0].At) > within:
				over = fmt.Sprintf("strom did not end within %s of the client's first request", within)
			}
			if over == "" {
				continue
			}
			r.cmd.Process.Kill()
			<-errc
			t.Fatalf("strom %s: %s:\n%s\n%s\n%s", strings.Join(args, " "), over, r.text(), c.transcripts(t), c.requestLog())
			return -1, ""
		}
	}
}

// lastLines returns the last n lines of what strom showed.
func lastLines(screen string, n int) string {
	lines := strings.Split(strings.TrimRight(screen, "\r\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// transcripts returns the sessions' pty transcripts, for failure messages.
func (c *claudeRepo) transcripts(t *testing.T) string {
	logs, _ := filepath.Glob(filepath.Join(c.repo, ".strom", "sessions", "*.log"))
	var b strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		if len(data) > 6000 {
			data = data[len(data)-6000:]
		}
		fmt.Fprintf(&b, "--- %s (tail)\n%s\n", filepath.Base(l), data)
	}
	return b.String()
}

// requestLog lists the model server's requests, for failure messages.
func (c *claudeRepo) requestLog() string {
	var b strings.Builder
	for i, r := range c.srv.Requests() {
		text := r.UserText
		if len(text) > 100 {
			text = text[:100] + "…"
		}
		fmt.Fprintf(&b, "request %d at %s: %s %s main=%v user=%q body=%d bytes: %s\n", i, r.At.Format("15:04:05.000"), r.Method, r.Path, r.Main, text, len(r.Body), r.Shape())
	}
	return b.String()
}

func (c *claudeRepo) trailer(t *testing.T, key string) string {
	t.Helper()
	return strings.TrimSpace(c.git(t, "log", "-1", "--format=%(trailers:key="+key+",valueonly)"))
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// TestClaudeSessionRecordsAndCloses: the model runs strom task, records, writes a
// file and closes; strom makes one commit with the trailers and exits 0.
func TestClaudeSessionRecordsAndCloses(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", token: true, turns: []fakemodel.Turn{{
			Steps: append(append(fakemodel.Bash("strom task", `strom record "Anna Novak was baptised in Tábor on 3 May 1850"`),
				fakemodel.Write("notes.md", "# Anna Novak\nBaptism: Tábor, 3 May 1850.\n")),
				fakemodel.Bash("strom session close")...),
			Text: "Recorded and closed.",
		}}})
		c.must(t, "task", "add", "Find the baptism of Anna Novak")
		before := strings.TrimSpace(c.git(t, "rev-list", "--count", "HEAD"))
		start := time.Now()
		code, screen := c.run(t, 90*time.Second, "run")
		t.Logf("the session took %s", time.Since(start).Round(time.Millisecond))
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
		}
		mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
		after := strings.TrimSpace(c.git(t, "rev-list", "--count", "HEAD"))
		if fmt.Sprint(atoiT(t, before)+1) != after {
			t.Errorf("commits before %s, after %s: want exactly one more", before, after)
		}
		for key, want := range map[string]string{"Strom-End": "closed", "Strom-Task": "T-1", "Strom-Agent": "claude"} {
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
		// The prompt reached the model as the first user turn.
		if texts := c.srv.UserTexts(); len(texts) == 0 || !strings.Contains(texts[0], "Find the baptism of Anna Novak") {
			t.Errorf("the model never saw the task in the prompt: %q", texts)
		}
	})
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestClaudeSubscriptionLimit: the subscriber's 429 ends the run "subscription
// limit (resets …)" at the time the client printed; the task is back in the queue.
func TestClaudeSubscriptionLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		for _, tc := range []struct {
			claim string
			says  map[string]string // by version
		}{
			{"five_hour", map[string]string{"2.1.197": "You've hit your session limit", "2.1.332": "You've hit your 5-hour limit"}},
			{"seven_day", map[string]string{"2.1.197": "You've hit your weekly limit", "2.1.332": "You've hit your weekly limit"}},
		} {
			t.Run(tc.claim, func(t *testing.T) {
				t.Parallel()
				if tc.says[cc.version] == "" {
					t.Fatalf("no limit text of %s: measure it and add it here", cc.version)
				}
				// A reset on a whole minute, 2 hours 7 minutes ahead, in UTC (TZ=UTC).
				reset := time.Now().UTC().Truncate(time.Minute).Add(2*time.Hour + 7*time.Minute)
				c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", token: true, turns: []fakemodel.Turn{{
					Error: fakemodel.RateLimitError(tc.claim, reset.Unix()),
				}}})
				c.must(t, "task", "add", "Find the baptism of Anna Novak")
				code, screen := c.run(t, 90*time.Second, "run")
				if code != 3 {
					t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
				}
				// The client says the time as 3:04pm; strom says it as 3:04 PM.
				mustContain(t, "the run's output", screen,
					"ended: subscription-limit — the agent said “"+tc.says[cc.version],
					"1 session · stopped: subscription limit (resets "+reset.Format("3:04 PM"))
				if got := c.trailer(t, "Strom-End"); got != "subscription-limit" {
					t.Errorf("Strom-End = %q", got)
				}
				mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
			})
		}
	})
}

// TestClaudeNotLoggedIn: without a login the run ends "the agent is not logged in":
// with a config folder of its own strom sees it before any session; without one the
// session finds it on the client's screen.
func TestClaudeNotLoggedIn(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		t.Run("config-dir", func(t *testing.T) {
			t.Parallel()
			cfg := t.TempDir()
			c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", configDir: cfg})
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			code, screen := c.run(t, 60*time.Second, "run")
			if code != 3 {
				t.Fatalf("exit %d, want 3:\n%s", code, screen)
			}
			mustContain(t, "the run's output", screen, "0 sessions · stopped: the agent is not logged in — run CLAUDE_CONFIG_DIR="+cfg+" claude once and log in")
			if strings.Contains(screen, "▶ session") {
				t.Errorf("a session started:\n%s", screen)
			}
			if n := len(c.srv.Requests()); n != 0 {
				t.Errorf("the model server got %d requests, want none", n)
			}
		})
		t.Run("in-session", func(t *testing.T) {
			t.Parallel()
			c := newClaudeRepo(t, cc, claudeSetup{home: "seeded"})
			c.must(t, "task", "add", "Find the baptism of Anna Novak")
			code, screen := c.run(t, 90*time.Second, "run")
			if code != 3 {
				t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
			}
			mustContain(t, "the run's output", screen, "ended: not-logged-in", "1 session · stopped: the agent is not logged in — run claude once and log in")
			if got := c.trailer(t, "Strom-End"); got != "not-logged-in" {
				t.Errorf("Strom-End = %q", got)
			}
			mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
		})
	})
}

// TestClaudeStatusLineUsage: the per-run statusLine hands the client's rate_limits
// to strom; strom usage shows the server's figures and claude-usage decides on them.
func TestClaudeStatusLineUsage(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		now := time.Now()
		// The week resets in 4 days: 3/7 of it (42.9 %) has passed and 40 % is used, a
		// lead of 2.9 points.
		weekReset, fiveReset := now.Add(4*24*time.Hour).Unix(), now.Add(3*time.Hour).Unix()
		c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", token: true,
			header: fakemodel.UtilizationHeaders(0.42, 0.40, fiveReset, weekReset),
			turns: []fakemodel.Turn{{
				Steps: fakemodel.Bash("strom task", `strom record "usage seen"`, "sleep 2", "strom session close"),
				Text:  "Closed.",
			}}})
		c.must(t, "task", "add", "Look at the usage")
		code, screen := c.run(t, 90*time.Second, "run")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
		}
		out := c.must(t, "usage", "--json")
		var u usageJSON
		if err := json.Unmarshal([]byte(out), &u); err != nil {
			t.Fatalf("strom usage --json: %v\n%s", err, out)
		}
		if u.WeekUsed != 40 || u.FiveHourUsed != 42 {
			t.Errorf("strom usage shows week %v %%, five hours %v %%; the server said 40 and 42:\n%s", u.WeekUsed, u.FiveHourUsed, out)
		}
		if u.WeekResetsAt == nil || u.WeekResetsAt.Unix() != weekReset {
			t.Errorf("week resets at %v, the server said %v", u.WeekResetsAt, time.Unix(weekReset, 0))
		}
		if !strings.Contains(u.Source, "status") {
			t.Errorf("source %q, want the agent's statusLine report", u.Source)
		}
		for _, tc := range []struct{ gate, verdict string }{
			{"claude-usage 0", "go"},
			{"claude-usage 5", "wait"},
		} {
			out := c.must(t, "gate", "test", "--gate", tc.gate, "--json")
			var ans struct {
				Verdict string `json:"verdict"`
				Reason  string `json:"reason"`
			}
			if err := json.Unmarshal([]byte(out), &ans); err != nil {
				t.Fatalf("strom gate test: %v\n%s", err, out)
			}
			if ans.Verdict != tc.verdict {
				t.Errorf("%s: verdict %q (%s), want %q", tc.gate, ans.Verdict, ans.Reason, tc.verdict)
			}
		}
	})
}

// TestClaudeWrapUpAtTimeLimit: at the time limit strom types the wrap-up message;
// it reaches the model as a user turn, and the model records and closes in the
// extra minutes. The session's clock runs 15 times faster than the wall clock.
func TestClaudeWrapUpAtTimeLimit(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		const wrapUp = "Time is up for this session."
		c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", token: true, turns: []fakemodel.Turn{
			{Steps: fakemodel.Bash("strom task"), Text: "I am reading the registers."},
			{When: wrapUp, Steps: fakemodel.Bash(`strom record "wrapped up at the time limit"`, "strom session close"), Text: "Recorded and closed."},
		}})
		c.must(t, "task", "add", "Find the baptism of Anna Novak")
		// From here on strom and every strom command the agent runs read one clock.
		origin := time.Now().Format(time.RFC3339Nano)
		// 15 times faster: the 5 minutes pass in 20 s, time enough for the client to
		// start and answer under load; strom's Enter after the typed text, 150 ms on
		// this clock, still comes 10 ms after the text.
		c.env = append(c.env, "STROM_TEST_TIME_SCALE=15", "STROM_TEST_TIME_ORIGIN="+origin, "STROM_TEST_TIME_BASE="+origin)
		code, screen := c.run(t, 120*time.Second, "run", "--minutes", "5")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
		}
		mustContain(t, "the run's output", screen, "time limit: the agent has 5 minutes more", "ended: closed")
		var got bool
		for _, text := range c.srv.UserTexts() {
			got = got || strings.Contains(text, wrapUp)
		}
		if !got {
			t.Errorf("the wrap-up never reached the model as a user turn: %q", c.srv.UserTexts())
		}
		mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "wrapped up at the time limit")
		if got := c.trailer(t, "Strom-End"); got != "closed" {
			t.Errorf("Strom-End = %q", got)
		}
	})
}

// TestClaudeTrustDialog: in a HOME where the repo is not trusted yet the client
// asks; strom ends the session with a sentence saying what to run, presses
// nothing, and the run stops for a person.
func TestClaudeTrustDialog(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		c := newClaudeRepo(t, cc, claudeSetup{home: "onboarded", token: true, turns: []fakemodel.Turn{{
			Steps: fakemodel.Bash("strom record trusted"), Text: "no",
		}}})
		c.must(t, "task", "add", "Find the baptism of Anna Novak")
		code, screen := c.run(t, 90*time.Second, "run")
		if code != 3 {
			t.Fatalf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
		}
		mustContain(t, "the run's output", screen,
			"ended: agent-failed — Claude Code asks whether to trust "+c.repo+": run `claude` once in this folder, answer the trust question, then run strom again.",
			"1 session · stopped: the agent needs a person — Claude Code asks whether to trust")
		for _, r := range c.srv.Requests() {
			if r.Main {
				t.Errorf("the model got a main request: the trust question was answered")
			}
		}
		data, err := os.ReadFile(filepath.Join(c.home, ".claude.json"))
		if err != nil {
			t.Fatal(err)
		}
		var state struct {
			Projects map[string]struct {
				HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
			} `json:"projects"`
		}
		_ = json.Unmarshal(data, &state)
		if state.Projects[c.repo].HasTrustDialogAccepted {
			t.Errorf("the folder is trusted now: something pressed Enter")
		}
		mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
	})
}

// setByPerson runs strom config set on a terminal and answers its question yes,
// as a person does for a setting only a person may choose.
func (c *claudeRepo) setByPerson(t *testing.T, key, value string) {
	t.Helper()
	r := startTTYRun(t, c.cliHarness, "config", "set", key, value, "--for-tree")
	r.waitFor(t, "[y/N]")
	if _, err := io.WriteString(r.master, "y\r"); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("strom config set %s %s: exit %d\n%s", key, value, code, r.text())
	}
}

// TestClaudePermissionLevels: each agent.permissions level means the same on every
// version (issue 25: 2.1.332 starts in "auto" mode and ran a command unasked when
// strom passed no flag for ask). ask stops at the first command, accept-edits lets
// an edit through and stops at a command, and bypass starts with Claude Code's
// warning until a person accepted it once; each screen waits for a person: strom
// ends the session with the sentence, answers nothing, and the run stops for a
// person with found.txt nowhere, neither in the work tree nor in a commit.
func TestClaudePermissionLevels(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const (
		prompt = "Claude Code waits for permission to run a tool: allow the tool in the agent's permission settings (or run it in bypass permissions mode), then run strom again."
		bypass = "Claude Code asks to accept Bypass Permissions mode: run `claude --dangerously-skip-permissions` once by hand, accept the warning, then run strom again."
	)
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		for _, tc := range []struct {
			permissions string
			steps       []fakemodel.Step
			says        string
			edited      bool // notes.md is written
		}{
			{"ask", fakemodel.Bash("echo found > found.txt", `strom record "wrote found.txt"`, "strom session close"), prompt, false},
			// Both versions let a plain redirection into the folder through as an
			// edit; a command that writes the file itself is asked about.
			{"accept-edits", append([]fakemodel.Step{fakemodel.Write("notes.md", "notes\n")},
				fakemodel.Bash("sh -c 'echo found > found.txt'", `strom record "wrote found.txt"`, "strom session close")...), prompt, true},
			{"bypass", fakemodel.Bash("echo found > found.txt", `strom record "wrote found.txt"`, "strom session close"), bypass, false},
		} {
			t.Run(tc.permissions, func(t *testing.T) {
				t.Parallel()
				c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", token: true, turns: []fakemodel.Turn{{Steps: tc.steps, Text: "Done."}}})
				c.setByPerson(t, "agent.permissions", tc.permissions)
				c.must(t, "task", "add", "Write the proof")
				code, screen := c.run(t, 90*time.Second, "run")
				if code != 3 {
					t.Errorf("exit %d, want 3:\n%s\n%s", code, screen, c.transcripts(t))
				}
				mustContain(t, "the run's output", screen, "ended: agent-failed — "+tc.says, "1 session · stopped: the agent needs a person — "+tc.says)
				if _, err := os.Stat(filepath.Join(c.repo, "found.txt")); err == nil {
					t.Error("found.txt exists: the command ran unasked")
				}
				if got := c.git(t, "log", "--all", "--format=%h", "--", "found.txt"); strings.TrimSpace(got) != "" {
					t.Errorf("found.txt was committed in %s", got)
				}
				if _, err := os.Stat(filepath.Join(c.repo, "notes.md")); (err == nil) != tc.edited {
					t.Errorf("notes.md written: %v, want %v", err == nil, tc.edited)
				}
				if strings.Contains(c.must(t, "log"), "wrote found.txt") {
					t.Error("the model went on: something answered the question")
				}
				mustContain(t, "the task list", c.must(t, "task", "list"), "T-1  open")
			})
		}
	})
}

// TestClaudeBypassAccepted: once the person chose bypass (a yes on the terminal)
// and accepted Claude Code's warning by hand, a session runs any command without a
// prompt; as root strom sets IS_SANDBOX=1 for it.
func TestClaudeBypassAccepted(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	eachClaude(t, func(t *testing.T, cc *npmClient) {
		c := newClaudeRepo(t, cc, claudeSetup{home: "seeded", token: true, turns: []fakemodel.Turn{{
			Steps: fakemodel.Bash("echo hello > proof.txt", `strom record "wrote the proof"`, "strom session close"), Text: "Done.",
		}}})
		writeJSONFile(t, filepath.Join(c.home, ".claude", "settings.json"), map[string]any{"skipDangerousModePermissionPrompt": true})
		c.setByPerson(t, "agent.permissions", "bypass")
		c.must(t, "task", "add", "Write the proof")
		code, screen := c.run(t, 90*time.Second, "run")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s\n%s", code, screen, c.transcripts(t))
		}
		mustContain(t, "the run's output", screen, "ended: closed", "1 session · stopped: done")
		mustContain(t, "the committed proof", c.git(t, "show", "HEAD:proof.txt"), "hello")
		mustContain(t, "the commit", c.git(t, "log", "-1", "--format=%B"), "wrote the proof")
	})
}
