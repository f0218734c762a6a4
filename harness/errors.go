package harness

import "errors"

// ErrNoArchive means a task names an archive the settings give no probe.
var ErrNoArchive = errors.New("no archive is set up with the name")
