//go:build unix

package testenv

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// goneWithin bounds how long WaitGone waits for a killed process to die: the time
// the system takes to end it, which on a loaded machine is still far below this.
const goneWithin = 10 * time.Second

// answerWithin bounds how long WaitAnswer waits for a program's answer.
const answerWithin = 60 * time.Second

// WaitAnswer waits for the answer on done, then checks as WaitGone does that none
// of the processes whose pids the files hold still runs. An answer that does not
// come within answerWithin fails the test: stop (the context's cancel) is called,
// the processes are killed, as they may hold what the answer waits for, and the
// answer is waited for before the test ends.
func WaitAnswer[T any](t testing.TB, done <-chan T, stop func(), pidFiles ...string) T {
	t.Helper()
	select {
	case v := <-done:
		WaitGone(t, pidFiles...)
		return v
	case <-time.After(answerWithin):
		stop()
		WaitGone(t, pidFiles...)
		<-done
		t.Fatalf("no answer within %s: what the program left running kept strom waiting", answerWithin)
		var zero T
		return zero
	}
}

// WaitGone fails the test for every process whose pid one of the files holds and
// that still runs once goneWithin has passed; it returns as soon as none runs. A
// file that does not exist fails the test too: the program under test did not get
// as far as starting the process. Whatever still runs is killed, so that a failing
// test leaves nothing behind.
func WaitGone(t testing.TB, pidFiles ...string) {
	t.Helper()
	var pids []int
	for _, f := range pidFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("read the pid of a process the program started: %v", err)
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 {
			t.Errorf("%s holds %q, not a pid", f, data)
			continue
		}
		pids = append(pids, pid)
	}
	deadline := time.Now().Add(goneWithin)
	for {
		var left []int
		for _, p := range pids {
			if Running(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				t.Errorf("process %d (%s) still runs %s after the program ended", p, cmdline(p), goneWithin)
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Running reports whether the process pid exists and has not exited: an exited
// process nobody reaped (a zombie, whose parent is gone) runs nothing.
func Running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true // no /proc: a process that takes signals counts as running
	}
	if i := bytes.LastIndexByte(data, ')'); i > 0 && i+2 < len(data) {
		return data[i+2] != 'Z'
	}
	return true
}

func cmdline(pid int) string {
	data, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " ")
}
