package agents

import "errors"

// ErrUnknownAgent is returned by Lookup for a name that has no profile.
var ErrUnknownAgent = errors.New("unknown agent")

// ErrNoCommand is returned by Argv when a profile has no program to start.
var ErrNoCommand = errors.New("the agent has no command")

// ErrBadProfile is returned by Lookup when a profile or an override is invalid.
var ErrBadProfile = errors.New("invalid agent profile")

// messageError carries a message for a person and the sentinel it stands for,
// so errors.Is works while the message stays one readable sentence.
type messageError struct {
	msg string
	err error
}

func (e *messageError) Error() string { return e.msg }
func (e *messageError) Unwrap() error { return e.err }
