// Package buildinfo is what strom's programs (strom, strom-app, strom-menu) know
// of each other: the version each was built as, and where each finds another.
package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// What a build sets (.goreleaser.yaml, the Makefile) with -ldflags
// "-X github.com/strom-research/strom/internal/buildinfo.version=0.1.2" and the
// like: the release tag without its v, the commit (+dirty when its tree had
// changes), and the commit's time (RFC 3339). What a build leaves unset is what Go
// recorded in the binary, where it recorded anything.
var (
	version string
	commit  string
	date    string
)

// DevVersion is the version of a build that is not a release's: built from a
// clone between tags or with changes, or where Go recorded no version.
const DevVersion = "0.0.0-dev"

// Build is what a program knows of the build it is.
type Build struct {
	Version string // the semantic version without its v: 0.1.2, or DevVersion
	Commit  string // the commit's first 7 hex digits, with +dirty when its tree had changes; "" when unknown
	Date    string // the commit's date, 2006-01-02; "" when unknown
}

// Current is this program's build: what the build set, else what Go recorded —
// the module's version when it is a release's (go install …@v0.1.2, a build at a
// release tag), the commit and its time (a build in a git clone, unless
// -buildvcs=false).
func Current() Build {
	bi, _ := debug.ReadBuildInfo()
	return describe(version, commit, date, bi)
}

// describe is Current with the words set and the build info given. GoReleaser
// sets the commit "none" and a time in the year 1 where git told it nothing:
// those are unknown too.
func describe(version, commit, date string, bi *debug.BuildInfo) Build {
	vcs := map[string]string{}
	module := ""
	if bi != nil {
		module = bi.Main.Version
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
	}
	b := Build{Version: strings.TrimPrefix(version, "v"), Commit: commit, Date: date}
	if b.Version == "" {
		b.Version = moduleRelease(module)
	}
	dirty := vcs["vcs.modified"] == "true"
	if b.Commit == "none" || b.Commit == "" {
		b.Commit = vcs["vcs.revision"]
	} else if hash, mark, ok := strings.Cut(b.Commit, "+"); ok {
		b.Commit, dirty = hash, dirty || mark == "dirty"
	}
	if len(b.Commit) > 7 {
		b.Commit = b.Commit[:7]
	}
	if b.Commit != "" && dirty {
		b.Commit += "+dirty"
	}
	if b.Date == "" {
		b.Date = vcs["vcs.time"]
	}
	if t, err := time.Parse(time.RFC3339, b.Date); err == nil {
		b.Date = t.UTC().Format(time.DateOnly)
		if t.Year() < 2000 {
			b.Date = ""
		}
	}
	return b
}

// isRelease reports whether v is a release's semantic version without its v:
// 1.2.3, 1.2.3-rc.1. (No regexp: every strom command would pay for compiling it.)
func isRelease(v string) bool {
	core, pre, hasPre := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 || hasPre && (pre == "" || strings.Trim(pre, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-") != "") {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// isPseudo reports whether v ends as a version Go makes up for a commit without
// a tag of its own: a time of 14 digits, a dash and 12 hex digits of the commit.
func isPseudo(v string) bool {
	n := len(v)
	if n < 27 || v[n-13] != '-' {
		return false
	}
	return strings.Trim(v[n-27:n-13], "0123456789") == "" && strings.Trim(v[n-12:], "0123456789abcdef") == ""
}

// moduleRelease is the release a module version recorded by Go names, without
// its v, else DevVersion: Go records v0.1.2 for go install …@v0.1.2 and for a build
// at the tag v0.1.2, a pseudo-version between tags, +dirty with changes, and
// (devel) or nothing without git.
func moduleRelease(module string) string {
	v, ok := strings.CutPrefix(module, "v")
	if !ok || !isRelease(v) || isPseudo(v) {
		return DevVersion
	}
	return v
}

// String is the build as strom --version prints it after "strom ":
// "0.1.2 (1a2b3c4, 2026-12-02)", the parenthesis without what is unknown.
func (b Build) String() string {
	var about []string
	for _, s := range []string{b.Commit, b.Date} {
		if s != "" {
			about = append(about, s)
		}
	}
	if len(about) == 0 {
		return b.Version
	}
	return b.Version + " (" + strings.Join(about, ", ") + ")"
}

// Release is what go install takes for the version of the build described
// (Build.String, or a version alone): v and the release, else latest (a
// development build).
func Release(described string) string {
	v, _, _ := strings.Cut(described, " ")
	v = strings.TrimPrefix(v, "v")
	if !isRelease(v) || strings.HasSuffix(v, "-dev") {
		return "latest"
	}
	return "v" + v
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
