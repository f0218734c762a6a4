package agentpty

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/strom-research/strom/internal/clock"
)

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

func TestRelayAndTranscript(t *testing.T) {
	t.Parallel()
	const n = 3<<20 + 17 // not a multiple of anything
	var flood bytes.Buffer
	if err := writeFlood(&flood, n); err != nil {
		t.Fatal(err)
	}
	// The program's pty turns "\n" into "\r\n"; the person's raw terminal adds nothing.
	want := bytes.ReplaceAll(flood.Bytes(), []byte("\n"), []byte("\r\n"))

	for _, withTerminal := range []bool{true, false} {
		t.Run(fmt.Sprintf("terminal=%v", withTerminal), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "session.log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var chunks, total atomic.Int64
			argv, env := fakeArgv("flood", envArg+"="+strconv.Itoa(n))
			o := Options{Argv: argv, Env: env, Transcript: f, Output: func(p []byte) {
				chunks.Add(1)
				total.Add(int64(len(p)))
			}}
			var ot *outerTerminal
			if withTerminal {
				ot = newOuterTerminal(t, nil)
				o.Terminal = ot.slave
			}
			s := start(t, t.Context(), o)
			if st := waitDone(t, s); st != (ExitStatus{}) {
				t.Fatalf("status %v, want exit 0", st)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("transcript has %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			if total.Load() != int64(len(want)) {
				t.Errorf("Output saw %d bytes in %d chunks, want %d", total.Load(), chunks.Load(), len(want))
			}
			if tail := s.Tail(); !bytes.Equal(tail, want[len(want)-tailSize:]) {
				t.Errorf("Tail is not the last %d bytes of output (len %d)", tailSize, len(tail))
			}
			if withTerminal {
				ot.screen.waitFunc(t, "all output on the terminal", func(text string) bool { return len(text) >= len(want) })
				if text := ot.screen.String(); text != string(want) {
					t.Fatalf("terminal shows %d bytes, want %d; first difference at %d", len(text), len(want), firstDiff([]byte(text), want))
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		paste    string // what the fake does with bracketed paste
		terminal bool
		text     string
		want     string // what the program reads before Enter
	}{
		{"bracketed", "on", false, "fix the tests", "\x1b[200~fix the tests\x1b[201~"},
		{"bracketed through terminal", "on", true, "hi\nthere", "\x1b[200~hi\nthere\x1b[201~"},
		{"paste end removed from text", "on", false, "a\x1b[201~b", "\x1b[200~ab\x1b[201~"},
		{"plain", "", false, "fix the tests", "fix the tests"},
		{"turned off again", "onoff", true, "fix", "fix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake(t0)
			sc := newScreen()
			argv, env := fakeArgv("echo", envPaste+"="+tt.paste)
			o := Options{Argv: argv, Env: env, Clock: fake, Output: sc.add}
			if tt.terminal {
				ot := newOuterTerminal(t, nil)
				o.Terminal = ot.slave
			}
			s := start(t, t.Context(), o)
			sc.waitFor(t, "ready\r\n")

			typed := make(chan error, 1)
			go func() { typed <- s.Type(tt.text) }()
			waitReceived(t, sc, tt.want)
			waitUntil(t, "Type to wait for Enter", func() bool { return fake.Waiters() > 0 })
			select {
			case err := <-typed:
				t.Fatalf("Type returned before the Enter delay passed: %v", err)
			default:
			}
			fake.Advance(enterDelay)
			if err := <-typed; err != nil {
				t.Fatalf("Type: %v", err)
			}
			text := waitReceived(t, sc, tt.want+"\r")
			if got := lastRead(text); string(got) != "\r" {
				t.Errorf("Enter arrived as %q, want a read of its own", got)
			}
			if err := s.SendKeys("C-d"); err != nil {
				t.Fatal(err)
			}
			waitDone(t, s)
		})
	}
}

// TestPaste: a paste is bracketed whether or not the program asked for it, and
// Enter follows only when asked.
func TestPaste(t *testing.T) {
	t.Parallel()
	sc := newScreen()
	argv, env := fakeArgv("echo")
	s := start(t, t.Context(), Options{Argv: argv, Env: env, Output: sc.add})
	sc.waitFor(t, "ready\r\n")
	if err := s.Paste("line1\nline2\x1b[201~", false); err != nil {
		t.Fatal(err)
	}
	if err := s.SendKeys("C-d"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
	want := "\x1b[200~line1\nline2\x1b[201~\x04"
	if diff := cmp.Diff(want, string(received(sc.String()))); diff != "" {
		t.Errorf("program read (-want +got):\n%s", diff)
	}
}

func TestKnownKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{"C-c": true, "Enter": true, "Up": true, "x": true, "ä": true,
		"C-1": false, "Ctrl-C": false, "enter": false, "": false, "hello": false} {
		if got := KnownKey(key); got != want {
			t.Errorf("KnownKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestSendKeys(t *testing.T) {
	t.Parallel()
	sc := newScreen()
	argv, env := fakeArgv("echo")
	s := start(t, t.Context(), Options{Argv: argv, Env: env, Output: sc.add})
	sc.waitFor(t, "ready\r\n")
	if err := s.SendKeys("Up", "Down", "C-c", "Escape", "Tab", "hello", "Enter", "C-D"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
	want := "\x1b[A\x1b[B\x03\x1b\thello\r\x04"
	if diff := cmp.Diff(want, string(received(sc.String()))); diff != "" {
		t.Errorf("program read (-want +got):\n%s", diff)
	}
	if err := s.Write([]byte("late")); !errors.Is(err, ErrEnded) {
		t.Errorf("Write after the end: %v, want ErrEnded", err)
	}
	if err := s.Type("late"); !errors.Is(err, ErrEnded) {
		t.Errorf("Type after the end: %v, want ErrEnded", err)
	}
}

func TestCtrlC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		terminal bool
		forward  bool
		want     string // what the program reads
	}{
		{"terminal forwarding keys", true, true, "abcd\x04"},
		{"terminal not forwarding", true, false, "\x04"},
		{"input forwarding keys", false, true, "abcd\x04"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var interrupts atomic.Int32
			sc := newScreen()
			argv, env := fakeArgv("echo")
			o := Options{Argv: argv, Env: env, Output: sc.add, ForwardKeys: tt.forward,
				OnInterrupt: func() { interrupts.Add(1) }}
			var typeKeys func(keys string)
			if tt.terminal {
				ot := newOuterTerminal(t, nil)
				o.Terminal = ot.slave
				typeKeys = func(keys string) { ot.typeKeys(t, keys) }
			} else {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close(); w.Close() })
				o.Input = r
				typeKeys = func(keys string) {
					if _, err := w.WriteString(keys); err != nil {
						t.Fatal(err)
					}
				}
			}
			s := start(t, t.Context(), o)
			sc.waitFor(t, "ready\r\n")
			typeKeys("ab\x03cd\x03")
			waitUntil(t, "two interrupts", func() bool { return interrupts.Load() == 2 })
			if tt.forward {
				waitReceived(t, sc, "abcd")
			}
			if err := s.SendKeys("C-d"); err != nil {
				t.Fatal(err)
			}
			waitDone(t, s)
			if got := string(received(sc.String())); got != tt.want {
				t.Errorf("program read %q, want %q", got, tt.want)
			}
			if n := interrupts.Load(); n != 2 {
				t.Errorf("OnInterrupt called %d times, want 2", n)
			}
		})
	}
}

func TestWindowSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		terminal *pty.Winsize // the person's terminal, nil for none
		size     *pty.Winsize // Options.Size
		want     string
		resize   *pty.Winsize
		want2    string
	}{
		{name: "default without terminal", want: "size 50x200"},
		{name: "given without terminal", size: &pty.Winsize{Rows: 20, Cols: 80}, want: "size 20x80"},
		{name: "from terminal", terminal: &pty.Winsize{Rows: 30, Cols: 100}, size: &pty.Winsize{Rows: 20, Cols: 80},
			want: "size 30x100", resize: &pty.Winsize{Rows: 40, Cols: 120}, want2: "size 40x120"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newScreen()
			argv, env := fakeArgv("size")
			o := Options{Argv: argv, Env: env, Output: sc.add, Size: tt.size}
			var ot *outerTerminal
			if tt.terminal != nil {
				ot = newOuterTerminal(t, tt.terminal)
				o.Terminal = ot.slave
			}
			s := start(t, t.Context(), o)
			sc.waitFor(t, tt.want+"\r\n")
			if tt.resize != nil {
				if err := pty.Setsize(ot.master, tt.resize); err != nil {
					t.Fatal(err)
				}
				// The terminal is not this process's controlling terminal, so the
				// kernel does not send SIGWINCH: send it as a terminal would.
				// Other sessions in this test process just re-read their sizes.
				if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
					t.Fatal(err)
				}
				sc.waitFor(t, tt.want2+"\r\n")
			}
			if err := s.SendKeys("C-d"); err != nil {
				t.Fatal(err)
			}
			waitDone(t, s)
		})
	}
}

