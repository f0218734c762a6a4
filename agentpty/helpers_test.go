package agentpty

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// waitLimit bounds every wait for an event from another process. Tests do not
// sleep; they wait for something to happen and fail if it does not. Only a
// failing test waits that long: a 3 MiB flood through the pty under -race took
// 11.5 s on a loaded 2-core machine.
const waitLimit = 60 * time.Second

// screen collects output and lets a test wait for it.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (sc *screen) Write(p []byte) (int, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.buf.Write(p)
	close(sc.changed)
	sc.changed = make(chan struct{})
	return len(p), nil
}

// add is an Options.Output.
func (sc *screen) add(p []byte) { _, _ = sc.Write(p) }

func (sc *screen) String() string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.buf.String()
}

func (sc *screen) Len() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.buf.Len()
}

// waitFunc waits until ok holds for the screen's text.
func (sc *screen) waitFunc(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		sc.mu.Lock()
		text, changed := sc.buf.String(), sc.changed
		sc.mu.Unlock()
		if ok(text) {
			return text
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("waiting for %s; screen has %d bytes, ending %q", what, len(text), lastBytes(text, 400))
		}
	}
}

func (sc *screen) waitFor(t *testing.T, s string) {
	t.Helper()
	sc.waitFunc(t, strconv.Quote(s), func(text string) bool { return strings.Contains(text, s) })
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// received joins what the echo agent reported reading ("got <hex>" lines).
func received(text string) []byte {
	var out []byte
	for _, line := range strings.Split(text, "\r\n") {
		if h, ok := strings.CutPrefix(line, "got "); ok {
			b, err := hex.DecodeString(h)
			if err == nil {
				out = append(out, b...)
			}
		}
	}
	return out
}

// lastRead is the echo agent's last reported read.
func lastRead(text string) []byte {
	i := strings.LastIndex(text, "got ")
	if i < 0 {
		return nil
	}
	return received(text[i:])
}

func waitReceived(t *testing.T, sc *screen, want string) string {
	t.Helper()
	return sc.waitFunc(t, "agent to receive "+strconv.Quote(want), func(text string) bool {
		return string(received(text)) == want
	})
}

// outerTerminal is a pty pair standing in for the person's terminal: the Session
// gets slave; the test reads what the person sees from master and types into it.
type outerTerminal struct {
	master, slave *os.File
	screen        *screen
	close         func() // closes both ends once the reader drained the master
}

func newOuterTerminal(t *testing.T, size *pty.Winsize) *outerTerminal {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatalf("open outer pty: %v", err)
	}
	if size != nil {
		if err := pty.Setsize(master, size); err != nil {
			t.Fatalf("set outer size: %v", err)
		}
	}
	ot := &outerTerminal{master: master, slave: slave, screen: newScreen()}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			ot.screen.add(buf[:n])
			if err != nil {
				return // EIO once the slave is closed
			}
		}
	}()
	ot.close = sync.OnceFunc(func() {
		_ = slave.Close()
		<-drained
		_ = master.Close()
	})
	t.Cleanup(ot.close)
	return ot
}

func (ot *outerTerminal) termios(t *testing.T) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(fdOf(ot.slave), ioctlGetTermios)
	if err != nil {
		t.Fatalf("get termios: %v", err)
	}
	return *tio
}

func (ot *outerTerminal) typeKeys(t *testing.T, keys string) {
	t.Helper()
	if _, err := ot.master.Write([]byte(keys)); err != nil {
		t.Fatalf("type into outer pty: %v", err)
	}
}

// start starts a Session and makes sure it is gone when the test ends.
func start(t *testing.T, ctx context.Context, o Options) *Session {
	t.Helper()
	s, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		select {
		case <-s.Done():
			return
		default:
		}
		go func() { _ = s.Stop(0) }()
		select {
		case <-s.Done():
		case <-time.After(waitLimit):
			t.Errorf("session %d still running at cleanup", s.Pid())
		}
	})
	return s
}

func waitDone(t *testing.T, s *Session) ExitStatus {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(waitLimit):
		t.Fatalf("session did not end")
	}
	st, err := s.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return st
}

// waitUntil polls cond, for conditions that have no event to wait on (another
// process going away, a fake clock's waiter appearing).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// gone reports whether pid no longer runs (absent or a zombie nobody reaped).
func gone(pid int) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
