package gitrepo

import (
	"fmt"
	"strings"
)

// Trailer is one "Key: value" line of a commit message's trailer block.
type Trailer struct{ Key, Value string }

// Message is a commit message: a one-line subject, a free-form body and a trailer
// block.
type Message struct {
	Subject  string
	Body     string
	Trailers []Trailer
}

// Validate reports whether String can write m so that its trailers read back
// exactly: a non-empty subject, trailer keys of letters, digits and dashes, and
// non-empty values.
func (m Message) Validate() error {
	if subjectLine(m.Subject) == "" {
		return fmt.Errorf("check message: the subject is empty: %w", ErrBadMessage)
	}
	for _, t := range m.Trailers {
		if !isTrailerKey(t.Key) {
			return fmt.Errorf("check message: trailer key %q is not letters, digits and dashes: %w", t.Key, ErrBadMessage)
		}
		if valueLine(t.Value) == "" {
			return fmt.Errorf("check message: trailer %s has an empty value: %w", t.Key, ErrBadMessage)
		}
	}
	return nil
}

// String writes the message as git stores it: the subject, a blank line, the body (if
// any), a blank line and the trailers, one "Key: value" a line. The last paragraph is
// the trailers and nothing else, so `git interpret-trailers --parse` reads back exactly
// m.Trailers (for a Message that passes Validate).
//
// To keep that promise the text is normalised the way git's own clean-up would: line
// breaks in the subject and in trailer values become spaces, trailing white space and
// runs of blank lines in the body are dropped. A body line that git would take for
// the start of a patch ("---") or for the scissors line gets one leading space. A
// message without trailers whose body ends in lines that look like trailers gets
// that last paragraph indented by four spaces, so that it stays body.
func (m Message) String() string {
	var b strings.Builder
	b.WriteString(escapeLine(subjectLine(m.Subject)))
	b.WriteByte('\n')
	body := bodyLines(m.Body)
	if len(m.Trailers) == 0 && len(body) > 0 {
		probe := b.String() + "\n" + strings.Join(body, "\n") + "\n"
		if _, _, found := trailerBlock(splitLines(probe), true); found {
			for i := len(body) - 1; i >= 0 && body[i] != ""; i-- {
				body[i] = "    " + body[i]
			}
		}
	}
	if len(body) > 0 {
		b.WriteByte('\n')
		for _, l := range body {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if len(m.Trailers) > 0 {
		b.WriteByte('\n')
		for _, t := range m.Trailers {
			b.WriteString(strings.TrimSpace(t.Key))
			b.WriteString(": ")
			b.WriteString(valueLine(t.Value))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// ParseMessage splits a raw commit message by git's rules. The subject is the first
// paragraph, its lines joined by spaces (git's %s). The trailers are the last
// paragraph when git would read it as trailers: every line is "Key: value" (or a
// continuation line, which is unfolded into the value above it), or at least a
// quarter of its lines are trailers and one of them is git-generated
// (Signed-off-by, "(cherry picked from commit"). Lines of such a block that are not
// trailers are dropped, as `git interpret-trailers --parse` drops them. The body is
// what lies between, without leading and trailing blank lines.
func ParseMessage(raw string) Message {
	lines := splitLines(raw)
	var m Message
	title := firstBlank(lines)
	subj := make([]string, 0, 1)
	for _, l := range lines[:title] {
		subj = append(subj, strings.TrimRight(l, spaces))
	}
	m.Subject = strings.Join(subj, " ")
	bodyEnd := len(lines)
	if start, end, ok := trailerBlock(lines, strings.HasSuffix(raw, "\n")); ok {
		bodyEnd = start
		m.Trailers = parseTrailers(lines[start:end])
	}
	if title+1 < bodyEnd {
		body := lines[title+1 : bodyEnd]
		for len(body) > 0 && isBlank(body[0]) {
			body = body[1:]
		}
		for len(body) > 0 && isBlank(body[len(body)-1]) {
			body = body[:len(body)-1]
		}
		m.Body = strings.Join(body, "\n")
	}
	return m
}

// Trailer returns the value of the first trailer with the key (compared as git does,
// ignoring case) and whether there is one.
func (m Message) Trailer(key string) (string, bool) {
	for _, t := range m.Trailers {
		if strings.EqualFold(t.Key, key) {
			return t.Value, true
		}
	}
	return "", false
}

// spaces are the bytes git's own isspace accepts (git-compat-util.h: space, tab, line
// feed, carriage return; not C's \v and \f), which its trailer code uses throughout.
const spaces = " \t\n\r"

func isSpace(c byte) bool { return strings.IndexByte(spaces, c) >= 0 }

func isBlank(l string) bool { return strings.Trim(l, spaces) == "" }

// splitLines splits a message into lines without their newlines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// firstBlank is the index of the first blank line: the end of the title paragraph.
func firstBlank(lines []string) int {
	for i, l := range lines {
		if isBlank(l) {
			return i
		}
	}
	return len(lines)
}

const scissors = " ------------------------ >8 ------------------------"

// trailerBlock finds the trailer block as git's trailer.c does for a commit message
// (find_trailer_start and ignored_log_message_bytes, without the patch divider): lines
// [start, end) are trailers when found is true. ended says whether the last line
// ended with a line feed: git's "Conflicts:" line is one that does.
func trailerBlock(lines []string, ended bool) (start, end int, found bool) {
	// Ignore the tail git ignores: everything from a scissors line on, trailing
	// comment and empty lines, and an old-style "Conflicts:" block.
	cutoff := len(lines)
	for i, l := range lines {
		if l == "#"+scissors {
			cutoff = i
			break
		}
	}
	// boc is the first line of the trailing run; as in git, where offset 0 stands for
	// "none", a run that starts on the first line is no run.
	boc, inConflicts := -1, false
	for i := 0; i < cutoff; i++ {
		l := lines[i]
		switch {
		case l == "" || l[0] == '#':
			if boc < 0 && i > 0 {
				boc = i
			}
		case l == "Conflicts:" && (i < len(lines)-1 || ended):
			inConflicts = true
			if boc < 0 && i > 0 {
				boc = i
			}
		case inConflicts && l[0] == '\t':
		case boc >= 0:
			boc, inConflicts = -1, false
		}
	}
	end = cutoff
	if boc >= 0 {
		end = boc
	}

	// The first paragraph is the title and is never trailers.
	title := firstBlank(lines[:end])
	onlySpaces, recognized := true, false
	trailers, nonTrailers, maybeCont := 0, 0, 0
	for i := end - 1; i >= title; i-- {
		l := lines[i]
		if len(l) > 0 && l[0] == '#' {
			nonTrailers += maybeCont
			maybeCont = 0
			continue
		}
		if isBlank(l) {
			if onlySpaces {
				continue
			}
			nonTrailers += maybeCont
			if (recognized && trailers*3 >= nonTrailers) || (trailers > 0 && nonTrailers == 0) {
				return i + 1, end, true
			}
			return 0, 0, false
		}
		onlySpaces = false
		if strings.HasPrefix(l, "Signed-off-by: ") || strings.HasPrefix(l, "(cherry picked from commit ") {
			trailers++
			maybeCont = 0
			recognized = true
			continue
		}
		switch {
		case separator(l) >= 1 && !isSpace(l[0]):
			trailers++
			maybeCont = 0
		case isSpace(l[0]):
			maybeCont++
		default:
			nonTrailers += 1 + maybeCont
			maybeCont = 0
		}
	}
	return 0, 0, false
}

// separator is git's find_separator for the ':' separator: the index of the colon
// after a token of letters, digits and dashes (white space may follow the token), or
// -1.
func separator(l string) int {
	ws := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c == ':' {
			return i
		}
		if !ws && (isAlnum(c) || c == '-') {
			continue
		}
		if i != 0 && (c == ' ' || c == '\t') {
			ws = true
			continue
		}
		break
	}
	return -1
}

// isTrailerKey reports whether key is a trailer key strom writes and greps for:
// a letter or digit, then letters, digits and dashes.
func isTrailerKey(key string) bool {
	if key == "" || !isAlnum(key[0]) {
		return false
	}
	for i := 1; i < len(key); i++ {
		if !isAlnum(key[i]) && key[i] != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parseTrailers reads a trailer block as `git interpret-trailers --parse` does:
// continuation lines join the trailer above, comment lines and non-trailer lines are
// dropped, keys and values are trimmed and values unfolded.
func parseTrailers(block []string) []Trailer {
	var items []string
	last := false
	for _, l := range block {
		if last && len(l) > 0 && isSpace(l[0]) {
			items[len(items)-1] += "\n" + l
			continue
		}
		items = append(items, l)
		last = separator(l) >= 1
	}
	var out []Trailer
	for _, it := range items {
		if len(it) > 0 && it[0] == '#' {
			continue
		}
		if p := separator(it); p >= 1 {
			out = append(out, Trailer{
				Key:   strings.Trim(it[:p], spaces),
				Value: unfold(it[p+1:]),
			})
		}
	}
	return out
}

// unfold is git's unfold_value: every line feed with the white space after it
// becomes one space, and the ends are trimmed. A carriage return inside a value
// stays, as it does for git.
func unfold(v string) string {
	v = strings.Trim(v, spaces)
	if !strings.Contains(v, "\n") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\n' {
			for i+1 < len(v) && isSpace(v[i+1]) {
				i++
			}
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(c)
	}
	return strings.Trim(b.String(), spaces)
}

// valueLine is a trailer value as String writes it: unfolded, and with any carriage
// return a space, so that the value is one line in every reader.
func valueLine(v string) string {
	return unfold(strings.ReplaceAll(v, "\r", " "))
}

// subjectLine folds a subject onto one line.
func subjectLine(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ").Replace(s)), " ")
}

// bodyLines normalises a body as git's whitespace clean-up would and escapes lines
// git would read as a patch divider or a scissors line.
func bodyLines(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	var out []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimRight(l, spaces)
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, escapeLine(l))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// escapeLine indents by one space a line that `git interpret-trailers` would take for
// the "---" divider before a patch, or for the scissors line, either of which hides
// the trailers after it.
func escapeLine(l string) string {
	if strings.HasPrefix(l, "---") && (len(l) == 3 || isSpace(l[3])) {
		return " " + l
	}
	if len(l) > 0 && l[1:] == scissors {
		return " " + l
	}
	return l
}
