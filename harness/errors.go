package harness

import "errors"

// ErrNotLiveSession means a command named a session (STROM_SESSION) that is not the
// session of the live run.
var ErrNotLiveSession = errors.New("no such session is running")

// ErrNoArchive means a task names an archive the settings give no probe.
var ErrNoArchive = errors.New("no archive is set up with the name")
