// Package termsafe keeps text from driving a terminal: control characters in task
// titles, texts and records (which an agent may have written) are shown as escapes
// instead of reaching the terminal raw. It guarantees that what it writes holds no
// C0 control character but newline, tab and the carriage return of a "\r\n", no
// DEL, no C1 control and no byte that is not UTF-8.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// String returns s with every control character shown as an escape: ESC as \x1b,
// BEL as \x07, a lone CR as \r, DEL and the C1 controls as \u007f and \u009b, an
// invalid byte as \xff. encoding/json escapes the C0 controls itself and leaves DEL
// and C1 raw, so JSON output stays valid JSON.
func String(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x7f || (r >= 0x80 && r < 0xa0):
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
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
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