func TestTerminalRestored(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(t *testing.T, s *Session, ot *outerTerminal, cancel context.CancelFunc)
	}{
		{"program ends", func(t *testing.T, s *Session, ot *outerTerminal, _ context.CancelFunc) {
			ot.typeKeys(t, "\x04")
			waitDone(t, s)
		}},
		{"Stop", func(t *testing.T, s *Session, _ *outerTerminal, _ context.CancelFunc) {
			if err := s.Stop(time.Minute); err != nil {
				t.Fatal(err)
			}
			if st := waitDone(t, s); st.Signal != syscall.SIGTERM {
				t.Errorf("status %v, want signal terminated", st)
			}
		}},
		{"context cancelled", func(t *testing.T, s *Session, _ *outerTerminal, cancel context.CancelFunc) {
			cancel()
			if st := waitDone(t, s); st.Signal != syscall.SIGTERM {
				t.Errorf("status %v, want signal terminated", st)
			}
		}},
		{"Restore while running", func(t *testing.T, s *Session, _ *outerTerminal, _ context.CancelFunc) {
			s.Restore()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testRestored(t, tt.end)
		})
	}
}

// TestRestoreTerminals is not parallel: RestoreTerminals restores the terminals of
// every session in the process, those of parallel tests included.
func TestRestoreTerminals(t *testing.T) {
	testRestored(t, func(*testing.T, *Session, *outerTerminal, context.CancelFunc) { RestoreTerminals() })
}

