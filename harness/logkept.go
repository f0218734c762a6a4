package harness

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// Sessions' answer is kept for the history it was read from, in
// .strom/run/sessions.kept, as LastSession's is: commits never change, so while
// HEAD names the same commit (and a shallow clone keeps its depth: its shallow
// file unchanged), the newest sessions are the same ones. `strom log` repeated,
// and the app's overview on each refresh, then read one small file instead of
// the commits. When HEAD moved forward by a line of commits of one parent each
// (a session's commit, or the agent's own and then the session's), only those
// are read, and their sessions put before the kept ones. A count up to
// keptSessionsMax is kept; a larger one, or the whole history, is read each time.
// A missing, unreadable or foreign file is no answer, and failing to write it
// costs the next call a read of the history.

// sessionsFile holds the kept answer, under .strom/run/: a header line, the
// history key and the count asked, then a line a session of its fields in a
// fixed order, each separated by a tab, with backslash, tab, line feed and
// carriage return escaped by a backslash (text of our own, read without
// reflection: encoding/json would cost the kept answer most of what it saves),
// and last a line of the CRC-32 of all before it. The file is written over in
// place, not replaced: a new file at every session would cost each first strom
// log after it a new inode and the flush ext4 starts when a file is renamed over
// another. A read that meets a write under way, or a file cut short, finds the
// CRC-32 wrong and reads the history.
const sessionsFile = "sessions.kept"

// keptSessionsHeader is the kept file's first line; another is no answer.
const keptSessionsHeader = "strom sessions kept 1"

// keptSessionsMax is the largest count whose answer is kept.
const keptSessionsMax = 200

// historyKey names the history Sessions reads from g: HEAD's commit and the
// stamp of a shallow clone's boundary file; "" when strom does not read HEAD
// from the ref files.
func historyKey(g *gitrepo.Repo, head string) string {
	if head == "" {
		return ""
	}
	key := head
	if fi, err := os.Stat(filepath.Join(g.CommonDir, "shallow")); err == nil {
		key += " shallow " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	}
	return key
}

// readKeptSessions reads the kept answer; false when there is none or it is not one.
func readKeptSessions(r *research.Research) (keptSessions, bool) {
	b, err := statefiles.ReadFile(r.Tree.Path(statefiles.RunDir, sessionsFile))
	if err != nil {
		return keptSessions{}, false
	}
	k, ok := decodeKeptSessions(b)
	return k, ok && len(k.entries) <= k.max
}

// serves reports whether the kept answer holds the first max sessions of its
// history: it was asked for at least max, or the history has fewer.
func (k keptSessions) serves(max int) bool {
	return max <= k.max || len(k.entries) < k.max
}

// first returns the kept answer's first max sessions.
func (k keptSessions) first(max int) []SessionEntry {
	if len(k.entries) > max {
		return k.entries[:max]
	}
	return k.entries
}

// keptSessionsFor answers Sessions for max from the kept answer: as it is, when it
// was read from the history key; or, when HEAD moved forward along a line of
// commits of one parent each from the kept HEAD (the commit of a session, or a
// few), with the sessions of those commits read and put before the kept ones,
// and kept so. False: the history is read.
func keptSessionsFor(ctx context.Context, r *research.Research, g *gitrepo.Repo, head, key string, max int) ([]SessionEntry, bool) {
	if key == "" || max <= 0 || max > keptSessionsMax {
		return nil, false
	}
	k, ok := readKeptSessions(r)
	if !ok || !k.serves(max) {
		return nil, false
	}
	if k.history == key {
		return k.first(max), true
	}
	// The same history but for HEAD: the key after the commit's name.
	keptHead, rest, _ := strings.Cut(k.history, " ")
	_, nowRest, _ := strings.Cut(key, " ")
	if rest != nowRest {
		return nil, false
	}
	newer, ok := g.LogSince(ctx, head, keptHead, gitrepo.LogOptions{Max: k.max, TrailerKey: research.TrailerSession})
	if !ok {
		return nil, false
	}
	entries := make([]SessionEntry, 0, min(k.max, len(newer)+len(k.entries)))
	for _, c := range newer {
		entries = append(entries, sessionEntry(c))
	}
	for _, e := range k.entries {
		if len(entries) == k.max {
			break
		}
		entries = append(entries, e)
	}
	keepSessions(r, key, k.max, entries)
	k.entries = entries
	return k.first(max), true
}

// keepSessions writes the answer for max sessions read from the history key.
func keepSessions(r *research.Research, key string, max int, entries []SessionEntry) {
	if key == "" || max <= 0 || max > keptSessionsMax || strings.ContainsAny(key, "\t\n\r\\") {
		return
	}
	b := encodeKeptSessions(keptSessions{history: key, max: max, entries: entries})
	_ = writeOver(r.Tree.Path(statefiles.RunDir, sessionsFile), b)
}

