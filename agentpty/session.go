// Package agentpty runs one program under a pseudo-terminal, unattended, for as long
// as it takes.
//
// Its guarantee: every byte the program prints reaches the transcript writer in order,
// in bounded memory whatever the volume (only a 64 KiB tail is kept); Stop ends the
// program and everything it left in its process group, SIGTERM first; and a
// person's terminal that a Session put in raw mode is put back as it was on every way
// out the package can see — the program's end, Stop, context cancellation, a panic in
// a relay goroutine, and SIGTERM or SIGHUP to this process. Whoever stops the process
// another way (os.Exit, a fatal signal) calls RestoreTerminals first.
//
// The package knows nothing of strom: it imports only the standard library, creack/pty,
// x/term, x/sys and strom's clock.
package agentpty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/strom-research/strom/internal/clock"
)

// Options say what to run and where its input and output go.
type Options struct {
	Argv []string // the program and its arguments; Argv[0] is looked up in PATH
	Dir  string   // working directory; "" is the current one
	Env  []string // the full environment; nil inherits this process's

	// Terminal is the person's terminal, or nil when nobody watches (CI, nohup).
	// When it is a terminal, the Session puts it in raw mode, relays the program's
	// output to it and the person's keys from it, and keeps the pty's window size in
	// step with it. When it is some other file, it only receives the output. The
	// caller keeps it open until Done.
	Terminal *os.File
	// Input is a source of the person's keys when Terminal is nil (tests, a remote
	// console). Its reading goroutine ends when Input returns an error; an Input with
	// SetReadDeadline (an *os.File pipe) is also cut off when the session ends.
	Input io.Reader
	// Transcript receives every byte of output as it arrives; nil discards it. A
	// write error stops the transcript (not the program) and is reported by Wait.
	Transcript io.Writer
	// Output, if set, is called with each chunk of output, on the goroutine that
	// reads the pty. It must not retain the slice, and must return quickly: the
	// program waits while it runs. It may call Stop, but not Wait.
	Output func([]byte)
	// ForwardKeys types the person's keys into the program. Without it, keys are
	// read only to catch Ctrl-C and are otherwise dropped; since the terminal is
	// raw, Ctrl-C then reaches nobody unless OnInterrupt is set.
	ForwardKeys bool
	// OnInterrupt is called for each Ctrl-C (byte 0x03) the person types; the byte
	// is not forwarded then. It runs on its own goroutine and may call Stop. When
	// nil, 0x03 is an ordinary key.
	OnInterrupt func()
	// OnKeys, when set, sees each chunk of the person's keys (Ctrl-C taken out when
	// OnInterrupt is set) before it is forwarded; returning true keeps the chunk from
	// the program. It runs on the goroutine that reads the keys and must return
	// quickly. It lets the caller ask the person a question while the program runs.
	OnKeys func([]byte) bool
	// Size is the window size when there is no terminal to take it from; nil is
	// 50 rows by 200 columns.
	Size *pty.Winsize
	// Grace is how long a cancelled ctx waits between SIGTERM and SIGKILL; 0 is 5 s.
	Grace time.Duration
	// Clock measures idle time and Type's Enter delay; nil is the wall clock.
	Clock clock.Clock
	// TypingClock, when set, times Type's Enter delay instead of Clock. The delay is
	// about the program's input handling, which runs on real time even when a test
	// speeds Clock up.
	TypingClock clock.Clock
}

// Timings that callers have no reason to change.
const (
	defaultGrace = 5 * time.Second
	// enterDelay separates a typed text from its Enter: a TUI that receives both in
	// one burst takes the Enter as part of the paste (claude-code#13316).
	enterDelay = 150 * time.Millisecond
	// After the program exits, output still buffered in the pty is drained until
	// none arrives for drainIdle, or at most drainMax: a background child that kept
	// the pty open must not hold the session open.
	drainIdle = 200 * time.Millisecond
	drainMax  = 2 * time.Second
	bufSize   = 32 << 10
)

var defaultSize = pty.Winsize{Rows: 50, Cols: 200}

// Session is one run of a program under a pty. Its methods are safe for concurrent use.
type Session struct {
	o      Options
	clock  clock.Clock
	typing clock.Clock // times the Enter after typed text
	cmd    *exec.Cmd
	master *os.File

	// The person's terminal: tfd is its descriptor, isTTY whether it is a terminal.
	tfd     int
	isTTY   bool
	rawMu   sync.Mutex
	rawPrev *term.State // the mode to restore, nil once restored

	writeMu sync.Mutex // one writer into the pty at a time
	typeMu  sync.Mutex // one Type at a time, Enter included
	ended   atomic.Bool
	paste   pasteScanner

	mu    sync.Mutex // guards tail and last
	tail  ring
	last  time.Time
	relay bool  // output still goes to Terminal; only the output goroutine touches it
	twErr error // first transcript write error; written by the output goroutine

	interrupts chan struct{} // one token per Ctrl-C awaiting OnInterrupt

	exited  chan struct{} // closed once cmd.Wait returned
	exitAt  time.Time     // when cmd.Wait returned, set before exited is closed
	outDone chan struct{} // closed once the output goroutine ended
	done    chan struct{} // closed once exited, drained and torn down
	status  ExitStatus
	waitErr error

	quit    chan struct{} // closed at teardown: stops the signal watcher
	sigDone chan struct{} // closed when the signal watcher ended (nil when none)
	wakeW   *os.File      // closing it stops the key reader
	keyDone chan struct{} // closed when the key reader ended (nil when none)
}

