package agentpty

import "errors"

// ErrNoProgram means Options.Argv was empty: there is nothing to run.
var ErrNoProgram = errors.New("no program to run")

// ErrEnded means the session has ended: the program exited and its pty is closed,
// so nothing more can be typed into it.
var ErrEnded = errors.New("session has ended")