func testRestored(t *testing.T, end func(t *testing.T, s *Session, ot *outerTerminal, cancel context.CancelFunc)) {
	t.Helper()
	ot := newOuterTerminal(t, nil)
	before := ot.termios(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	argv, env := fakeArgv("echo")
	s := start(t, ctx, Options{Argv: argv, Env: env, Terminal: ot.slave, ForwardKeys: true})
	ot.screen.waitFor(t, "ready\r\n")
	if ot.termios(t) == before {
		t.Fatal("terminal not in raw mode while the session runs")
	}
	end(t, s, ot, cancel)
	if diff := cmp.Diff(before, ot.termios(t)); diff != "" {
		t.Errorf("terminal mode not restored (-before +after):\n%s", diff)
	}
}

// TestHostEnds ends the process that runs a Session, which needs a process of its
// own: the test binary again, given the outer pty's slave as descriptor 3.
func TestHostEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode     string
		kill     syscall.Signal // sent to the host once the session started
		wantCode int            // the host's exit code
		wantOut  string         // in the host's stdout or stderr
	}{
		{"host-panic", 0, 2, "relay panic for the test"},
		{"host-signal", syscall.SIGTERM, 0, "status signal terminated"},
		{"host-signal", syscall.SIGHUP, 0, "status signal hangup"},
	}
	for _, tt := range tests {
		t.Run(tt.mode+"-"+strconv.Itoa(int(tt.kill)), func(t *testing.T) {
			t.Parallel()
			ot := newOuterTerminal(t, nil)
			before := ot.termios(t)
			argv, env := fakeArgv(tt.mode)
			host := exec.CommandContext(t.Context(), argv[0])
			host.Env = env
			host.ExtraFiles = []*os.File{ot.slave}
			var stderr bytes.Buffer
			host.Stderr = &stderr
			stdout, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			var out strings.Builder
			for lines.Scan() {
				out.WriteString(lines.Text() + "\n")
				if lines.Text() == "started" && tt.kill != 0 {
					if ot.termios(t) == before {
						t.Error("terminal not in raw mode while the session runs")
					}
					if err := host.Process.Signal(tt.kill); err != nil {
						t.Fatal(err)
					}
				}
			}
			err = host.Wait()
			if code := host.ProcessState.ExitCode(); code != tt.wantCode {
				t.Errorf("host exit code %d (%v), want %d; stdout %q stderr %q", code, err, tt.wantCode, out.String(), lastBytes(stderr.String(), 2000))
			}
			if all := out.String() + stderr.String(); !strings.Contains(all, tt.wantOut) {
				t.Errorf("host output lacks %q: stdout %q stderr %q", tt.wantOut, out.String(), lastBytes(stderr.String(), 2000))
			}
			if diff := cmp.Diff(before, ot.termios(t)); diff != "" {
				t.Errorf("terminal mode not restored (-before +after):\n%s", diff)
			}
		})
	}
}