// Start runs o.Argv under a new pty and begins relaying. The program is the leader of
// a new session and process group (so Pid is also the group id). Cancelling ctx stops
// the program as Stop(o.Grace) would.
func Start(ctx context.Context, o Options) (*Session, error) {
	if len(o.Argv) == 0 {
		return nil, fmt.Errorf("start program: %w", ErrNoProgram)
	}
	s := &Session{
		o:          o,
		clock:      o.Clock,
		tfd:        -1,
		interrupts: make(chan struct{}, 64),
		exited:     make(chan struct{}),
		outDone:    make(chan struct{}),
		done:       make(chan struct{}),
		quit:       make(chan struct{}),
	}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	s.typing = s.clock
	if o.TypingClock != nil {
		s.typing = o.TypingClock
	}
	if s.o.Transcript == nil {
		s.o.Transcript = io.Discard
	}
	if s.o.Grace <= 0 {
		s.o.Grace = defaultGrace
	}
	size := defaultSize
	if o.Size != nil {
		size = *o.Size
	}
	if o.Terminal != nil {
		s.relay = true
		s.tfd = fdOf(o.Terminal)
		s.isTTY = s.tfd >= 0 && term.IsTerminal(s.tfd)
		if s.isTTY {
			if ws, err := unix.IoctlGetWinsize(s.tfd, unix.TIOCGWINSZ); err == nil && ws.Row > 0 && ws.Col > 0 {
				size = pty.Winsize{Rows: ws.Row, Cols: ws.Col, X: ws.Xpixel, Y: ws.Ypixel}
			}
		}
	}

	cmd := exec.CommandContext(ctx, o.Argv[0], o.Argv[1:]...)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	// exec's own cancellation would SIGKILL the leader alone; the watcher below
	// does the graceful, group-wide stop, and this makes exec's part match it.
	cmd.Cancel = func() error { return s.signalGroup(syscall.SIGTERM) }
	s.cmd = cmd
	ptm, err := pty.StartWithSize(cmd, &size)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", o.Argv[0], err)
	}
	s.master = pollable(ptm)
	s.last = s.clock.Now()

	if s.isTTY {
		prev, err := term.MakeRaw(s.tfd)
		if err != nil {
			_ = s.signalGroup(syscall.SIGKILL)
			_ = cmd.Wait()
			_ = s.master.Close()
			return nil, fmt.Errorf("make terminal raw: %w", err)
		}
		s.rawPrev = prev
		register(s)
		s.sigDone = make(chan struct{})
		sig := make(chan os.Signal, 4)
		catch := []os.Signal{syscall.SIGWINCH, syscall.SIGTERM}
		if !signal.Ignored(syscall.SIGHUP) { // under nohup, keep ignoring it
			catch = append(catch, syscall.SIGHUP)
		}
		signal.Notify(sig, catch...)
		go s.watchSignals(sig)
		// The size may have changed between reading it and starting the program.
		s.syncSize()
	}
	switch {
	case s.isTTY:
		if err := s.startKeyReader(); err != nil {
			s.Restore()
			unregister(s)
			_ = s.signalGroup(syscall.SIGKILL)
			_ = cmd.Wait()
			_ = s.master.Close()
			close(s.quit)
			<-s.sigDone
			return nil, err
		}
	case o.Terminal == nil && o.Input != nil:
		go s.readInput()
	}
	if o.OnInterrupt != nil {
		go s.dispatchInterrupts()
	}
	go s.readOutput()
	go s.waitProgram()
	go s.watchContext(ctx)
	go s.finish()
	return s, nil
}

// pollable returns the pty master as a non-blocking file in Go's poller, so that a
// read can be given a deadline and is woken by Close. creack/pty hands it back in
// blocking mode (its ioctls call Fd), where neither works. If the poller refuses the
// descriptor the blocking file is kept.
func pollable(ptm *os.File) *os.File {
	fd, err := unix.FcntlInt(ptm.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return ptm
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return ptm
	}
	f := os.NewFile(uintptr(fd), ptm.Name())
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		// Not in the poller: O_NONBLOCK is shared with ptm, so put it back.
		_ = unix.SetNonblock(fd, false)
		_ = f.Close()
		return ptm
	}
	_ = ptm.Close()
	return f
}

