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

// crashAgent writes files and records in small steps and notes, outside the repo,
// each one that succeeded: what the test then requires to be in git.
const crashAgent = `#!/bin/sh
mkdir -p out
i=0
while [ $i -lt 3 ]; do
	i=$((i+1))
	f="out/$STROM_SESSION-$i.txt"
	echo "session $STROM_SESSION step $i" > "$f" && echo "file $f" >> "$CRASH_LOG"
	strom record "r $STROM_SESSION $i" >/dev/null && echo "record r $STROM_SESSION $i" >> "$CRASH_LOG"
	sleep 0.03
done
strom done >/dev/null
`

// TestCrashResume kills strom (and sometimes its agent) at random moments of a
// --loop run, 50 times. After each kill the next run must leave every state file
// valid, every file and record the agent wrote in git, and no task held.
func TestCrashResume(t *testing.T) {
	t.Parallel()
	kills := 50
	if testing.Short() {
		kills = 10
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
	for k := 0; k < kills; k++ {
		if !strings.Contains(must("task", "list", "--state", "open"), "T-") {
			addTasks(5)
		}
		cmd := exec.Command(filepath.Join(bin, "strom"), "run", "--loop")
		cmd.Dir, cmd.Env = repo, env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.Intn(700)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if rng.Intn(3) == 0 {
			// Sometimes the agent dies too: kill every process of a session.
			_ = exec.Command("pkill", "-KILL", "-f", filepath.Join(dir, "agent.sh")).Run()
		}
		// The next run recovers and works one session to its end.
		out, err := run("run", "--max", "1")
		if err != nil {
			t.Fatalf("kill %d: the run after the crash failed: %v\n%s", k, err, out)
		}
		checkNothingLost(t, k, must, gitOut, crashLog)
	}
}

func checkNothingLost(t *testing.T, k int, must func(...string) string, gitOut func(...string) string, crashLog string) {
	t.Helper()
	must("status")
	if list := must("task", "list", "--state", "started"); strings.Contains(list, "T-") {
		t.Fatalf("kill %d: a task is still held after the run:\n%s", k, list)
	}
	progress := committedRecords(gitOut, "HEAD")
	f, err := os.Open(crashLog)
	if err != nil {
		return // nothing written yet
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, what, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "file":
			if got := gitOut("ls-files", "--", what); strings.TrimSpace(got) != what {
				t.Fatalf("kill %d: the agent's file %s is not in git", k, what)
			}
		case "record":
			if !strings.Contains(progress, `"text":"`+what+`"`) {
				t.Fatalf("kill %d: the record %q is not in git", k, what)
			}
		}
	}
	if st := gitOut("status", "--porcelain"); st != "" {
		t.Fatalf("kill %d: the work tree is not clean after a complete session:\n%s", k, st)
	}
}