var grandchildRE = regexp.MustCompile(`grandchild (\d+)`)

func grandchild(t *testing.T, sc *screen) int {
	t.Helper()
	text := sc.waitFunc(t, "grandchild pid", grandchildRE.MatchString)
	pid, _ := strconv.Atoi(grandchildRE.FindStringSubmatch(text)[1])
	return pid
}

func TestStopKillsGroup(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(t0)
	sc := newScreen()
	argv, env := fakeArgv("stubborn")
	ot := newOuterTerminal(t, nil)
	s := start(t, t.Context(), Options{Argv: argv, Env: env, Clock: fake, Output: sc.add, Terminal: ot.slave})
	pid := grandchild(t, sc)
	sc.waitFor(t, "ready")

	stopped := make(chan error, 1)
	go func() { stopped <- s.Stop(10 * time.Second) }()
	waitUntil(t, "Stop to wait out the grace", func() bool { return fake.Waiters() > 0 })
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned before the grace ran out: %v", err)
	case <-s.Done():
		t.Fatal("the program ended on SIGTERM, which it ignores")
	default:
	}
	if gone(pid) {
		t.Fatal("grandchild died of SIGTERM, which it ignores; the test proves nothing")
	}
	fake.Advance(10 * time.Second)
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if st := waitDone(t, s); st.Signal != syscall.SIGKILL || st.Code != -1 {
		t.Errorf("status %v, want signal killed", st)
	}
	waitUntil(t, fmt.Sprintf("grandchild %d to die", pid), func() bool { return gone(pid) })
}

