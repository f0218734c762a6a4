//go:build unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inGroup makes cmd the leader of a new process group and has its context kill the
// whole group.
func inGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		if killGroup(cmd.Process.Pid) {
			return nil
		}
		return os.ErrProcessDone
	}
}

// killGroup sends SIGKILL to the process group pgid and reports whether it had a
// process. SIGKILL and not SIGTERM first: what is left once the answer is read, or
// once the program's time is up, has nothing more to say, and SIGKILL cannot be
// caught, ignored or answered slowly, so the group is gone at once, with no grace
// to wait out on every question and no second moment at which it could still be
// running. A program that wants to tidy up does so before it answers.
func killGroup(pgid int) bool {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
