package agentpty

import (
	"fmt"
	"os"
	"syscall"
)

// ExitStatus is how the program ended: an exit code, or the signal that killed it.
type ExitStatus struct {
	Code   int            // exit code; -1 when a signal ended the program
	Signal syscall.Signal // the signal that ended the program, or 0
}

// Signaled reports whether a signal ended the program.
func (e ExitStatus) Signaled() bool { return e.Signal != 0 }

// String reads "exit 3" or "signal killed".
func (e ExitStatus) String() string {
	if e.Signaled() {
		return "signal " + e.Signal.String()
	}
	return fmt.Sprintf("exit %d", e.Code)
}

// StatusOf turns the state cmd.Wait left into an ExitStatus.
func StatusOf(ps *os.ProcessState) ExitStatus {
	if ps == nil {
		return ExitStatus{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: ps.ExitCode()}
}
