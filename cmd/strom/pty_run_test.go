package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// politeAgent runs strom task until it is asked to finish, then records and closes.
const politeAgent = `#!/bin/sh
n=0
while [ $n -lt 400 ]; do
	n=$((n+1))
	if strom task | grep -q '⏹'; then
		strom record "asked to finish after $n looks" >/dev/null
		strom session close >/dev/null
		exit 0
	fi
	sleep 0.05
done
`

// ttyRun starts strom run with an outer pty as the person's terminal and returns
// the master side and a buffer of everything shown.
type ttyRun struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	screen bytes.Buffer
	done   chan struct{}
}

func (r *ttyRun) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen.String()
}

func (r *ttyRun) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(r.text(), s) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %q:\n%s", s, r.text())
}

func startTTYRun(t *testing.T, h *cliHarness, args ...string) *ttyRun {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	cmd := exec.Command(h.strom, args...)
	cmd.Dir, cmd.Env = h.repo, h.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	r := &ttyRun{cmd: cmd, master: master, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

// cliHarness is a research repo with strom on PATH, for tests that run strom as a
// separate process.
type cliHarness struct {
	dir, repo, strom string
	env              []string
}

// stromAsItself makes h.strom a file of its own (a hard link to the test binary,
// or a copy) instead of a symlink: a strom that names its own path
// (os.Executable) to other programs — the demo agent, the merge drivers, a
// client's hooks — must name one that runs as strom, and the test binary runs
// strom's main only when it is called strom.
func (h *cliHarness) stromAsItself(t *testing.T) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(h.strom); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, h.strom); err != nil {
		copyFile(t, self, h.strom)
	}
}

func newCLIHarness(t *testing.T) *cliHarness {
	t.Helper()
	dir := t.TempDir()
	h := &cliHarness{dir: dir, repo: filepath.Join(dir, "repo")}
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, h.repo, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h.strom = filepath.Join(bin, "strom")
	for _, name := range []string{"strom", "strom-app", "strom-menu"} {
		if err := os.Symlink(self, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	h.env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "home", ".config"),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GORACE=atexit_sleep_ms=0",
	)
	return h
}

func (h *cliHarness) must(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(h.strom, args...)
	cmd.Dir, cmd.Env = h.repo, h.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("strom %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (h *cliHarness) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = h.repo, h.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

func (r *ttyRun) wait(t *testing.T) int {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- r.cmd.Wait() }()
	select {
	case err := <-errc:
		<-r.done
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		r.cmd.Process.Kill()
		t.Fatalf("strom run did not end:\n%s", r.text())
		return -1
	}
}

// onTerminal runs strom as a person at a terminal (an outer pty), typing typed into
// it, and returns the screen; the command must succeed.
func (h *cliHarness) onTerminal(t *testing.T, typed string, args ...string) string {
	t.Helper()
	r := startTTYRun(t, h, args...)
	if typed != "" {
		if _, err := io.WriteString(r.master, typed); err != nil {
			t.Fatal(err)
		}
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("strom %s: exit %d\n%s", strings.Join(args, " "), code, r.text())
	}
	return r.text()
}

// withAgent is a research repo whose command agent is script, with the given tasks.
func withAgent(t *testing.T, script string, tasks ...string) *cliHarness {
	t.Helper()
	h := newCLIHarness(t)
	if err := os.WriteFile(filepath.Join(h.dir, "agent.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h.must(t, "init", "--agent", "command")
	// Set by a person on a terminal: allowed on this computer at once.
	h.onTerminal(t, "", "config", "set", "agent.command", "sh "+filepath.Join(h.dir, "agent.sh"), "--for-tree")
	for _, title := range tasks {
		h.must(t, "task", "add", title)
	}
	return h
}

// TestCtrlCOnceAsksToFinish: the first Ctrl-C in the run's terminal is a request to
// finish; the agent sees it at its next strom command, records and closes; the run
// ends by hand and starts no further session.
func TestCtrlCOnceAsksToFinish(t *testing.T) {
	t.Parallel()
	h := withAgent(t, politeAgent, "First", "Second")
	r := startTTYRun(t, h, "run", "--loop")
	r.waitFor(t, "▶ session")
	time.Sleep(200 * time.Millisecond)
	if _, err := r.master.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, r.text())
	}
	screen := r.text()
	for _, want := range []string{"Asked the session to finish", "ended: finish-requested", "1 session · stopped: by hand"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if got := h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)"); strings.TrimSpace(got) != "finish-requested" {
		t.Errorf("Strom-End = %q", got)
	}
	if list := h.must(t, "task", "list"); !strings.Contains(list, "T-2  open") {
		t.Errorf("a second session started:\n%s", list)
	}
}

// TestCtrlCOnceEndsASingleSessionByHand: a run of one session that the first
// Ctrl-C asked to finish ends "by hand", not "done", also when the agent then
// marks its task done.
func TestCtrlCOnceEndsASingleSessionByHand(t *testing.T) {
	t.Parallel()
	agent := strings.Replace(politeAgent, "strom session close >/dev/null", "strom done >/dev/null", 1)
	h := withAgent(t, agent, "First", "Second")
	r := startTTYRun(t, h, "run")
	r.waitFor(t, "▶ session")
	time.Sleep(200 * time.Millisecond)
	if _, err := r.master.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, r.text())
	}
	screen := r.text()
	for _, want := range []string{"Asked the session to finish", "ended: done", "1 session · stopped: by hand"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

// TestCtrlCTwiceStopsNow: the second Ctrl-C stops the agent at once; its task returns
// to the queue and the commit says stopped-by-hand.
func TestCtrlCTwiceStopsNow(t *testing.T) {
	t.Parallel()
	agent := "#!/bin/sh\necho working > notes.txt\nsleep 1000\n"
	h := withAgent(t, agent, "First")
	r := startTTYRun(t, h, "run")
	r.waitFor(t, "▶ session")
	time.Sleep(200 * time.Millisecond)
	r.master.Write([]byte{3})
	r.waitFor(t, "Ctrl-C again stops it now")
	r.master.Write([]byte{3})
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.text())
	}
	if got := h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)"); strings.TrimSpace(got) != "stopped-by-hand" {
		t.Errorf("Strom-End = %q\n%s", got, r.text())
	}
	if got := h.git(t, "ls-files", "notes.txt"); strings.TrimSpace(got) != "notes.txt" {
		t.Errorf("the agent's file was not committed")
	}
	if list := h.must(t, "task", "list"); !strings.Contains(list, "T-1  open") {
		t.Errorf("task not back in the queue:\n%s", list)
	}
}

// TestInteractiveCtrlCStopsAtOnce: with --interactive the person types into the
// agent, and the first Ctrl-C stops at once.
func TestInteractiveCtrlCStopsAtOnce(t *testing.T) {
	t.Parallel()
	agent := "#!/bin/sh\nread line\necho \"got: $line\" > typed.txt\nsleep 1000\n"
	h := withAgent(t, agent, "First")
	r := startTTYRun(t, h, "run", "--interactive")
	r.waitFor(t, "▶ session")
	time.Sleep(300 * time.Millisecond)
	io.WriteString(r.master, "hello agent\r")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(filepath.Join(h.repo, "typed.txt")); strings.Contains(string(b), "hello agent") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.master.Write([]byte{3})
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.text())
	}
	if got := h.git(t, "show", "HEAD:typed.txt"); !strings.Contains(got, "got: hello agent") {
		t.Errorf("typed text did not reach the agent: %q", got)
	}
	if got := h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)"); strings.TrimSpace(got) != "stopped-by-hand" {
		t.Errorf("Strom-End = %q", got)
	}
}
