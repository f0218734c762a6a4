package agentpty

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// Restore puts the person's terminal back in the mode it had before Start. The
// Session calls it itself on every way out it sees; callers call it (or
// RestoreTerminals) before they end this process some other way. It is idempotent
// and safe to call at any time; output keeps being relayed afterwards.
func (s *Session) Restore() {
	s.rawMu.Lock()
	defer s.rawMu.Unlock()
	if s.rawPrev == nil {
		return
	}
	_ = term.Restore(s.tfd, s.rawPrev)
	s.rawPrev = nil
}

// rawSessions are the sessions holding a terminal in raw mode, for RestoreTerminals.
var rawSessions struct {
	sync.Mutex
	m map[*Session]struct{}
}

func register(s *Session) {
	rawSessions.Lock()
	defer rawSessions.Unlock()
	if rawSessions.m == nil {
		rawSessions.m = make(map[*Session]struct{})
	}
	rawSessions.m[s] = struct{}{}
}

func unregister(s *Session) {
	rawSessions.Lock()
	defer rawSessions.Unlock()
	delete(rawSessions.m, s)
}

// RestoreTerminals restores the terminal of every live Session. Call it from a
// signal handler or fatal-error path that ends this process without letting the
// sessions finish (os.Exit skips deferred calls). SIGTERM and SIGHUP need no call:
// a Session with a raw terminal catches them and restores by itself.
func RestoreTerminals() {
	rawSessions.Lock()
	list := make([]*Session, 0, len(rawSessions.m))
	for s := range rawSessions.m {
		list = append(list, s)
	}
	rawSessions.Unlock()
	for _, s := range list {
		s.Restore()
	}
}

// restoreOnPanic, deferred in every goroutine the Session starts, restores the
// terminal before a panic takes the process down, then lets the panic go on.
func (s *Session) restoreOnPanic() {
	if r := recover(); r != nil {
		s.Restore()
		panic(r)
	}
}

// startKeyReader reads the person's keys from the terminal until the session ends.
// The read must be cancelable: a plain Read on a terminal blocks until the next key,
// possibly forever. So the reader waits for the terminal or a wake-up pipe to become
// readable (poll, or select on darwin) and reads only then; closing the pipe's write
// end stops it. The terminal's own file description is left as it was (making it
// non-blocking would affect the shell that shares it).
func (s *Session) startKeyReader() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("create wake-up pipe: %w", err)
	}
	s.wakeW = w
	s.keyDone = make(chan struct{})
	go func() {
		defer close(s.keyDone)
		defer r.Close()
		defer s.restoreOnPanic()
		wfd := fdOf(r)
		buf := make([]byte, bufSize)
		for {
			ready, err := waitReadable(s.tfd, wfd)
			if err != nil || !ready {
				return
			}
			n, err := unix.Read(s.tfd, buf)
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				continue // another reader of the terminal took the input
			}
			if err != nil || n <= 0 {
				return // the terminal hung up
			}
			if !s.keys(buf[:n]) {
				return
			}
		}
	}()
	return nil
}

// readInput relays Options.Input when there is no terminal.
func (s *Session) readInput() {
	defer s.restoreOnPanic()
	buf := make([]byte, bufSize)
	for {
		n, err := s.o.Input.Read(buf)
		if n > 0 && !s.keys(buf[:n]) {
			return
		}
		if err != nil {
			return
		}
	}
}

// keys handles a chunk of the person's keys: Ctrl-C goes to OnInterrupt and is
// dropped, the rest is typed into the program when ForwardKeys is set. It reports
// whether reading should go on.
func (s *Session) keys(p []byte) bool {
	for len(p) > 0 {
		i := -1
		if s.o.OnInterrupt != nil {
			i = bytes.IndexByte(p, 0x03)
		}
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if len(chunk) > 0 && s.o.OnKeys != nil && s.o.OnKeys(chunk) {
			chunk = nil
		}
		if s.o.ForwardKeys && len(chunk) > 0 {
			if err := s.Write(chunk); err != nil {
				return false
			}
		}
		if i < 0 {
			return true
		}
		select {
		case s.interrupts <- struct{}{}:
		default: // 64 pending Ctrl-C already say it
		}
		p = p[i+1:]
	}
	return true
}

// dispatchInterrupts calls OnInterrupt once per Ctrl-C, away from the key reader so
// that OnInterrupt may call Stop. It ends once the session is done and the
// callback has returned.
func (s *Session) dispatchInterrupts() {
	defer s.restoreOnPanic()
	for {
		select {
		case <-s.interrupts:
			s.o.OnInterrupt()
		case <-s.done:
			return
		}
	}
}