// writeOver writes b as the whole of the file at path, in place: over its bytes,
// then cut to b's length.
func writeOver(path string, b []byte) error {
	f, err := openWritable(path)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openWritable opens the file at path for writing in place, made when missing,
// and its folder only when that is missing too: the files strom writes over
// (the activity mark, the kept sessions) are written often.
func openWritable(path string) (*os.File, error) {
	f, err := statefiles.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err := statefiles.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err = statefiles.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	}
	return f, err
}

type keptSessions struct {
	history string // historyKey's
	max     int    // the count asked
	entries []SessionEntry
}

// keptFields is the number of fields of a session's line.
const keptFields = 12

func encodeKeptSessions(k keptSessions) []byte {
	b := make([]byte, 0, 64+len(k.entries)*160)
	b = append(b, keptSessionsHeader+"\n"...)
	b = appendKeptField(b, k.history)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(k.max), 10)
	b = append(b, '\n')
	for _, e := range k.entries {
		_, off := e.When.Zone()
		for i, f := range [...]string{e.Session, e.Task, e.End, e.Agent, e.Check, e.Host} {
			if i > 0 {
				b = append(b, '\t')
			}
			b = appendKeptField(b, f)
		}
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.When.Unix(), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(e.When.Nanosecond()), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(off), 10)
		b = append(b, '\t')
		b = appendKeptField(b, e.Subject)
		b = append(b, '\t')
		b = appendKeptField(b, e.Commit)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(e.Records), 10)
		b = append(b, '\n')
	}
	return appendKeptCRC(b)
}

// keptCRCLine is the last line's length: "crc " and eight hex digits.
const keptCRCLine = len("crc 01234567\n")

// appendKeptCRC appends the line of the CRC-32 (IEEE) of b.
func appendKeptCRC(b []byte) []byte {
	b = append(b, "crc "...)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.ChecksumIEEE(b[:len(b)-len("crc ")]))
	b = hex.AppendEncode(b, sum[:])
	return append(b, '\n')
}

// appendKeptField appends s with backslash, tab, line feed and carriage return
// escaped.
func appendKeptField(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}

// keptField reads a field appendKeptField wrote; false for an escape it does not
// write.
func keptField(f []byte) (string, bool) {
	if bytes.IndexByte(f, '\\') < 0 {
		return string(f), true
	}
	out := make([]byte, 0, len(f))
	for i := 0; i < len(f); i++ {
		if f[i] != '\\' {
			out = append(out, f[i])
			continue
		}
		if i++; i == len(f) {
			return "", false
		}
		switch f[i] {
		case '\\':
			out = append(out, '\\')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		default:
			return "", false
		}
	}
	return string(out), true
}

// keptInt reads a decimal integer field, with an optional minus sign.
func keptInt(f []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(f), 10, 64)
	return n, err == nil
}

// decodeKeptSessions reads a kept file; false for anything encodeKeptSessions
// does not write.
func decodeKeptSessions(b []byte) (keptSessions, bool) {
	var k keptSessions
	if len(b) < keptCRCLine {
		return k, false
	}
	body := b[:len(b)-keptCRCLine]
	if want := appendKeptCRC(slices.Clip(body)); !bytes.Equal(want[len(body):], b[len(body):]) {
		return k, false
	}
	line, rest, ok := bytes.Cut(body, []byte{'\n'})
	if !ok || string(line) != keptSessionsHeader {
		return k, false
	}
	if line, rest, ok = bytes.Cut(rest, []byte{'\n'}); !ok {
		return k, false
	}
	hist, max, ok := bytes.Cut(line, []byte{'\t'})
	if !ok {
		return k, false
	}
	n, okMax := keptInt(max)
	if k.history, ok = keptField(hist); !ok || !okMax || n <= 0 || n > keptSessionsMax {
		return k, false
	}
	k.max = int(n)
	k.entries = []SessionEntry{}
	for len(rest) > 0 {
		if line, rest, ok = bytes.Cut(rest, []byte{'\n'}); !ok {
			return k, false
		}
		var f [keptFields][]byte
		i := 0
		for ; i < keptFields; i++ {
			var more bool
			f[i], line, more = bytes.Cut(line, []byte{'\t'})
			if !more {
				break
			}
		}
		if i != keptFields-1 {
			return k, false
		}
		var e SessionEntry
		var text [8]string
		for j, at := range [...]int{0, 1, 2, 3, 4, 5, 9, 10} {
			if text[j], ok = keptField(f[at]); !ok {
				return k, false
			}
		}
		e.Session, e.Task, e.End, e.Agent, e.Check, e.Host, e.Subject, e.Commit = text[0], text[1], text[2], text[3], text[4], text[5], text[6], text[7]
		secs, ok1 := keptInt(f[6])
		nanos, ok2 := keptInt(f[7])
		off, ok3 := keptInt(f[8])
		recs, ok4 := keptInt(f[11])
		if !ok1 || !ok2 || !ok3 || !ok4 || nanos < 0 || nanos >= 1e9 || off <= -1<<31 || off >= 1<<31 {
			return k, false
		}
		e.When = time.Unix(secs, nanos).In(time.FixedZone("", int(off)))
		e.Records = int(recs)
		k.entries = append(k.entries, e)
	}
	return k, true
}
