package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/statefiles"
)

// answer waits for the terminal's question and types the person's answer.
func (r *ttyRun) answer(t *testing.T, question, typed string) {
	t.Helper()
	r.waitFor(t, question)
	if _, err := io.WriteString(r.master, typed); err != nil {
		t.Fatal(err)
	}
}

// tasksOf reads the queue as it is on disk, through the reader strom uses.
func tasksOf(t *testing.T, h *cliHarness) map[string]statefiles.Task {
	t.Helper()
	q, err := statefiles.At(h.repo).LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]statefiles.Task{}
	for _, task := range q.Tasks {
		out[task.ID] = task
	}
	return out
}

// modeAgent asks on "Asking", is done on "Finished", and closes otherwise.
const modeAgent = `#!/bin/sh
case "$(strom task)" in
*Asking*) strom ask "Which parish register?" ;;
*Finished*) strom record "found it"; strom done ;;
*) strom session close ;;
esac
`

// TestModeSwitchesBothWays: strom mode archive parks the open, started and waiting
// tasks and remembers where each was; a task added in the archive waits parked; strom
// mode research returns exactly those tasks. Both switches are commits of .strom/
// only, with a Strom-Mode trailer, and need the person's yes (R7.8).
func TestModeSwitchesBothWays(t *testing.T) {
	t.Parallel()
	h := withAgent(t, modeAgent)
	h.must(t, "task", "add", "Open task")     // T-1
	h.must(t, "task", "add", "Asking task")   // T-2 → waiting
	h.must(t, "task", "add", "Finished task") // T-3 → done
	h.must(t, "task", "add", "Parked task")   // T-4 → parked by the person
	h.must(t, "task", "add", "Started task")  // T-5 → started, its session gone
	h.must(t, "run", "--task", "T-2,T-3")
	h.must(t, "task", "park", "T-4", "--why", "needs the archive in Tábor")
	// A task left started by a session that is gone (a crash, say).
	qf := filepath.Join(h.repo, ".strom", filepath.FromSlash(statefiles.ShardFile("T-5")))
	data, _ := os.ReadFile(qf)
	at := strings.Index(string(data), `"id": "T-5"`)
	if at < 0 {
		t.Fatalf("T-5 is not in its file:\n%s", data)
	}
	edited := string(data[:at]) + strings.Replace(string(data[at:]), `"state": "open"`, `"state": "started",
      "session": "20261130T080000Z-dead"`, 1)
	if edited == string(data) {
		t.Fatalf("T-5 has no open state to change:\n%s", data)
	}
	if err := os.WriteFile(qf, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := tasksOf(t, h)["T-5"].State; got != statefiles.Started {
		t.Fatalf("T-5 is %s, want started", got)
	}
	// The person's own file stays theirs: a mode switch commits only .strom/.
	if err := os.WriteFile(filepath.Join(h.repo, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Enter means no: nothing changes.
	r := startTTYRun(t, h, "mode", "archive")
	r.answer(t, "[y/N]", "\r")
	if code := r.wait(t); code != 1 || !strings.Contains(r.text(), "not confirmed: nothing was changed") {
		t.Fatalf("exit %d:\n%s", code, r.text())
	}
	if got := strings.TrimSpace(h.must(t, "mode")); got != "research" {
		t.Fatalf("mode %q after no", got)
	}

	r = startTTYRun(t, h, "mode", "archive")
	r.answer(t, "Keep this research only as a Strom archive, where no agent works? Its open, started and waiting tasks (3 tasks) are parked until research is switched on again. [y/N]", "y\r")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.text())
	}
	if !strings.Contains(r.text(), "the research is a Strom archive now: 3 tasks parked (commit ") {
		t.Errorf("screen:\n%s", r.text())
	}
	want := map[string]struct {
		state      statefiles.State
		reason     string
		parkedFrom statefiles.State
	}{
		"T-1": {statefiles.Parked, mode.ArchiveReason, statefiles.Open},
		"T-2": {statefiles.Parked, mode.ArchiveReason, statefiles.Waiting},
		"T-3": {statefiles.Done, "", ""},
		"T-4": {statefiles.Parked, "needs the archive in Tábor", statefiles.Open},
		"T-5": {statefiles.Parked, mode.ArchiveReason, statefiles.Open},
	}
	tasks := tasksOf(t, h)
	for id, w := range want {
		got := tasks[id]
		if got.State != w.state || got.Reason != w.reason || got.ParkedFrom != w.parkedFrom {
			t.Errorf("%s in the archive: %s %q from %q, want %s %q from %q", id, got.State, got.Reason, got.ParkedFrom, w.state, w.reason, w.parkedFrom)
		}
	}
	if got := strings.TrimSpace(h.git(t, "log", "-1", "--format=%(trailers:key=Strom-Mode,valueonly)")); got != "archive" {
		t.Errorf("Strom-Mode = %q", got)
	}
	for _, f := range strings.Fields(h.git(t, "show", "--name-only", "--format=", "HEAD")) {
		if !strings.HasPrefix(f, ".strom/") {
			t.Errorf("the switch committed %s", f)
		}
	}
	if got := h.git(t, "status", "--porcelain", "mine.txt"); !strings.HasPrefix(got, "??") {
		t.Errorf("mine.txt: %q", got)
	}
	if got := strings.TrimSpace(h.must(t, "mode")); got != "archive" {
		t.Errorf("strom mode = %q", got)
	}
	if out := h.must(t, "task", "add", "Added in the archive"); !strings.Contains(out, "T-6 (parked: "+mode.ArchiveReason+")") {
		t.Errorf("task add in the archive: %q", out)
	}

	// Switching research on: "n" leaves the archive; "y" returns the tasks.
	r = startTTYRun(t, h, "mode", "research")
	r.answer(t, "[y/N]", "n\r")
	if code := r.wait(t); code != 1 {
		t.Fatalf("exit %d:\n%s", code, r.text())
	}
	if got := strings.TrimSpace(h.must(t, "mode")); got != "archive" {
		t.Fatalf("mode %q after no", got)
	}
	r = startTTYRun(t, h, "mode", "research")
	r.answer(t, "Switch research on, so that the agent works on it? The 4 tasks kept for the archive return to where they were. [y/N]", "y\r")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.text())
	}
	if !strings.Contains(r.text(), "research is on: 4 tasks returned to where they were") {
		t.Errorf("screen:\n%s", r.text())
	}
	tasks = tasksOf(t, h)
	back := map[string]statefiles.State{"T-1": statefiles.Open, "T-2": statefiles.Waiting, "T-3": statefiles.Done,
		"T-4": statefiles.Parked, "T-5": statefiles.Open, "T-6": statefiles.Open}
	for id, w := range back {
		if got := tasks[id]; got.State != w {
			t.Errorf("%s after research: %s, want %s", id, got.State, w)
		}
	}
	if tasks["T-4"].Reason != "needs the archive in Tábor" {
		t.Errorf("the person's parking of T-4 was lost: %q", tasks["T-4"].Reason)
	}
	if q := tasks["T-2"].Questions; len(q) != 1 || q[0].Question != "Which parish register?" {
		t.Errorf("T-2's question: %+v", q)
	}
	if got := strings.TrimSpace(h.git(t, "log", "-1", "--format=%(trailers:key=Strom-Mode,valueonly)")); got != "research" {
		t.Errorf("Strom-Mode = %q", got)
	}
	if got := strings.TrimSpace(h.must(t, "mode")); got != "research" {
		t.Errorf("strom mode = %q", got)
	}
	// Nothing was deleted: every task is still there.
	if len(tasks) != 6 {
		t.Errorf("%d tasks, want 6", len(tasks))
	}
}

