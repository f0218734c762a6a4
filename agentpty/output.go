package agentpty

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"time"
)

// readOutput relays the program's output until the pty reports its end (EIO once
// every holder of the pty's other side has closed it) or, after the program exited,
// until the drain deadline. One 32 KiB buffer serves the whole session.
func (s *Session) readOutput() {
	defer close(s.outDone)
	defer s.restoreOnPanic()
	buf := make([]byte, bufSize)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			s.output(buf[:n])
			select {
			case <-s.exited:
				_ = s.master.SetReadDeadline(minTime(time.Now().Add(drainIdle), s.exitAt.Add(drainMax)))
			default:
			}
		}
		if err != nil {
			// EIO is how a pty master says end of file; a deadline only passes
			// after the program exited; anything else also ends the output.
			return
		}
	}
}

// output hands one chunk to everything that wants it. The bracketed-paste state is
// updated first so that Type, once the person or a test saw the chunk, sees it too.
func (s *Session) output(p []byte) {
	s.paste.scan(p)
	s.mu.Lock()
	s.tail.write(p)
	s.last = s.clock.Now()
	s.mu.Unlock()
	if s.relay {
		if _, err := s.o.Terminal.Write(p); err != nil {
			s.relay = false // the person's terminal is gone; the run goes on
		}
	}
	if s.twErr == nil {
		if _, err := s.o.Transcript.Write(p); err != nil {
			s.twErr = fmt.Errorf("write transcript: %w", err)
		}
	}
	if s.o.Output != nil {
		s.o.Output(p)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// tailSize is how much output Tail keeps.
const tailSize = 64 << 10

// ring keeps the last tailSize bytes written to it.
type ring struct {
	buf  [tailSize]byte
	pos  int // where the next byte goes
	full bool
}

func (r *ring) write(p []byte) {
	if len(p) >= len(r.buf) {
		copy(r.buf[:], p[len(p)-len(r.buf):])
		r.pos, r.full = 0, true
		return
	}
	n := copy(r.buf[r.pos:], p)
	copy(r.buf[:], p[n:])
	if r.pos+len(p) >= len(r.buf) {
		r.full = true
	}
	r.pos = (r.pos + len(p)) % len(r.buf)
}

func (r *ring) bytes() []byte {
	if !r.full {
		return bytes.Clone(r.buf[:r.pos])
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}

// Bracketed paste is on between the program printing pasteOn and pasteOff.
const (
	pasteOn     = "\x1b[?2004h"
	pasteOff    = "\x1b[?2004l"
	pastePrefix = "\x1b[?2004" // both, without the final byte
	pasteStart  = "\x1b[200~"
	pasteEnd    = "\x1b[201~"
)

// pasteScanner follows whether the program has bracketed paste on, across chunk
// boundaries. Only the output goroutine calls scan; on is read by Type. It finds
// the plain sequences, which is what TUIs print; a combined DECSET such as
// ESC[?1049;2004h is not recognised.
type pasteScanner struct {
	on    atomic.Bool
	carry [len(pastePrefix)]byte // a prefix of a sequence cut at the end of the last chunk
	n     int
}

func (ps *pasteScanner) scan(p []byte) {
	if ps.n > 0 {
		var joined [len(pastePrefix) + 1]byte
		j := copy(joined[:], ps.carry[:ps.n])
		j += copy(joined[j:], p)
		ps.n = 0
		ps.match(joined[:j])
	}
	for i := 0; ; {
		k := bytes.IndexByte(p[i:], 0x1b)
		if k < 0 {
			return
		}
		ps.match(p[i+k:])
		i += k + 1
	}
}

// match looks at the bytes from an ESC to the end of the chunk. When the chunk ends
// inside what could still become a paste switch, they are kept for the next chunk.
func (ps *pasteScanner) match(seq []byte) {
	if len(seq) > len(pastePrefix) {
		if string(seq[:len(pastePrefix)]) == pastePrefix {
			switch seq[len(pastePrefix)] {
			case 'h':
				ps.on.Store(true)
			case 'l':
				ps.on.Store(false)
			}
		}
		return
	}
	if string(seq) == pastePrefix[:len(seq)] {
		ps.n = copy(ps.carry[:], seq)
	}
}
