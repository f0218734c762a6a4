package gitrepo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// seedMessages are commit messages as strom writes them and as people and other
// tools do.
var seedMessages = []string{
	"strom: T-12 Find the baptism of Anna Novak — time limit\n\nSearched register 12.\n\nStrom-Session: 20261130T091204Z-4f2a\nStrom-Task: T-12\nStrom-End: time-limit\nStrom-Agent: claude\n",
	"s\n\nA: one\n  two\n\tthree\nB: 4\n",
	"s\n\nA: 1\nplain\nplain2\nSigned-off-by: X <x@y>\n",
	"s\n\nA: 1\n# ------------------------ >8 ------------------------\nB: 2\n",
	"s\n\nA: 1\n\nConflicts:\n\tf.txt\n",
	"Key: value\n",
	"line one\r\n\r\nNote: y\r\n",
}

// FuzzParseMessage: ParseMessage reads the trailers of any message exactly as
// `git interpret-trailers --parse` does, and its parts are what its doc says: a
// subject on one line, keys of the trailer alphabet, unfolded values.
func FuzzParseMessage(f *testing.F) {
	for _, s := range seedMessages {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		m := ParseMessage(raw)
		if strings.Contains(m.Subject, "\n") {
			t.Fatalf("subject %q spans lines", m.Subject)
		}
		for _, tr := range m.Trailers {
			if separator(tr.Key+":") < 1 || strings.ContainsAny(tr.Value, "\n") {
				t.Fatalf("trailer %q: %q is not a trailer git would read", tr.Key, tr.Value)
			}
		}
		if strings.ContainsRune(raw, 0) {
			return // git reads a message up to its first NUL
		}
		want := parsedTrailers(t, raw, "--no-divider")
		if !cmp.Equal(m.Trailers, want, cmpopts.EquateEmpty()) {
			t.Fatalf("ParseMessage trailers = %q, git = %q for\n%q", m.Trailers, want, raw)
		}
	})
}

// FuzzMessageString: a message that passes Validate, written by String, reads back
// with exactly its trailers, both by ParseMessage and by git.
func FuzzMessageString(f *testing.F) {
	for name, body := range trickyBodies {
		f.Add("strom: T-1 "+name+" — done", body, "Strom-End", "done", "Strom-Task", "T-1")
	}
	f.Add("---", "# c\n---\n", "a", "b\n c", "Signed-off-by", "X <x@y>")
	f.Fuzz(func(t *testing.T, subject, body, k1, v1, k2, v2 string) {
		m := Message{Subject: subject, Body: body, Trailers: []Trailer{{k1, v1}, {k2, v2}}}
		if m.Validate() != nil || strings.ContainsRune(m.String(), 0) {
			return
		}
		s := m.String()
		want := []Trailer{{k1, valueLine(v1)}, {k2, valueLine(v2)}}
		if got := ParseMessage(s).Trailers; !cmp.Equal(got, want) {
			t.Fatalf("ParseMessage trailers = %q, want %q from\n%q", got, want, s)
		}
		if got := parsedTrailers(t, s); !cmp.Equal(got, want) {
			t.Fatalf("git interpret-trailers --parse = %q, want %q from\n%q", got, want, s)
		}
		if subj := subjectLine(subject); escapeLine(subj) == subj {
			if got := ParseMessage(s).Subject; got != subj {
				t.Fatalf("subject %q read back as %q from\n%q", subj, got, s)
			}
		}
	})
}
