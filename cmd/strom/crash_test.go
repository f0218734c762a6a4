package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashAgent writes files and records in small steps, adds a follow-up task and
// ends its task, and notes, outside the repo, each step that succeeded: what the
// test then requires to be in git. One of its own strom commands may be killed at
// a write point (AGENT_KILL_AT, set by the test for the round).
const crashAgent = `#!/bin/sh
mkdir -p out
kill_at=$AGENT_KILL_AT
unset STROM_TEST_KILL_AT
i=0
while [ $i -lt 3 ]; do
	i=$((i+1))
	f="out/$STROM_SESSION-$i.txt"
	echo "session $STROM_SESSION step $i" > "$f" && echo "file $f" >> "$CRASH_LOG"
	if [ "$i" = 2 ] && [ -n "$kill_at" ]; then
		STROM_TEST_KILL_AT=$kill_at strom record "r $STROM_SESSION $i" >/dev/null 2>&1 && echo "record r $STROM_SESSION $i" >> "$CRASH_LOG"
	else
		strom record "r $STROM_SESSION $i" >/dev/null && echo "record r $STROM_SESSION $i" >> "$CRASH_LOG"
	fi
	sleep 0.03
done
if [ -n "$kill_at" ]; then
	STROM_TEST_KILL_AT=$((kill_at % 9 + 1)) strom task add "Follow-up of $STROM_SESSION" >/dev/null 2>&1 && echo "task Follow-up of $STROM_SESSION" >> "$CRASH_LOG"
else
	strom task add "Follow-up of $STROM_SESSION" >/dev/null && echo "task Follow-up of $STROM_SESSION" >> "$CRASH_LOG"
fi
strom done >/dev/null
`

// TestCrashResume kills strom (and sometimes its agent, and sometimes one of the
// agent's own strom commands at one of its write points) at random moments of a
// --loop run, 50 times (1,000 with -soak: make soak). After each kill the next run
// must work (no wedge), and leave every state file valid, every file, record and
// task the agent made in git, no task twice, and no task held.
func TestCrashResume(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	kills := 50
	if *soak {
		kills = 1000
	}
	h := newCLIHarness(t)
	dir, repo := h.dir, h.repo
	if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(crashAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	crashLog := filepath.Join(dir, "crash.log")
	env := append(h.env, "CRASH_LOG="+crashLog)
	bin := filepath.Dir(h.strom)
	run := func(args ...string) (string, error) {
		cmd := exec.Command(h.strom, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("strom %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	gitOut := func(args ...string) string { t.Helper(); return h.git(t, args...) }
	must("init", "--agent", "command")
	h.onTerminal(t, "", "config", "set", "agent.command", "sh "+filepath.Join(dir, "agent.sh"), "--for-tree")
	added := 0
	addTasks := func(n int) {
		for i := 0; i < n; i++ {
			added++
			must("task", "add", fmt.Sprintf("Task %d", added))
		}
	}
	addTasks(20)
	rng := rand.New(rand.NewSource(1))
	agentKills := 0
	for k := 0; k < kills; k++ {
		if !strings.Contains(must("task", "list", "--state", "open"), "T-") {
			addTasks(5)
		}
		cmd := exec.Command(filepath.Join(bin, "strom"), "run", "--loop")
		cmd.Dir, cmd.Env = repo, env
		if rng.Intn(2) == 0 {
			// One of the agent's strom commands dies at one of its write points.
			cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], fmt.Sprintf("AGENT_KILL_AT=%d", 1+rng.Intn(25)))
			agentKills++
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.Intn(700)) * time.Millisecond)
		switch rng.Intn(4) {
		case 0: // the agent alone dies: the run goes on and ends the session
			_ = exec.Command("pkill", "-KILL", "-f", filepath.Join(dir, "agent.sh")).Run()
			time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
			_ = cmd.Process.Signal(syscall.SIGKILL)
		case 1: // both die: kill every process of a session
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = exec.Command("pkill", "-KILL", "-f", filepath.Join(dir, "agent.sh")).Run()
		default:
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		_ = cmd.Wait()
		// The next run recovers and works one session to its end.
		out, err := run("run", "--max", "1")
		if err != nil {
			t.Fatalf("kill %d: the run after the crash failed (a wedge): %v\n%s", k, err, out)
		}
		checkNothingLost(t, k, must, gitOut, crashLog)
	}
	tasks := strings.Count(must("task", "list", "--all"), "Follow-up of")
	t.Logf("%d rounds (%d with a kill of one of the agent's strom commands at a write point): 0 wedges, 0 records or files lost, 0 tasks doubled; %d sessions committed, %d follow-up tasks",
		kills, agentKills, len(strings.Fields(gitOut("log", "--format=%(trailers:key=Strom-Session,valueonly)"))), tasks)
}

func checkNothingLost(t *testing.T, k int, must func(...string) string, gitOut func(...string) string, crashLog string) {
	t.Helper()
	must("status")
	if list := must("task", "list", "--state", "started"); strings.Contains(list, "T-") {
		t.Fatalf("kill %d: a task is still held after the run:\n%s", k, list)
	}
	progress := committedRecords(gitOut, "HEAD")
	list := must("task", "list", "--all", "--json")
	seen := map[string]bool{}
	for _, l := range strings.Split(list, "\n") {
		if title, ok := strings.CutPrefix(strings.TrimSpace(l), `"title": "Follow-up of `); ok {
			if seen[title] {
				t.Fatalf("kill %d: the task Follow-up of %s is in the queue twice", k, title)
			}
			seen[title] = true
		}
	}
	f, err := os.Open(crashLog)
	if err != nil {
		return // nothing written yet
	}
	defer f.Close()
	tracked := map[string]bool{}
	for _, p := range strings.Split(gitOut("ls-files", "--", "out/"), "\n") {
		tracked[p] = true
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, what, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "file":
			if !tracked[what] {
				t.Fatalf("kill %d: the agent's file %s is not in git", k, what)
			}
		case "record":
			if !strings.Contains(progress, `"text":"`+what+`"`) {
				t.Fatalf("kill %d: the record %q is not in git", k, what)
			}
		case "task":
			if !strings.Contains(list, `"title": "`+what+`"`) {
				t.Fatalf("kill %d: the task %q is not in the queue", k, what)
			}
		}
	}
	if st := gitOut("status", "--porcelain"); st != "" {
		t.Fatalf("kill %d: the work tree is not clean after a complete session:\n%s", k, st)
	}
}
