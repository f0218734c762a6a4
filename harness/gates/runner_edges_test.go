package gates

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/statefiles"
)

// edgeStart is 3 days into a week that resets 2026-12-04 09:00 UTC: 42.9 % passed.
var edgeStart = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// committedHold is a hold.json as a session commit left it: not waiting.
const committedHold = `{"version": 1, "week_resets_at": "2026-12-04T09:00:00Z", "waiting": false}` + "\n"

// edgeRun is a research with claude-usage's hold.json and a fake clock, and a
// Runner of words (a run chosen by hand) whose usage is a week used% used.
func edgeRun(t *testing.T, words string, used float64) (*Runner, *clock.Fake, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	cfg := filepath.Join(root, ".config")
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}
	fake := clock.NewFake(edgeStart)
	tree := statefiles.At(root)
	for _, d := range []string{tree.Path(statefiles.RunDir), tree.Path(statefiles.GatesDir, ClaudeUsage)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(tree.Path(statefiles.GatesDir, ClaudeUsage, statefiles.HoldFile), []byte(committedHold), 0o644); err != nil {
		t.Fatal(err)
	}
	usage := filepath.Join(root, "status.json")
	status := fmt.Sprintf(`{"rate_limits":{"five_hour":{"used_percentage":5,"resets_at":%d},"seven_day":{"used_percentage":%g,"resets_at":%d}}}`,
		edgeStart.Add(2*time.Hour).Unix(), used, time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC).Unix())
	if err := os.WriteFile(usage, []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &research.Research{Tree: tree, Clock: fake, Getenv: getenv}
	if err := runfiles.SaveRun(r, &runfiles.RunInfo{PID: os.Getpid(), Started: edgeStart}); err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec(words)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	a := &Asker{Tree: tree, Clock: fake, Getenv: getenv, Spec: spec, Agent: "claude", UsageFile: usage}
	return &Runner{Asker: a, Research: r, Out: &out, Interrupts: make(chan struct{})}, fake, &out
}

