package harness

import "errors"

// ErrNoArchive means a task names an archive the settings give no probe.
var ErrNoArchive = errors.New("no archive is set up with the name")

// ErrAgentVersion means the agent's program is of a version whose flags strom does
// not know, or did not say its version.
var ErrAgentVersion = errors.New("the agent's version is not one strom knows")
