package agents

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strom-research/strom/internal/clock"
)

// fakeStrom is a tiny shell script standing in for the strom binary: it logs
// its arguments to strom-calls.log in its working folder (each test's own
// t.TempDir), prints the file strom-says for a plain "strom task" when there
// is one, fails "strom done" when strom-fails-done exists, and prints "ok".
// It is written once in TestMain, before any test runs a program: writing an
// executable while another goroutine forks can make exec fail with "text
// file busy".
var fakeStrom string

const fakeStromScript = `#!/bin/sh
{ for a in "$@"; do printf '%s\037' "$a"; done; printf '\n'; } >> strom-calls.log
if [ "$#" = 1 ] && [ "$1" = task ] && [ -f strom-says ]; then cat strom-says; fi
if [ "$1" = done ] && [ -f strom-fails-done ]; then echo "the check fails: conflict markers in notes/x.md" >&2; exit 1; fi
echo ok
`

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "strom-agents-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeStrom = filepath.Join(dir, "strom")
	if err := os.WriteFile(fakeStrom, []byte(fakeStromScript), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var demoStart = time.Date(2026, 11, 30, 9, 12, 4, 0, time.UTC)

const (
	demoSession = "20261130T091204Z-4f2a"
	demoTitle   = "Find the baptism of Anna Novak"
)

// demoRun is one run of the demo agent against the fake strom.
type demoRun struct {
	dir    string
	code   int
	stdout string
	stderr string
}

// calls returns the strom commands the demo ran, each as its words.
func (r demoRun) calls(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "strom-calls.log"))
	if err != nil {
		t.Fatalf("read the fake strom's log: %v\nstdout:\n%s", err, r.stdout)
	}
	var out [][]string
	for l := range strings.SplitSeq(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, strings.Split(strings.TrimSuffix(l, "\x1f"), "\x1f"))
	}
	return out
}

type demoSetup struct {
	env    map[string]string // over the session's defaults; "" removes one
	stdin  io.Reader
	clock  clock.Clock
	files  map[string]string // written into the work folder first
	prompt *TaskInfo         // written as the prompt file
}