func readHold(t *testing.T, g *Runner) string {
	t.Helper()
	data, err := os.ReadFile(g.Asker.Tree.Path(statefiles.GatesDir, ClaudeUsage, statefiles.HoldFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func logLines(t *testing.T, g *Runner) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(g.Asker.Tree.Path(statefiles.GateLogFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestRunnerNoIsNoWait: a "no" at "Start anyway?", and a yes, is no wait. Only a
// wait the run makes sets claude-usage's hold.json to waiting (R7.5.2), and only
// the gate.log line of a run that waited carries a wait_s (R7.4.3).
func TestRunnerNoIsNoWait(t *testing.T) {
	t.Parallel()
	for _, yes := range []bool{false, true} {
		t.Run(fmt.Sprintf("yes=%v", yes), func(t *testing.T) {
			t.Parallel()
			g, _, out := edgeRun(t, "claude-usage 10", 40)
			g.Confirm = func(string) (bool, bool) { return yes, true }
			gs, err := g.Before(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if yes != (gs == nil) || !yes && gs.Stop != ends.StopNotStarted {
				t.Fatalf("Before = %+v, want the run started %v\n%s", gs, yes, out)
			}
			if !strings.Contains(out.String(), "wait — week 40% used") {
				t.Errorf("the answer was not a wait on the pace:\n%s", out)
			}
			if got := readHold(t, g); got != committedHold {
				t.Errorf("hold.json after a question answered %v = %s, want it as it was", yes, got)
			}
			for _, e := range logLines(t, g) {
				if _, ok := e["wait_s"]; ok {
					t.Errorf("gate.log line of a run that did not wait has a wait_s: %v", e)
				}
			}
		})
	}
	t.Run("no one to ask: the run waits", func(t *testing.T) {
		t.Parallel()
		g, fake, out := edgeRun(t, "claude-usage 10", 40)
		g.Confirm = func(string) (bool, bool) { return false, false }
		g.Until = edgeStart.Add(time.Minute)
		done := beforeInBackground(t, g)
		// The wait is logged before it begins; then the clock runs to --until.
		logged := func() bool {
			data, _ := os.ReadFile(g.Asker.Tree.Path(statefiles.GateLogFile))
			return bytes.Contains(data, []byte(`"did":"wait"`))
		}
		for !logged() {
			time.Sleep(time.Millisecond)
		}
		var gs *ends.GateStop
	run:
		for {
			select {
			case gs = <-done:
				break run
			default:
				fake.Advance(time.Minute)
				time.Sleep(time.Millisecond)
			}
		}
		if gs == nil || gs.Stop != ends.StopTimeLimit {
			t.Fatalf("Before = %+v, want the time limit\n%s", gs, out)
		}
		if got := readHold(t, g); !strings.Contains(got, `"waiting": true`) {
			t.Errorf("hold.json after a wait = %s, want waiting", got)
		}
		if e := logLines(t, g)[0]; e["did"] != DidWait || e["wait_s"] != 60.0 {
			t.Errorf("gate.log line of the wait = %v, want did wait, wait_s 60", e)
		}
	})
}

// TestRunnerHandRunAsksOnlyTheCap: a run chosen by hand whose condition watches the
// cap asks again before its next session for the cap alone (R7.4.1, R7.4.2): its
// line says what the run does, never a wait it does not make.
func TestRunnerHandRunAsksOnlyTheCap(t *testing.T) {
	t.Parallel()
	g, _, out := edgeRun(t, "claude-usage 10 --cap 95", 40)
	g.Confirm = func(string) (bool, bool) { return true, true }
	if gs, err := g.Before(context.Background(), 1); gs != nil || err != nil {
		t.Fatalf("first Before = %+v, %v; want started anyway\n%s", gs, err, out)
	}
	out.Reset()
	if gs, err := g.Before(context.Background(), 2); gs != nil || err != nil {
		t.Fatalf("second Before = %+v, %v; want go\n%s", gs, err, out)
	}
	if !strings.HasPrefix(out.String(), "· condition claude-usage: go — week 40% used, under the cap of 95%") || strings.Contains(out.String(), "wait") {
		t.Errorf("second question printed:\n%s\nwant the cap's go alone", out)
	}
	if got := readHold(t, g); got != committedHold {
		t.Errorf("hold.json = %s, want it as it was", got)
	}
	lines := logLines(t, g)
	if last := lines[len(lines)-1]; last["did"] != DidGo || last["verdict"] != Go {
		t.Errorf("gate.log's second line = %v, want verdict and did go", last)
	}
}

// TestRunnerLongReason: a gate's reason of 64 KiB is printed once, by its first
// characters and how many there are; gate.log keeps it whole.
func TestRunnerLongReason(t *testing.T) {
	t.Parallel()
	for _, verdict := range []string{"stop", "wait"} {
		t.Run(verdict, func(t *testing.T) {
			t.Parallel()
			g, fake, out := edgeRun(t, "long", 0)
			dir := filepath.Join(g.Research.Getenv("XDG_CONFIG_HOME"), "strom", "plugins", "gates", "long")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			reason := strings.Repeat("x", 65000-8) + " the end" // with the JSON around it, within the 64 KiB read
			prog := "#!/bin/sh\nprintf '{\"verdict\":\"" + verdict + "\",\"reason\":\"" + reason + "\"}'\n"
			if err := os.WriteFile(filepath.Join(dir, "gate"), []byte(prog), 0o755); err != nil {
				t.Fatal(err)
			}
			g.Until = edgeStart.Add(time.Minute)
			done := beforeInBackground(t, g)
			var gs *ends.GateStop
		run:
			for {
				select {
				case gs = <-done:
					break run
				case <-time.After(10 * time.Millisecond):
					if data, _ := os.ReadFile(g.Asker.Tree.Path(statefiles.GateLogFile)); bytes.Contains(data, []byte(`"did":"wait"`)) {
						fake.Advance(time.Minute)
					}
				}
			}
			if gs == nil {
				t.Fatalf("Before started the session")
			}
			printed := out.String() + gs.Reason
			if n := strings.Count(printed, "x"); n < termsafe.ExcerptMax || n > termsafe.ExcerptMax+20 {
				t.Errorf("the reason's characters were printed %d times in all, want its first %d once:\n%.600s", n, termsafe.ExcerptMax, printed)
			}
			if !strings.Contains(out.String(), "65000 characters") {
				t.Errorf("the run's lines do not say how long the reason is:\n%.600s", out)
			}
			if e := logLines(t, g)[0]; e["reason"] != reason {
				t.Errorf("gate.log does not keep the reason whole")
			}
		})
	}
}

// TestRunnerHandRunProgramWatch: a condition program that watches is asked again
// in a run chosen by hand, and answers for more than its cap: the line after its
// answer says that the session starts all the same.
func TestRunnerHandRunProgramWatch(t *testing.T) {
	t.Parallel()
	g, _, out := edgeRun(t, "watcher", 0)
	dir := filepath.Join(g.Research.Getenv("XDG_CONFIG_HOME"), "strom", "plugins", "gates", "watcher")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := "#!/bin/sh\necho '{\"verdict\":\"wait\",\"reason\":\"not yet\",\"retry_after_s\":3600,\"watch\":{\"week_finish_at\":90}}'\n"
	if err := os.WriteFile(filepath.Join(dir, "gate"), []byte(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Confirm = func(string) (bool, bool) { return true, true }
	if gs, err := g.Before(context.Background(), 1); gs != nil || err != nil {
		t.Fatalf("first Before = %+v, %v; want started anyway\n%s", gs, err, out)
	}
	out.Reset()
	if gs, err := g.Before(context.Background(), 2); gs != nil || err != nil {
		t.Fatalf("second Before = %+v, %v; want the session\n%s", gs, err, out)
	}
	want := "· condition watcher: wait — not yet (exit 0; .strom/gate.log)\n" +
		"· a run started by hand asks its condition again only for the cap: the session starts\n"
	if out.String() != want {
		t.Errorf("second question printed:\n%s\nwant:\n%s", out, want)
	}
}

// beforeInBackground asks g before the first session in a goroutine of its own and
// gives its answer on the channel returned; an error fails the test.
func beforeInBackground(t *testing.T, g *Runner) <-chan *ends.GateStop {
	done := make(chan *ends.GateStop, 1)
	go func() {
		gs, err := g.Before(context.Background(), 1)
		if err != nil {
			t.Error(err)
		}
		done <- gs
	}()
	return done
}
