package agentpty

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// The test binary doubles as the fake agent (and as a host process for tests that
// must kill the process running a Session): TestMain dispatches on envFake.
const (
	envFake  = "AGENTPTY_FAKE"
	envArg   = "AGENTPTY_FAKE_ARG"
	envPaste = "AGENTPTY_FAKE_PASTE"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envFake); mode != "" {
		os.Exit(fakeAgent(mode, os.Getenv(envArg)))
	}
	os.Exit(m.Run())
}

// fakeArgv returns the command line and environment that run the fake agent in mode.
func fakeArgv(mode string, env ...string) ([]string, []string) {
	// The race detector's runtime otherwise sleeps a second at every clean exit.
	e := append(os.Environ(), envFake+"="+mode, "GORACE=atexit_sleep_ms=0")
	return []string{os.Args[0]}, append(e, env...)
}

// fakeAgent behaves as mode says and returns its exit code. Lines end in "\r\n"
// because the modes that read keys put their pty in raw mode.
func fakeAgent(mode, arg string) int {
	out := os.Stdout
	switch mode {
	case "echo":
		// Reports every read from its pty in hex, one line per read; exits on C-d.
		if _, err := term.MakeRaw(0); err != nil {
			fmt.Fprintf(out, "raw: %v\r\n", err)
			return 1
		}
		switch os.Getenv(envPaste) {
		case "on":
			fmt.Fprint(out, pasteOn)
		case "onoff":
			fmt.Fprint(out, pasteOn+"some output"+pasteOff)
		}
		fmt.Fprint(out, "ready\r\n")
		buf := make([]byte, 4096)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				fmt.Fprintf(out, "got %x\r\n", buf[:n])
				for _, b := range buf[:n] {
					if b == 0x04 {
						fmt.Fprint(out, "bye\r\n")
						return 0
					}
				}
			}
			if err != nil {
				return 0
			}
		}
	case "size":
		// Prints its window size at start and on every SIGWINCH; exits on C-d.
		if _, err := term.MakeRaw(0); err != nil {
			return 1
		}
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		keys := make(chan struct{})
		go func() {
			b := make([]byte, 1)
			for {
				if _, err := os.Stdin.Read(b); err != nil || b[0] == 0x04 {
					close(keys)
					return
				}
			}
		}()
		for {
			ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
			if err != nil {
				return 1
			}
			fmt.Fprintf(out, "size %dx%d\r\n", ws.Row, ws.Col)
			select {
			case <-winch:
			case <-keys:
				return 0
			}
		}
	case "flood":
		// Writes arg bytes of floodStream as fast as it can.
		n, _ := strconv.ParseInt(arg, 10, 64)
		w := bufio.NewWriterSize(out, 32<<10)
		if err := writeFlood(w, n); err != nil {
			return 1
		}
		if err := w.Flush(); err != nil {
			return 1
		}
		return 0
	case "exit":
		fmt.Fprint(out, "bye\n")
		code, _ := strconv.Atoi(arg)
		return code
	case "kill":
		fmt.Fprint(out, "bye\n")
		sig, _ := strconv.Atoi(arg)
		_ = syscall.Kill(os.Getpid(), syscall.Signal(sig))
		time.Sleep(time.Minute)
		return 1
	case "quiet":
		// Prints once, then stays silent until C-d.
		if _, err := term.MakeRaw(0); err != nil {
			return 1
		}
		fmt.Fprint(out, "ready\r\n")
		b := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(b); err != nil || b[0] == 0x04 {
				return 0
			}
			fmt.Fprint(out, "tick\r\n")
		}
	case "stubborn", "orphan":
		// Ignores SIGTERM and SIGHUP and starts a grandchild in its own process
		// group that inherits both (ignored signals survive exec) and holds the pty
		// open. "stubborn" then waits forever; "orphan" exits at once.
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		sh := exec.CommandContext(context.Background(), "sh", "-c", "sleep 1000 & echo grandchild $!")
		sh.Stdout, sh.Stderr = out, out
		if err := sh.Run(); err != nil {
			fmt.Fprintf(out, "sh: %v\n", err)
			return 1
		}
		fmt.Fprint(out, "ready\n")
		if mode == "orphan" {
			return 0
		}
		for {
			time.Sleep(time.Hour)
		}
	case "host-panic", "host-signal":
		return fakeHost(mode)
	}
	fmt.Fprintf(out, "unknown fake mode %q\n", mode)
	return 2
}

// fakeHost runs a Session whose terminal is the file at descriptor 3, for tests that
// end the process running the Session: by a panic in the relay, or by a signal.
func fakeHost(mode string) int {
	tty := os.NewFile(3, "terminal")
	argv, env := fakeArgv("echo")
	o := Options{Argv: argv, Env: env, Terminal: tty, ForwardKeys: true}
	if mode == "host-panic" {
		o.Output = func([]byte) { panic("relay panic for the test") }
	}
	s, err := Start(context.Background(), o)
	if err != nil {
		fmt.Fprintf(os.Stdout, "start: %v\n", err)
		return 1
	}
	fmt.Fprint(os.Stdout, "started\n")
	st, err := s.Wait()
	fmt.Fprintf(os.Stdout, "status %v %v\n", st, err)
	return 0
}

// floodLine is line k of the flood stream: 8 digits, 71 x, newline.
const floodLineLen = 80

// writeFlood writes the first n bytes of the flood stream to w.
func writeFlood(w io.Writer, n int64) error {
	var line [floodLineLen]byte
	for i := 8; i < floodLineLen-1; i++ {
		line[i] = 'x'
	}
	line[floodLineLen-1] = '\n'
	for k := 0; n > 0; k++ {
		v := k
		for i := 7; i >= 0; i-- {
			line[i] = byte('0' + v%10)
			v /= 10
		}
		m := min(n, floodLineLen)
		if _, err := w.Write(line[:m]); err != nil {
			return err
		}
		n -= m
	}
	return nil
}
