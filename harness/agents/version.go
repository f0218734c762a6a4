package agents

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a program's version as MAJOR.MINOR.PATCH.
type Version [3]int

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// Compare returns -1, 0 or +1 as v is older than, the same as or newer than w.
func (v Version) Compare(w Version) int {
	for i := range v {
		switch {
		case v[i] < w[i]:
			return -1
		case v[i] > w[i]:
			return 1
		}
	}
	return 0
}

// maxVersionDigits bounds each number of a version: a longer run of digits is not
// a version a program says.
const maxVersionDigits = 9

// ParseVersion finds the first MAJOR.MINOR.PATCH in what a program printed for
// --version ("2.1.332 (Claude Code)", "codex-cli 0.171.0", "1.18.33"): three
// numbers joined by dots, with neither a digit nor a dot right before or after.
func ParseVersion(out string) (Version, bool) {
	for i := 0; i < len(out); i++ {
		if !isDigit(out[i]) || i > 0 && (isDigit(out[i-1]) || out[i-1] == '.') {
			continue
		}
		if v, ok := versionAt(out[i:]); ok {
			return v, true
		}
	}
	return Version{}, false
}

// versionAt reads a version at the start of s.
func versionAt(s string) (Version, bool) {
	var v Version
	for k := range v {
		n := 0
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		if n == 0 || n > maxVersionDigits {
			return v, false
		}
		v[k], _ = strconv.Atoi(s[:n])
		s = s[n:]
		if k < len(v)-1 {
			if !strings.HasPrefix(s, ".") {
				return v, false
			}
			s = s[1:]
		}
	}
	if s != "" && (isDigit(s[0]) || s[0] == '.') {
		return v, false
	}
	return v, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// VersionRange is the versions of a program whose flags a profile knows, From to
// To, both included and both measured (profiles.json "versions").
type VersionRange struct {
	// Program is the program's name ("claude"): the range holds where the
	// profile starts it, under any path, and not where an override starts
	// another program.
	Program string `json:"program"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// Contains reports whether v lies in the range.
func (r VersionRange) Contains(v Version) bool {
	from, okFrom := ParseVersion(r.From)
	to, okTo := ParseVersion(r.To)
	return okFrom && okTo && v.Compare(from) >= 0 && v.Compare(to) <= 0
}

// validate checks that the range names its program and that both ends are
// versions, in order.
func (r VersionRange) validate() error {
	if r.Program == "" {
		return fmt.Errorf("versions %q to %q: name their program", r.From, r.To)
	}
	from, okFrom := ParseVersion(r.From)
	to, okTo := ParseVersion(r.To)
	if !okFrom || !okTo || from.String() != r.From || to.String() != r.To {
		return fmt.Errorf("versions %q to %q: give both ends as MAJOR.MINOR.PATCH", r.From, r.To)
	}
	if from.Compare(to) > 0 {
		return fmt.Errorf("versions %s to %s: the first is newer", r.From, r.To)
	}
	return nil
}
