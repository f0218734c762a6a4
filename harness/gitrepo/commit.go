package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// commitInfo is what a walk of the history reads of one commit.
type commitInfo struct {
	hash      plumbing.Hash
	parents   []plumbing.Hash
	author    string    // "Name <email>", as git's %an <%ae>
	when      time.Time // the author date in the author's time zone, as --date=raw reads
	committed int64     // the committer date, seconds: the walk's order
	message   string    // everything after the headers, as git's %B
}

// objectName is git's name of an object: the SHA-1 of "<type> <size>\x00" and the
// content.
func objectName(typ string, data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte(typ + " " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out plumbing.Hash
	h.Sum(out[:0])
	return out
}

// parseCommit reads a commit's content in the layout git writes: a tree line, the
// parent lines, author, committer, further headers (each continued on lines that
// begin with a space: a signature, a merged tag, an encoding), a blank line and
// the message. A content in any other layout, or with an ident that git and strom
// might read apart (a second '<' or '>', white space other than the one space
// around the address), is errObjectLayout: the caller asks git, whose reading is
// the one that counts.
func parseCommit(h plumbing.Hash, data []byte) (*commitInfo, error) {
	bad := func(what string) error {
		return fmt.Errorf("%w: commit %s: %s", errObjectLayout, h, what)
	}
	rest := data
	line := func() ([]byte, bool) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil, false
		}
		l := rest[:i]
		rest = rest[i+1:]
		return l, true
	}
	c := &commitInfo{hash: h}
	l, ok := line()
	if v, found := bytes.CutPrefix(l, []byte("tree ")); !ok || !found || !isHexName(v) {
		return nil, bad("no tree line first")
	}
	l, ok = line()
	for ok {
		v, found := bytes.CutPrefix(l, []byte("parent "))
		if !found {
			break
		}
		if !isHexName(v) {
			return nil, bad("a parent line")
		}
		var p plumbing.Hash
		hex.Decode(p[:], v)
		c.parents = append(c.parents, p)
		l, ok = line()
	}
	v, found := bytes.CutPrefix(l, []byte("author "))
	if !ok || !found {
		return nil, bad("no author line after the parents")
	}
	var err error
	if c.author, c.when, err = parseIdent(v); err != nil {
		return nil, bad("the author: " + err.Error())
	}
	l, ok = line()
	v, found = bytes.CutPrefix(l, []byte("committer "))
	if !ok || !found {
		return nil, bad("no committer line after the author")
	}
	_, committed, err := parseIdent(v)
	if err != nil {
		return nil, bad("the committer: " + err.Error())
	}
	c.committed = committed.Unix()
	for {
		l, ok = line()
		if !ok {
			return nil, bad("no blank line after the headers")
		}
		if len(l) == 0 {
			break
		}
		if l[0] == ' ' {
			continue // a header's continuation
		}
		key, _, _ := bytes.Cut(l, []byte(" "))
		switch string(key) {
		case "tree", "parent", "author", "committer":
			return nil, bad(string(key) + " out of its place")
		}
	}
	c.message = string(rest)
	return c, nil
}

// parseIdent reads "Name <email> 1795000000 +0100" into "Name <email>" and the
// time in its zone.
func parseIdent(b []byte) (string, time.Time, error) {
	s := string(b)
	open, close := strings.IndexByte(s, '<'), strings.IndexByte(s, '>')
	if open < 0 || close < open || strings.Count(s, "<") != 1 || strings.Count(s, ">") != 1 {
		return "", time.Time{}, fmt.Errorf("ident %q", s)
	}
	name, email, date := s[:open], s[open+1:close], s[close+1:]
	if name != "" {
		if !strings.HasSuffix(name, " ") {
			return "", time.Time{}, fmt.Errorf("ident %q", s)
		}
		name = name[:len(name)-1]
	}
	if strings.TrimSpace(name) != name || strings.TrimSpace(email) != email {
		return "", time.Time{}, fmt.Errorf("ident %q", s)
	}
	secs, tz, ok := strings.Cut(strings.TrimPrefix(date, " "), " ")
	if !ok || !strings.HasPrefix(date, " ") || secs == "" || strings.Trim(secs, "0123456789") != "" ||
		len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') || strings.Trim(tz[1:], "0123456789") != "" {
		return "", time.Time{}, fmt.Errorf("ident date %q", date)
	}
	when := parseRawDate(secs + " " + tz)
	if when.IsZero() {
		return "", time.Time{}, fmt.Errorf("ident date %q", date)
	}
	return name + " <" + email + ">", when, nil
}

// isHexName reports whether b is a SHA-1 name in lower-case hex, as git writes it.
func isHexName(b []byte) bool {
	if len(b) != 40 {
		return false
	}
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