// TestModeRefusedWhileSessionRuns: no switch while a session works in the research;
// the session finishes first. A live session also makes a research whose agent is not
// installed a research (R7.8.1).
func TestModeRefusedWhileSessionRuns(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	marker := filepath.Join(h.dir, "started")
	agent := "#!/bin/sh\ntouch " + marker + "\nsleep 1000\n"
	if err := os.WriteFile(filepath.Join(h.dir, "agent.sh"), []byte(agent), 0o755); err != nil {
		t.Fatal(err)
	}
	h.must(t, "init", "--agent", "claude")
	// The research's agent is one this computer does not have. (The person's own
	// profile says so: in the tree's settings its binary would need allowing.)
	cfg := `{"version": 1, "agents": {"claude": {"binary": "strom-test-no-such-agent"}}}`
	user := filepath.Join(h.dir, "home", ".config", "strom")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h.must(t, "task", "add", "Long task")
	if got := h.must(t, "mode"); !strings.HasPrefix(got, "research waiting for an agent (strom-test-no-such-agent is not installed") {
		t.Fatalf("strom mode = %q", got)
	}

	run := exec.Command(h.strom, "run", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
	run.Dir, run.Env = h.repo, h.env
	var out lockedBuffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Process.Kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session did not start:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := strings.TrimSpace(h.must(t, "mode")); got != "research" {
		t.Errorf("strom mode with a live session = %q, want research", got)
	}
	cmd := exec.Command(h.strom, "mode", "archive")
	cmd.Dir, cmd.Env = h.repo, h.env
	msg, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("strom mode archive: %v\n%s", err, msg)
	}
	if !strings.Contains(string(msg), "a session is working in this research (session ") || !strings.Contains(string(msg), "the session finishes first") {
		t.Errorf("message: %s", msg)
	}
	run.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end:\n%s", out.String())
	}
	if got := strings.TrimSpace(h.must(t, "task", "list")); !strings.Contains(got, "T-1  open") {
		t.Errorf("task list: %s", got)
	}
	if got := h.git(t, "log", "--format=%(trailers:key=Strom-Mode,valueonly)"); strings.TrimSpace(got) != "" {
		t.Errorf("a mode commit was made: %q", got)
	}
}

