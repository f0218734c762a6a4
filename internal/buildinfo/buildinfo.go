// Package buildinfo is what strom's programs (strom, strom-app, strom-menu) know
// of each other: the version each was built as, and where each finds another.
package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// Version returns given when the build set it (-ldflags "-X main.version=…"),
// else the module's version as go install records it, else "(devel)".
func Version(given string) string {
	if given != "" {
		return given
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// Release is what go install takes for version: the version itself when it is a
// module's, else latest (a strom built from source).
func Release(version string) string {
	if strings.HasPrefix(version, "v") {
		return version
	}
	return "latest"
}

// CallerEnv names, in the environment of a program strom runs in its place (strom
// app runs strom-app), the version of that strom, so that the program can say
// when it is of another.
const CallerEnv = "STROM_CALLER_VERSION"

// OtherCaller returns the version of the strom that ran this program in its
// place when it is not version, else "". It takes CallerEnv out of the
// environment, so that the commands this program runs do not inherit it.
func OtherCaller(version string) string {
	caller := os.Getenv(CallerEnv)
	os.Unsetenv(CallerEnv)
	if caller == version {
		return ""
	}
	return caller
}

// Sibling finds the program name beside this process's binary (its links
// resolved), where make install and go install …/cmd/...@version put strom's
// programs, else on PATH. dir is the folder of this process's binary; path is ""
// when neither has the program.
func Sibling(name string) (path, dir string) {
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		dir = filepath.Dir(self)
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, dir
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, dir
	}
	return "", dir
}
