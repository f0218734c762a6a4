// Package testenv prepares the environment of strom's test processes, and tells
// whether a process they started is still running.
package testenv

import (
	"os"
	"path/filepath"
)

// CacheHome points XDG_CACHE_HOME at one folder under the temporary directory, for
// the test process and every program it starts, so that strom's memo of validated
// state files (statefiles/memo.go) is never the person's own. The folder is kept
// between runs: the memo's entries name contents, so sharing it is harmless.
func CacheHome() {
	os.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "strom-test-cache"))
}
