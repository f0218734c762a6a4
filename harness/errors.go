package harness

import "errors"

// ErrNotLiveSession means a command named a session (STROM_SESSION) that is not the
// session of the live run.
var ErrNotLiveSession = errors.New("no such session is running")

// ErrNoArchive means a task names an archive the settings give no probe.
var ErrNoArchive = errors.New("no archive is set up with the name")

// ErrAgentVersion means the agent's program is of a version whose flags strom does
// not know, or did not say its version.
var ErrAgentVersion = errors.New("the agent's version is not one strom knows")
