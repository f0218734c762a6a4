// Package buildinfo names the version of a strom program: the one its build was
// given (-ldflags "-X main.version=…"), else the module's as go install records
// it, else "(devel)".
package buildinfo

import "runtime/debug"

// Version returns given when the build set it, else the module's version.
func Version(given string) string {
	if given != "" {
		return given
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// CallerEnv names, in the environment of a program strom runs in its place (strom
// app runs strom-app), the version of that strom, so that the program can say
// when it is of another.
const CallerEnv = "STROM_CALLER_VERSION"