// TestChatClosedByPerson: strom chat types the person's keys into the agent, ends in
// one commit with Strom-End: closed-by-person, and never counts toward parking.
func TestChatClosedByPerson(t *testing.T) {
	t.Parallel()
	agent := "#!/bin/sh\nread line\necho \"heard: $line\" > chat-$STROM_TASK.txt\n"
	h := withAgent(t, agent, "First", "Second")
	// Three chats that record nothing: a run's sessions would park the task after two.
	for i := 0; i < 3; i++ {
		r := startTTYRun(t, h, "chat", "--task", "T-2")
		r.waitFor(t, "▶ session")
		time.Sleep(300 * time.Millisecond)
		io.WriteString(r.master, "the register is in Tábor\r")
		if code := r.wait(t); code != 0 {
			t.Fatalf("chat %d: exit %d:\n%s", i+1, code, r.text())
		}
		if !strings.Contains(r.text(), "on T-2 ended: closed-by-person") {
			t.Errorf("chat %d:\n%s", i+1, r.text())
		}
	}
	if got := strings.TrimSpace(h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)")); got != "closed-by-person" {
		t.Errorf("Strom-End = %q", got)
	}
	if got := h.git(t, "show", "HEAD:chat-T-2.txt"); !strings.Contains(got, "heard: the register is in Tábor") {
		t.Errorf("the person's words did not reach the agent: %q", got)
	}
	if got := strings.TrimSpace(h.git(t, "log", "-1", "--format=%s")); got != "strom: T-2 Second — closed by a person" {
		t.Errorf("subject %q", got)
	}
	if got := tasksOf(t, h)["T-2"].State; got != statefiles.Open {
		t.Errorf("T-2 is %s after three chats, want open", got)
	}
	if data, _ := os.ReadFile(filepath.Join(h.repo, ".strom", "park.json")); strings.Contains(string(data), "T-2") {
		t.Errorf("a chat counted toward parking: %s", data)
	}
}