func runDemo(t *testing.T, s demoSetup) demoRun {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		EnvSession:  demoSession,
		EnvTask:     "T-3",
		EnvDeadline: demoStart.Add(time.Hour).Format(time.RFC3339),
		EnvDemoStep: "0s",
	}
	for k, v := range s.env {
		env[k] = v
	}
	for name, text := range s.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var args []string
	if s.prompt != nil {
		path := filepath.Join(t.TempDir(), "prompt.md")
		if err := os.WriteFile(path, []byte(Prompt(*s.prompt)), 0o644); err != nil {
			t.Fatal(err)
		}
		args = []string{"--prompt-file", path}
	}
	clk := s.clock
	if clk == nil {
		clk = clock.NewFake(demoStart)
	}
	var stdout, stderr bytes.Buffer
	code := RunDemo(t.Context(), DemoOptions{
		Args:   args,
		Stdin:  s.stdin,
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
		Clock:  clk,
		Strom:  fakeStrom,
		Dir:    dir,
	})
	return demoRun{dir: dir, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func TestDemoOutcomes(t *testing.T) {
	t.Parallel()
	finding := demoFinding(demoTitle)
	question := "Which archive should the next session search for “" + demoTitle + "”: the parish registers or the civil records?"
	tests := []struct {
		seed string
		want [][]string
	}{
		{"1", [][]string{{"task"}, {"record", finding}, {"done"}}},
		{"4", [][]string{{"task"}, {"record", finding}, {"ask", question}}},
		{"11", [][]string{{"task"}, {"record", finding},
			{"task", "add", "Follow up: " + demoTitle, "--body", "Found while working on T-3: " + finding},
			{"session", "close"}}},
		{"22", [][]string{{"task"}, {"record", finding}, {"session", "close"}}},
	}
	for _, tt := range tests {
		t.Run("seed "+tt.seed, func(t *testing.T) {
			t.Parallel()
			r := runDemo(t, demoSetup{
				env:    map[string]string{EnvDemoSeed: tt.seed},
				prompt: &TaskInfo{ID: "T-3", Title: demoTitle, Deadline: demoStart.Add(time.Hour), Minutes: 60},
			})
			if r.code != 0 {
				t.Errorf("exit status %d, stderr %q", r.code, r.stderr)
			}
			if diff := cmp.Diff(tt.want, r.calls(t)); diff != "" {
				t.Errorf("strom calls (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
			}
			for _, w := range []string{"strom demo agent", "$ strom task\nok\n", "Wrote notes/T-3.md."} {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

func TestDemoNotes(t *testing.T) {
	t.Parallel()
	r := runDemo(t, demoSetup{
		prompt: &TaskInfo{ID: "T-3", Title: demoTitle},
		files:  map[string]string{},
	})
	b, err := os.ReadFile(filepath.Join(r.dir, "notes", "T-3.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# T-3: " + demoTitle + "\n\nNotes the strom demo agent wrote, one section a session.\n\n" +
		"## 2026-11-30 09:12 UTC, session " + demoSession + "\n\n" +
		"- Looked at: the task text, the notes/ folder and 2 sources.\n" +
		"- Finding: " + demoFinding(demoTitle) + "\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestDemoTypedFinishClosesEarly(t *testing.T) {
	t.Parallel()
	tests := []string{
		"\x1b[200~A person asked this session to finish. Start nothing new.\x1b[201~",
		"Time is up for this session. You have 5 more minutes: record now.",
	}
	for _, typed := range tests {
		t.Run(typed[:20], func(t *testing.T) {
			t.Parallel()
			// A pipe blocks like a terminal until something is typed.
			in, typing := io.Pipe()
			t.Cleanup(func() { typing.Close() })
			// The fake clock never moves: the demo stays in its first work
			// step until the typed line reaches it.
			fake := clock.NewFake(demoStart)
			var wg sync.WaitGroup
			wg.Go(func() { fmt.Fprintf(typing, "hello there\n%s\n", typed) })
			r := runDemo(t, demoSetup{
				env:   map[string]string{EnvDemoStep: "30s", EnvDemoSeed: "1"},
				stdin: in, clock: fake,
				prompt: &TaskInfo{ID: "T-3", Title: demoTitle},
			})
			wg.Wait()
			partial := "Partial, stopped early: " + demoFinding(demoTitle)
			if diff := cmp.Diff([][]string{{"task"}, {"record", partial}, {"session", "close"}}, r.calls(t)); diff != "" {
				t.Errorf("strom calls (-want +got):\n%s\nstdout:\n%s", diff, r.stdout)
			}
			for _, w := range []string{"(read: hello there)", "Wrapping up (asked to wrap up:"} {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if r.code != 0 {
				t.Errorf("exit status %d", r.code)
			}
		})
	}
}

func TestDemoHeedsStromNotes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, says string
	}{
		{"finish request", "T-3  Find the baptism\n⏹ A person asked this session to finish: start nothing new, record what you found (strom record \"…\"), then close the session (strom session close).\n"},
		{"last minutes", "⏱ 2 minutes left (ends 10:12 UTC): write what you found now (strom record \"…\") and close the session (strom session close).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runDemo(t, demoSetup{files: map[string]string{"strom-says": tt.says}})
			got := r.calls(t)
			if len(got) != 3 || got[1][0] != "record" || !strings.HasPrefix(got[1][1], "Partial") ||
				!cmp.Equal(got[2], []string{"session", "close"}) {
				t.Errorf("strom calls = %q, want task, a partial record, session close\nstdout:\n%s", got, r.stdout)
			}
			if !strings.Contains(r.stdout, tt.says) {
				t.Errorf("the demo did not show strom's note:\n%s", r.stdout)
			}
		})
	}
}

func TestDemoDoneRefused(t *testing.T) {
	t.Parallel()
	r := runDemo(t, demoSetup{files: map[string]string{"strom-fails-done": ""}})
	got := r.calls(t)
	if n := len(got); n != 4 || !cmp.Equal(got[2], []string{"done"}) || !cmp.Equal(got[3], []string{"session", "close"}) {
		t.Errorf("strom calls = %q, want task, record, done, session close", got)
	}
	if !strings.Contains(r.stdout, "the check fails") {
		t.Errorf("the demo did not show why strom done failed:\n%s", r.stdout)
	}
}

func TestDemoSetup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      map[string]string
		wantCode int
		wantErr  string
	}{
		{"outside a session", map[string]string{EnvSession: ""}, 2, "The demo agent runs only inside a strom session"},
		{"no deadline", map[string]string{EnvDeadline: ""}, 2, "The demo agent runs only inside a strom session"},
		{"bad deadline", map[string]string{EnvDeadline: "tomorrow"}, 2, "is not an RFC 3339 time"},
		{"bad step", map[string]string{EnvDemoStep: "fast"}, 2, `STROM_DEMO_STEP="fast" is not a duration`},
		{"a tiny real step", map[string]string{EnvDemoStep: "1ms"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var clk clock.Clock
			if tt.wantCode == 0 {
				clk = clock.Real{}
			}
			r := runDemo(t, demoSetup{env: tt.env, clock: clk})
			if r.code != tt.wantCode || !strings.Contains(r.stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.wantCode, tt.wantErr)
			}
			if tt.wantCode == 2 {
				if _, err := os.Stat(filepath.Join(r.dir, "strom-calls.log")); err == nil {
					t.Errorf("the demo ran strom although it refused to start")
				}
				if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
					t.Errorf("want one sentence, got %q", r.stderr)
				}
			}
		})
	}
}

func TestDemoStopsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	fake := clock.NewFake(demoStart)
	var out bytes.Buffer
	env := map[string]string{EnvSession: demoSession, EnvTask: "T-3", EnvDeadline: demoStart.Add(time.Hour).Format(time.RFC3339)}
	code := RunDemo(ctx, DemoOptions{Stdout: &out, Getenv: func(k string) string { return env[k] }, Clock: fake, Strom: fakeStrom, Dir: t.TempDir()})
	if code != 1 || !strings.Contains(out.String(), "Stopped: context canceled.") {
		t.Errorf("exit %d, stdout:\n%s", code, out.String())
	}
}

func TestDemoOutcome(t *testing.T) {
	t.Parallel()
	counts := map[Outcome]int{}
	const n = 20000
	for i := range n {
		counts[DemoOutcome(strconv.Itoa(i), "T-3", demoSession, demoTitle, 0)]++
	}
	for o, want := range map[Outcome]float64{OutcomeDone: .6, OutcomeAsk: .1, OutcomeFollowUp: .2, OutcomeClose: .1} {
		if got := float64(counts[o]) / n; got < want-.02 || got > want+.02 {
			t.Errorf("%s in %.3f of sessions, want about %.2f", o, got, want)
		}
	}
	tests := []struct {
		name    string
		seed    string
		title   string
		earlier int
		want    Outcome
	}{
		{"same inputs, same outcome", "11", demoTitle, 0, OutcomeFollowUp},
		{"a follow-up gets no follow-up", "11", "Follow up: " + demoTitle, 0, OutcomeDone},
		{"three earlier records end the task", "22", demoTitle, 3, OutcomeDone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := DemoOutcome(tt.seed, "T-3", demoSession, tt.title, tt.earlier); got != tt.want {
				t.Errorf("DemoOutcome = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestDemoTimeLeftRoundsDown: the demo agent never says more time than is left.
func TestDemoTimeLeftRoundsDown(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		59*time.Minute + 59*time.Second:       "59 minutes",
		69 * time.Second:                      "1 minute",
		59*time.Second + 999*time.Millisecond: "59 seconds",
		1500 * time.Millisecond:               "1 second",
		500 * time.Millisecond:                "no time",
		-time.Second:                          "no time",
	} {
		if got := timeLeft(d); got != want {
			t.Errorf("timeLeft(%s) = %q, want %q", d, got, want)
		}
	}
}