func TestOrphanDoesNotHoldSession(t *testing.T) {
	t.Parallel()
	sc := newScreen()
	argv, env := fakeArgv("orphan")
	s := start(t, t.Context(), Options{Argv: argv, Env: env, Output: sc.add})
	pid := grandchild(t, sc)
	// The grandchild still holds the pty open; the session ends anyway, after the
	// drain deadline, and Stop clears what the program left in its group.
	if st := waitDone(t, s); st != (ExitStatus{}) {
		t.Errorf("status %v, want exit 0", st)
	}
	if !strings.Contains(sc.String(), "ready") {
		t.Errorf("output before the exit was lost: %q", sc.String())
	}
	if gone(pid) {
		t.Fatal("grandchild died before Stop; the test proves nothing")
	}
	if err := s.Stop(0); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, fmt.Sprintf("grandchild %d to die", pid), func() bool { return gone(pid) })
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, arg string
		want      ExitStatus
		text      string
	}{
		{"exit", "0", ExitStatus{Code: 0}, "exit 0"},
		{"exit", "3", ExitStatus{Code: 3}, "exit 3"},
		{"kill", "9", ExitStatus{Code: -1, Signal: syscall.SIGKILL}, "signal killed"},
		{"kill", "15", ExitStatus{Code: -1, Signal: syscall.SIGTERM}, "signal terminated"},
	}
	for _, tt := range tests {
		t.Run(tt.mode+tt.arg, func(t *testing.T) {
			t.Parallel()
			sc := newScreen()
			argv, env := fakeArgv(tt.mode, envArg+"="+tt.arg)
			s := start(t, t.Context(), Options{Argv: argv, Env: env, Output: sc.add})
			st := waitDone(t, s)
			if st != tt.want || st.String() != tt.text {
				t.Errorf("status %+v %q, want %+v %q", st, st, tt.want, tt.text)
			}
			if !strings.Contains(sc.String(), "bye") {
				t.Errorf("output %q lacks the last line", sc.String())
			}
		})
	}
}

func TestIdle(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(t0)
	sc := newScreen()
	argv, env := fakeArgv("quiet")
	s := start(t, t.Context(), Options{Argv: argv, Env: env, Clock: fake, Output: sc.add})
	sc.waitFor(t, "ready")
	if got := s.LastOutput(); !got.Equal(t0) {
		t.Fatalf("LastOutput %v, want %v", got, t0)
	}
	fake.Advance(25 * time.Minute)
	if idle := fake.Now().Sub(s.LastOutput()); idle != 25*time.Minute {
		t.Errorf("idle %v, want 25m", idle)
	}
	if err := s.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	sc.waitFor(t, "tick")
	if got, want := s.LastOutput(), t0.Add(25*time.Minute); !got.Equal(want) {
		t.Errorf("LastOutput after output %v, want %v", got, want)
	}
	if err := s.SendKeys("C-d"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
		is   error
	}{
		{"no program", nil, ErrNoProgram},
		{"missing program", []string{filepath.Join(t.TempDir(), "no-such-agent")}, os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Start(t.Context(), Options{Argv: tt.argv})
			if !errors.Is(err, tt.is) {
				t.Errorf("Start: %v, want %v", err, tt.is)
			}
		})
	}
}

// TestNoGoroutineLeak is not parallel: it counts every goroutine in the process.
// Parallel tests are paused while it runs.
func TestNoGoroutineLeak(t *testing.T) {
	run := func() {
		// A terminal session ended by the program, one stopped, one fed by Input.
		ot := newOuterTerminal(t, nil)
		argv, env := fakeArgv("echo")
		s := start(t, t.Context(), Options{Argv: argv, Env: env, Terminal: ot.slave, ForwardKeys: true, OnInterrupt: func() {}})
		ot.screen.waitFor(t, "ready")
		ot.typeKeys(t, "\x03\x04")
		waitDone(t, s)
		ot.close()

		fake := clock.NewFake(t0)
		argv, env = fakeArgv("stubborn")
		s2 := start(t, t.Context(), Options{Argv: argv, Env: env, Clock: fake})
		go func() { _ = s2.Stop(0) }()
		waitDone(t, s2)

		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		defer r.Close()
		argv, env = fakeArgv("exit", envArg+"=0")
		s3 := start(t, t.Context(), Options{Argv: argv, Env: env, Input: r})
		waitDone(t, s3)
	}
	run() // starts what lives on for good, such as os/signal's loop
	base := runtime.NumGoroutine()
	for range 3 {
		run()
	}
	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}
