//go:build unix

package procgroup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/testenv"
)

// Each program leaves a child that writes its pid to the file child (and a
// grandchild to grandchild); once Run returns, none of them runs.
func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		line     string
		stdin    string
		combined bool // stdout and stderr are one writer
		cancel   bool // the context ends while the program runs
		exit     int  // -1: killed by a signal
		stdout   string
		stderr   string
		pids     []string
	}{
		{name: "exit 0, a child holding stdout and stderr",
			line:   `echo answer; sleep 300 & echo $! > child`,
			stdout: "answer\n", pids: []string{"child"}},
		{name: "exit 0, a child holding nothing",
			line:   `echo answer; sleep 300 >/dev/null 2>&1 & echo $! > child`,
			stdout: "answer\n", pids: []string{"child"}},
		{name: "exit 0, a grandchild holding stdout",
			line:   `sh -c 'sleep 300 & echo $! > g.tmp; mv g.tmp grandchild; wait' & echo $! > child; while [ ! -e grandchild ]; do :; done; echo answer`,
			stdout: "answer\n", pids: []string{"child", "grandchild"}},
		{name: "exit 3, a child holding stderr",
			line: `sleep 300 >/dev/null & echo $! > child; echo why >&2; exit 3`,
			exit: 3, stderr: "why\n", pids: []string{"child"}},
		{name: "one writer for both, in the program's order",
			line:     `echo one; echo two >&2; echo three; sleep 300 & echo $! > child`,
			combined: true, stdout: "one\ntwo\nthree\n", pids: []string{"child"}},
		{name: "all of a large output before the exit",
			line:   `head -c 1000000 /dev/zero | tr '\0' x; sleep 300 & echo $! > child`,
			stdout: strings.Repeat("x", 1000000), pids: []string{"child"}},
		{name: "a stdin that is not a file",
			line:  `cat; sleep 300 & echo $! > child`,
			stdin: "the question\n", stdout: "the question\n", pids: []string{"child"}},
		{name: "the context ends a program that would run on",
			line:   `sleep 300 & echo $! > child; echo started > started; wait`,
			cancel: true, exit: -1, pids: []string{"child"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", tt.line)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if tt.combined {
				cmd.Stderr = &stdout
			}
			if tt.stdin != "" {
				cmd.Stdin = strings.NewReader(tt.stdin)
			}
			done := make(chan error, 1)
			go func() { done <- Run(cmd) }()
			if tt.cancel {
				waitFile(t, filepath.Join(dir, "started"), done)
				cancel()
			}
			files := make([]string, len(tt.pids))
			for i, p := range tt.pids {
				files[i] = filepath.Join(dir, p)
			}
			err := testenv.WaitAnswer(t, done, cancel, files...)
			var exit *exec.ExitError
			switch {
			case tt.exit == 0 && err != nil:
				t.Errorf("Run = %v, want success", err)
			case tt.exit > 0 && (!errors.As(err, &exit) || exit.ExitCode() != tt.exit):
				t.Errorf("Run = %v, want exit %d", err, tt.exit)
			case tt.exit < 0 && (!errors.As(err, &exit) || exit.ExitCode() != -1):
				t.Errorf("Run = %v, want the program killed", err)
			}
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("stdout %q (%d bytes), stderr %q; want %q (%d bytes), %q",
					clip(stdout.String()), stdout.Len(), stderr.String(), clip(tt.stdout), len(tt.stdout), tt.stderr)
			}
		})
	}
}

// A process that left the group on purpose — setsid, a daemon's double fork, a
// grandchild that ignores SIGTERM in a session of its own — is gone too once Run
// returns where strom can find it by its mark (Linux); elsewhere it keeps Run
// waiting no longer than Grace for the output it holds.
func TestRunLeftGroup(t *testing.T) {
	t.Parallel()
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skipf("no setsid program to leave a process group with: %v", err)
	}
	tests := []struct{ name, line string }{
		{"setsid, holding stdout", setsid + ` sh -c 'echo $$ > away.tmp; mv away.tmp away; exec sleep 300' & while [ ! -s away ]; do :; done; echo answer`},
		{"a double fork into a session of its own, holding nothing",
			`( ` + setsid + ` sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > away.tmp; mv away.tmp away' & ); while [ ! -s away ]; do :; done; echo answer`},
		{"a grandchild that ignores SIGTERM, in a session of its own",
			setsid + ` sh -c 'trap "" TERM; sleep 300 & echo $! > away.tmp; mv away.tmp away; wait' >/dev/null 2>&1 & while [ ! -s away ]; do :; done; echo answer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.CommandContext(context.Background(), "sh", "-c", tt.line)
			cmd.Dir = dir
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			start := time.Now()
			err := Run(cmd)
			took := time.Since(start)
			if err != nil || stdout.String() != "answer\n" {
				t.Errorf("Run = %v with stdout %q, want success and the answer", err, stdout.String())
			}
			if took > 30*time.Second {
				t.Errorf("Run took %s, want about Grace (%s)", took, Grace)
			}
			if !findsMarked {
				if data, rerr := os.ReadFile(filepath.Join(dir, "away")); rerr == nil {
					var pid int
					if _, serr := fmt.Sscan(string(data), &pid); serr == nil && pid > 0 {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
				return
			}
			testenv.WaitGone(t, filepath.Join(dir, "away"))
		})
	}
}

// A program that cannot start leaves nothing open.
func TestRunNoProgram(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(context.Background(), filepath.Join(t.TempDir(), "nosuch"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Run(cmd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Run = %v, want a program that does not exist", err)
	}
}

// waitFile waits until the program wrote path, failing the test if Run returned
// first.
func waitFile(t *testing.T, path string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before the program started its child", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("the program did not write %s within 60 s", path)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
