// Package procgroup runs a program strom asks a question of — a condition (gate), an
// archive's probe, check.command, `codex login status`, Claude Code's usage — so that
// it dies with its question. Guarantee: once Wait (or Run) returns, every process of
// the program's process group has been sent SIGKILL, whether the program ended by
// itself or its context ended it; a program that exited 0 has succeeded, even when a
// process it left behind still held its stdout or stderr open; and its output is
// read to its end once the group is gone, so nothing it wrote is lost.
//
// A process that leaves the group on purpose (setsid, a daemon's double fork) is
// found again on Linux by the environment variable MarkVar, which it inherited, and
// killed too; elsewhere, or when it emptied its environment, it is beyond this: its
// output is read for at most Grace after the group was killed. Where process groups
// do not exist (Windows, until a job object does it there), the program alone is
// stopped when its context ends.
//
// Programs that share the person's terminal (an editor, an installer) are not run
// here: in a group of its own a program cannot read the terminal, and one whose
// group is handed the terminal stops alone on Ctrl-Z, with strom waiting for it and
// the shell never getting the terminal back.
package procgroup

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Grace bounds two waits that only a process outside the group can make long: the
// reading of the program's output after its group was killed, and (as the command's
// WaitDelay when it sets none) the writing of a Stdin that is not a file.
const Grace = 2 * time.Second

// MarkVar is the environment variable each program strom asks a question of gets,
// with a value no other program has: every process it starts inherits it, also one
// that left the process group (setsid, a daemon's double fork), and is found again
// by it in /proc once the question is answered. Only a process that empties its
// own environment escapes.
const MarkVar = "STROM_ASKED"

// Group is a program started by Start.
type Group struct {
	cmd     *exec.Cmd
	token   string // the value of MarkVar its processes carry, "" where none is looked for
	readers []*os.File
	copies  sync.WaitGroup
}

// Start starts cmd, made by exec.CommandContext, in a process group of its own,
// whose end is the context's: when the context is done the whole group is killed.
// A Stdout or Stderr that is not a file is fed through a pipe strom owns, so that a
// process left holding it cannot delay the program's end.
func Start(cmd *exec.Cmd) (*Group, error) {
	g := &Group{cmd: cmd}
	var writers []*os.File // the program's ends of the pipes, closed here once it has them
	closeAll := func() {
		for _, f := range append(writers, g.readers...) {
			f.Close()
		}
	}
	feed := func(w io.Writer) (*os.File, error) {
		r, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		g.readers = append(g.readers, r)
		writers = append(writers, pw)
		g.copies.Add(1)
		go func() {
			defer g.copies.Done()
			_, _ = io.Copy(w, r)
		}()
		return pw, nil
	}
	stdout, stderr := cmd.Stdout, cmd.Stderr
	if _, isFile := stdout.(*os.File); stdout != nil && !isFile {
		f, err := feed(stdout)
		if err != nil {
			closeAll()
			return nil, err
		}
		cmd.Stdout = f
	}
	if _, isFile := stderr.(*os.File); stderr != nil && !isFile {
		if sameWriter(stdout, stderr) {
			// One pipe for both, as exec does: the writer sees the program's own order
			// and is never written from two goroutines at once.
			cmd.Stderr = cmd.Stdout
		} else {
			f, err := feed(stderr)
			if err != nil {
				closeAll()
				return nil, err
			}
			cmd.Stderr = f
		}
	}
	inGroup(cmd)
	g.token = mark(cmd)
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = Grace
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		g.copies.Wait()
		return nil, err
	}
	for _, f := range writers {
		f.Close()
	}
	return g, nil
}

// Wait waits for the program to end, kills what is left of its group and reads the
// rest of its output. Its error is exec's: nil for exit 0, an *exec.ExitError for
// another exit or a program the context killed.
func (g *Group) Wait() error {
	err := g.cmd.Wait()
	// The program has ended and been reaped; its group's number cannot have been
	// given to another group while a process of this one lives.
	killGroup(g.cmd.Process.Pid)
	killMarked(g.token)
	done := make(chan struct{})
	go func() {
		g.copies.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(Grace):
		// A process outside the group still holds the pipe: stop reading.
		for _, r := range g.readers {
			r.Close()
		}
		<-done
	}
	for _, r := range g.readers {
		r.Close()
	}
	if errors.Is(err, exec.ErrWaitDelay) && g.cmd.ProcessState != nil && g.cmd.ProcessState.Success() {
		// Only the copying of Stdin was cut short; the program itself succeeded.
		err = nil
	}
	return err
}

// Run starts cmd as Start does and waits for it as Wait does.
func Run(cmd *exec.Cmd) error {
	g, err := Start(cmd)
	if err != nil {
		return err
	}
	return g.Wait()
}

// sameWriter reports whether a and b are one writer; a writer whose type cannot be
// compared is never the same as another.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
