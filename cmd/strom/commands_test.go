package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
)

// commandSys is a research with one open task (T-1) and the process state of a
// command run in it, its streams in buffers: what a command's function needs
// without the whole command line. env adds to the environment.
func commandSys(t *testing.T, env ...string) (*sys, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, ".home")
	root := filepath.Join(dir, "research")
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME": os.Getenv("XDG_CACHE_HOME"), "PATH": os.Getenv("PATH"), "LANG": "C"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	getenv := func(k string) string { return vars[k] }
	for _, args := range [][]string{{"init", "-q", root}, {"-C", root, "config", "user.name", "T"}, {"-C", root, "config", "user.email", "t@example.org"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r, err := mode.Init(t.Context(), root, mode.InitOptions{Agent: "command"}, research.Env{Clock: clock.Real{}, Getenv: getenv}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queue.AddTaskNeeding(t.Context(), r, "Find Anna's baptism", "", "", nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	return &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: getenv, dir: root, clk: clock.Real{}}, &out
}

// usageSays fails unless err is a usage error (exit 2) whose sentence holds want.
func usageSays(t *testing.T, err error, want string) {
	t.Helper()
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Error(), want) {
		t.Fatalf("error %v, want a usage error saying %q", err, want)
	}
}

func TestRunRun(t *testing.T) {
	t.Parallel()
	s, out := commandSys(t)
	// The ranges are the settings table's: run.minutes 5–600, --max 1–100.
	usageSays(t, runRun(t.Context(), s, runOptions{Max: 101, MaxGiven: true}), "--max takes a whole number 1–100, not 101")
	usageSays(t, runRun(t.Context(), s, runOptions{Minutes: "4"}), `--minutes takes a whole number 5–600, not "4"`)
	usageSays(t, runRun(t.Context(), s, runOptions{Loop: true, MaxGiven: true, Max: 2}), "choose one of --max, --loop and --task")
	usageSays(t, runRun(t.Context(), s, runOptions{Words: []string{"T-1"}}), "T-1")
	// A run of the task named, by an agent that ends at once without closing it.
	err := runRun(t.Context(), s, runOptions{TaskGiven: true, Words: []string{"1"}, NoGate: true, AgentArgs: []string{"sh", "-c", "exit 0"}})
	var ee exitErr
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("runRun: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "1 session") {
		t.Errorf("runRun said %q, want the run's one session", out)
	}
}

func TestRunChat(t *testing.T) {
	t.Parallel()
	s, _ := commandSys(t)
	usageSays(t, runChat(t.Context(), s, chatOptions{Minutes: "601"}), `--minutes takes a whole number 5–600, not "601"`)
	usageSays(t, runChat(t.Context(), s, chatOptions{Agent: "demo", AgentArgs: []string{"sh"}}), "strom chat")
	s, _ = commandSys(t, "STROM_SESSION=20261130T090000Z-beef")
	if err := runChat(t.Context(), s, chatOptions{}); err == nil || !strings.Contains(err.Error(), "20261130T090000Z-beef") {
		t.Errorf("runChat inside a session: %v, want the refusal naming it", err)
	}
}

func TestRunTask(t *testing.T) {
	t.Parallel()
	s, out := commandSys(t)
	if err := runTask(t.Context(), s, taskOptions{}); err != nil || !strings.Contains(out.String(), "Find Anna's baptism") {
		t.Fatalf("runTask = %v, said %q", err, out)
	}
	out.Reset()
	if err := runTask(t.Context(), s, taskOptions{JSON: true}); err != nil || !json.Valid(out.Bytes()) || !strings.Contains(out.String(), `"T-1"`) {
		t.Fatalf("runTask --json = %v, said %q", err, out)
	}
}

func TestRunRecord(t *testing.T) {
	t.Parallel()
	s, out := commandSys(t)
	usageSays(t, runRecord(t.Context(), s, recordOptions{Text: "Register 12"}), "--task")
	if err := runRecord(t.Context(), s, recordOptions{Task: "1", Text: "Register 12: no baptism"}); err != nil || !strings.Contains(out.String(), "T-1") {
		t.Fatalf("runRecord = %v, said %q", err, out)
	}
	r, err := s.research()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := r.Tree.TaskRecords(t.Context(), "T-1")
	if err != nil || len(recs) != 1 || recs[0].Text != "Register 12: no baptism" {
		t.Errorf("the records of T-1 = %+v, %v", recs, err)
	}
}

func TestRunLog(t *testing.T) {
	t.Parallel()
	s, out := commandSys(t)
	usageSays(t, runLog(t.Context(), s, logOptions{N: -1}), "-1")
	if err := runLog(t.Context(), s, logOptions{N: 20}); err != nil || strings.TrimSpace(out.String()) == "" {
		t.Fatalf("runLog = %v, said %q", err, out)
	}
	msg := "strom: T-1 x\n\nStrom-Session: 20261130T090000Z-beef\nStrom-Task: T-1\nStrom-End: done\n"
	if b, err := exec.Command("git", "-C", s.dir, "commit", "-q", "--allow-empty", "-m", msg).CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, b)
	}
	out.Reset()
	if err := runLog(t.Context(), s, logOptions{N: 20, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var entries []harness.SessionEntry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil || len(entries) != 1 || entries[0].Session != "20261130T090000Z-beef" {
		t.Errorf("runLog --json = %v, %+v from %q", err, entries, out)
	}
}

func TestRunStatus(t *testing.T) {
	t.Parallel()
	s, out := commandSys(t)
	if err := runStatus(context.Background(), s, statusOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	var st statusJSON
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || st.Tasks["open"] != 1 || st.Last != nil || st.Running != nil {
		t.Errorf("runStatus --json = %v, %+v from %q", err, st, out)
	}
	out.Reset()
	if err := runStatus(context.Background(), s, statusOptions{}); err != nil || strings.Count(out.String(), "\n") < 3 {
		t.Errorf("runStatus = %v, said %q", err, out)
	}
}
