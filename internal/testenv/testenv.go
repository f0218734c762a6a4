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

// NoSessionBus is a session bus address that names no bus: a program given it
// finds no desktop, and looks for none elsewhere.
const NoSessionBus = "disabled:"

// PersonFree gives the test process, and every program it starts, a home and a
// config folder of their own, empty, so that no setting of the person who runs the
// tests (a check.command, an agent, a language in ~/.config/strom/config.json)
// reaches a strom the tests run in the test process or an agent that strom starts.
// Go's module cache stays where it was. The person's desktop is out of reach too:
// no notification of a run the tests start shows on it (a test that wants a
// session bus starts one of its own, SessionBus).
func PersonFree() error {
	os.Setenv("DBUS_SESSION_BUS_ADDRESS", NoSessionBus)
	if os.Getenv("GOPATH") == "" {
		if home, err := os.UserHomeDir(); err == nil {
			os.Setenv("GOPATH", filepath.Join(home, "go"))
		}
	}
	home, err := os.MkdirTemp("", "strom-test-home-")
	if err != nil {
		return err
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	return nil
}
