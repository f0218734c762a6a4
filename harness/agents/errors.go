package agents

import "errors"

// ErrUnknownAgent is returned by Lookup for a name that has no profile.
var ErrUnknownAgent = errors.New("unknown agent")

// ErrNoCommand is returned by Argv when a profile has no program to start.
var ErrNoCommand = errors.New("the agent has no command")

// ErrBadProfile is returned by Lookup when a profile or an override is invalid.
var ErrBadProfile = errors.New("invalid agent profile")
