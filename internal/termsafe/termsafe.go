// Package termsafe keeps text from driving a terminal: control characters in task
// titles, texts and records (which an agent may have written) are shown as escapes
// instead of reaching the terminal raw. It guarantees that what String and Writer
// write holds no C0 control character but newline, tab and the carriage return of a
// "\r\n", no DEL, no C1 control, no directional override, embedding or isolate and
// no byte that is not UTF-8; what Line and Excerpt return holds none of those and no
// newline, tab, carriage return, line or paragraph separator either,
// so outside text put on a line of strom's stays on that one line.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// String returns s with every control character shown as an escape: ESC as \x1b,
// BEL as \x07, a lone CR as \r, DEL and the C1 controls as \u007f and \u009b, the
// directional overrides, embeddings and isolates as \u202e, an invalid byte as \xff. encoding/json escapes the C0 controls itself and leaves DEL
// and C1 raw, so JSON output stays valid JSON.
func String(s string) string {
	if clean(s) {
		return s
	}
	return escape(s, false)
}

// Line returns s on one line, for a line strom prints or commits that carries
// outside text (a title, a record, a reason, a question): every control character
// is shown as String shows it, and so are newline, tab and carriage return, as \n,
// \t and \r, and the line and paragraph separators, as \u2028 and \u2029. A title cannot then begin a line of its own that looks like one of
// strom's.
func Line(s string) string {
	if oneLine(s) {
		return s
	}
	return escape(s, true)
}

// escape shows every control character of s as an escape; newline, tab and the
// CR of a "\r\n" too when line is true.
func escape(s string, line bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !line && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case !line && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x7f || (r >= 0x80 && r < 0xa0) || bidi(r) || line && separator(r):
			// As \u escapes these read the same inside a JSON string, which
			// encoding/json leaves them raw in.
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ExcerptMax is the most characters of a value a sentence repeats: a bad value of
// 120 KB is named by its start, not printed whole.
const ExcerptMax = 200

// Excerpt is a value as a sentence that refuses it repeats it: its first
// ExcerptMax characters (a byte that is not UTF-8 counts as one) on one line as
// Line shows them, and "…" when there was more.
func Excerpt(s string) string {
	if len(s) <= ExcerptMax {
		return Line(s)
	}
	n := 0
	for i := range s {
		if n == ExcerptMax {
			return Line(s[:i]) + "…"
		}
		n++
	}
	return Line(s)
}

// oneLine reports whether Line would return s as it is, without allocating.
func oneLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || bidi(r) || separator(r) {
			return false
		}
	}
	return true
}

// bidi reports whether r is one of Unicode's explicit directional embeddings,
// overrides and isolates (U+202A to U+202E, U+2066 to U+2069): shown raw, they
// reorder the text after them on the terminal's line, so that a title can make
// the words of strom's line read otherwise. The marks U+200E and U+200F, which
// right-to-left text uses and which reorder nothing by themselves, stay.
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// separator reports whether r is Unicode's line or paragraph separator (U+2028,
// U+2029), which some terminals and viewers break a line at.
func separator(r rune) bool {
	return r == 0x2028 || r == 0x2029
}

// clean reports whether s needs no escape, without allocating.
func clean(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return false
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || bidi(r):
			return false
		}
	}
	return true
}

// Writer returns a writer that passes each write through String. Every write is
// taken whole: a rune split across two writes shows as escapes.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (t writer) Write(p []byte) (int, error) {
	s := string(p)
	if clean(s) {
		return t.w.Write(p)
	}
	if _, err := io.WriteString(t.w, String(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