// fdOf returns f's descriptor without switching it to blocking mode as Fd would.
func fdOf(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if err := rc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return -1
	}
	return fd
}

// OnTerminal reports whether the session relays a real terminal: a person can be
// asked there.
func (s *Session) OnTerminal() bool { return s.isTTY }

// Pid is the program's process id, which is also its process group id.
func (s *Session) Pid() int { return s.cmd.Process.Pid }

// Done is closed once the program has exited and its output has been drained.
func (s *Session) Done() <-chan struct{} { return s.done }

// Wait waits for Done and reports how the program ended. Its error is about the
// session, not the program: waiting failed, or the transcript could not be written
// (the status is valid then too). A cancelled ctx is not an error here; the status
// shows the signal.
func (s *Session) Wait() (ExitStatus, error) {
	<-s.done
	return s.status, errors.Join(s.waitErr, s.twErr)
}

// LastOutput is when output last arrived, or when the program started if it has
// printed nothing; the program has been idle for Clock.Now() minus this.
func (s *Session) LastOutput() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Tail returns a copy of the last 64 KiB of output.
func (s *Session) Tail() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tail.bytes()
}

// Stop ends the program: SIGTERM to its process group, up to grace for it to exit,
// then SIGKILL to the group, which also ends whatever it left running in the group
// (a child that called setsid has left it). Stop returns once the program has
// exited; Wait then reports the status once the output is drained.
func (s *Session) Stop(grace time.Duration) error {
	var errs []error
	if err := s.signalGroup(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		errs = append(errs, err)
	}
	select {
	case <-s.exited:
	case <-s.clock.After(grace):
	}
	if err := s.signalGroup(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		errs = append(errs, err)
	}
	<-s.exited
	return errors.Join(errs...)
}

// signalGroup sends sig to the program's process group. A group that is already
// gone is not an error.
func (s *Session) signalGroup(sig syscall.Signal) error {
	err := syscall.Kill(-s.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	if err != nil {
		return fmt.Errorf("signal process group %d: %w", s.cmd.Process.Pid, err)
	}
	return nil
}

// waitProgram decides that the program exited by cmd.Wait, never by the end of its
// output, and then gives the output reader a deadline to drain what is left.
func (s *Session) waitProgram() {
	err := s.cmd.Wait()
	s.status = StatusOf(s.cmd.ProcessState)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrProcessDone) {
		s.waitErr = fmt.Errorf("wait for %s: %w", s.o.Argv[0], err)
	}
	s.exitAt = time.Now()
	close(s.exited)
	_ = s.master.SetReadDeadline(s.exitAt.Add(drainIdle))
}

// watchContext stops the program when ctx is cancelled.
func (s *Session) watchContext(ctx context.Context) {
	select {
	case <-ctx.Done():
		_ = s.Stop(s.o.Grace)
	case <-s.exited:
	}
}

// watchSignals keeps the pty's size in step with the terminal, and on SIGTERM or
// SIGHUP to this process restores the terminal at once and passes the signal on to
// the program's group, so the program ends, Wait returns, and the caller decides
// what to do next. Catching them means this process does not die of them while a
// Session holds the terminal raw.
func (s *Session) watchSignals(sig chan os.Signal) {
	defer close(s.sigDone)
	defer signal.Stop(sig)
	defer s.restoreOnPanic()
	for {
		select {
		case <-s.quit:
			return
		case v := <-sig:
			switch v {
			case syscall.SIGWINCH:
				s.syncSize()
			case syscall.SIGTERM, syscall.SIGHUP:
				s.Restore()
				_ = s.signalGroup(v.(syscall.Signal))
			}
		}
	}
}

// syncSize copies the terminal's window size to the pty; the kernel then sends the
// program SIGWINCH.
func (s *Session) syncSize() {
	ws, err := unix.IoctlGetWinsize(s.tfd, unix.TIOCGWINSZ)
	if err != nil || ws.Row == 0 || ws.Col == 0 {
		return
	}
	if rc, err := s.master.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
	}
}

// finish tears the session down once the program exited and its output is drained.
func (s *Session) finish() {
	<-s.exited
	<-s.outDone
	s.ended.Store(true)
	// Closing the master first wakes any write parked on a full pty, key relay
	// included, so that nothing below waits forever.
	_ = s.master.Close()
	close(s.quit)
	if s.sigDone != nil {
		<-s.sigDone
	}
	s.Restore()
	unregister(s)
	if s.keyDone != nil {
		_ = s.wakeW.Close()
		<-s.keyDone
	}
	if d, ok := s.o.Input.(interface{ SetReadDeadline(time.Time) error }); ok && s.o.Terminal == nil {
		_ = d.SetReadDeadline(time.Unix(1, 0))
	}
	close(s.done)
}
