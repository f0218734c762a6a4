package gitrepo

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// trickyBodies are session records that look like trailers, dividers or comments.
var trickyBodies = map[string]string{
	"empty":              "",
	"plain":              "Searched the 1880–1890 registers.",
	"last line trailer":  "Searched the registers.\nNote: x",
	"only trailers":      "Note: x\nSigned-off-by: Someone <s@example.org>",
	"blank lines":        "First record.\n\n\n\nNote: x\n\n",
	"trailing spaces":    "a   \n  \n\t\nStrom-End: done   ",
	"divider":            "before\n---\nafter: yes",
	"divider with text":  "--- a/file\n+++ b/file",
	"scissors":           "a\n# ------------------------ >8 ------------------------\nb: c",
	"comments":           "# heading\nKey: v\n# trailing comment",
	"cherry":             "(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)",
	"continuation":       "Key: v\n  continued\nOther: w",
	"conflicts block":    "text\n\nConflicts:\n\tfile.txt",
	"crlf":               "line one\r\nNote: y\r\n",
	"indented":           "    code: block\n\tmore: tabs",
	"subject-like":       "strom: T-1 something — done",
	"many paragraphs":    "one\n\ntwo: 2\n\nthree: 3\nfour: 4",
	"unicode":            "Zápis: matrika farnosti Nový Jičín\nÜbersicht: Taufbuch",
	"colon first":        ": value\nKey:",
	"signed-off mixture": "not a trailer line\nSigned-off-by: A <a@b>\nalso not\nnor this",
}

func TestMessageStringTrailersReadBack(t *testing.T) {
	t.Parallel()
	for name, body := range trickyBodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := sessionMessage(body)
			s := m.String()
			if got := parsedTrailers(t, s); !cmp.Equal(got, m.Trailers) {
				t.Errorf("git interpret-trailers --parse read %v from\n%s", got, s)
			}
			if got := ParseMessage(s); !cmp.Equal(got.Trailers, m.Trailers) || got.Subject != m.Subject {
				t.Errorf("ParseMessage = %+v from\n%s", got, s)
			}
		})
	}
}

func TestMessageStringWithoutTrailers(t *testing.T) {
	t.Parallel()
	for name, body := range trickyBodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := Message{Subject: "a subject", Body: body}
			s := m.String()
			if got := parsedTrailers(t, s); len(got) != 0 {
				t.Errorf("git read trailers %v from a message without trailers:\n%s", got, s)
			}
			if got := ParseMessage(s); len(got.Trailers) != 0 {
				t.Errorf("ParseMessage read trailers %v from\n%s", got.Trailers, s)
			}
		})
	}
}

func TestMessageRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Message
		want Message // after String and ParseMessage
	}{
		{"simple", sessionMessage("Found the record.\nNote: x"), sessionMessage("Found the record.\nNote: x")},
		{"no body", sessionMessage(""), sessionMessage("")},
		{
			"normalised",
			Message{Subject: " two\nlines ", Body: "\n\na  \n\n\n b\n\n", Trailers: []Trailer{{"K", " v\n  w "}}},
			Message{Subject: "two lines", Body: "a\n\n b", Trailers: []Trailer{{"K", "v w"}}},
		},
		{
			"divider escaped",
			Message{Subject: "s", Body: "---\nx", Trailers: []Trailer{{"K", "v"}}},
			Message{Subject: "s", Body: " ---\nx", Trailers: []Trailer{{"K", "v"}}},
		},
		{
			"trailer-like body without trailers is indented",
			Message{Subject: "s", Body: "text\n\nNote: x"},
			Message{Subject: "s", Body: "text\n\n    Note: x"},
		},
		{
			"check trailer with colon in value",
			Message{Subject: "s", Trailers: []Trailer{{"Strom-End", "time-limit"}, {"Strom-Check", "failed: go test exited 1"}}},
			Message{Subject: "s", Trailers: []Trailer{{"Strom-End", "time-limit"}, {"Strom-Check", "failed: go test exited 1"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseMessage(tt.in.String())
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\nmessage:\n%s", diff, tt.in.String())
			}
		})
	}
}

// TestParseMessageMatchesGit holds ParseMessage to git's own trailer parser on raw
// messages that String would never write.
func TestParseMessageMatchesGit(t *testing.T) {
	t.Parallel()
	raws := map[string]string{
		"subject only":           "subject\n",
		"trailer as title":       "Key: value\n",
		"simple":                 "s\n\nbody\n\nA: 1\nB-2: two\n",
		"no newline at end":      "s\n\nA: 1",
		"continuation":           "s\n\nA: one\n  two\n\tthree\nB: 4\n",
		"spaces around colon":    "s\n\nKey : v\nKey2:v2\n",
		"not all trailers":       "s\n\nA: 1\nplain text\n",
		"signed-off 25%":         "s\n\nA: 1\nplain\nplain2\nSigned-off-by: X <x@y>\n",
		"signed-off under 25%":   "s\n\nplain\nplain2\nplain3\nplain4\nSigned-off-by: X <x@y>\n",
		"cherry-picked":          "s\n\ntext\n(cherry picked from commit abc)\n",
		"trailing comments":      "s\n\nA: 1\n# comment\n\n# more\n",
		"comment inside":         "s\n\nA: 1\n# c\nB: 2\n",
		"trailing blank spaces":  "s\n\nA: 1\n   \n",
		"conflicts block":        "s\n\nA: 1\n\nConflicts:\n\tf.txt\n",
		"scissors":               "s\n\nA: 1\n# ------------------------ >8 ------------------------\nB: 2\n",
		"indented first":         "s\n\n  A: 1\nB: 2\n",
		"url value":              "s\n\nSee: https://example.org/x\n",
		"empty value":            "s\n\nA:\nB: 2\n",
		"multi-line subject":     "s1\ns2\n\nA: 1\n",
		"leading blank":          "\n\nA: 1\n",
		"tab after key":          "s\n\nKey\t: v\n",
		"bad key":                "s\n\nKey with space: v\n",
		"colon in key position":  "s\n\n:x\n",
		"two trailer paragraphs": "s\n\nA: 1\n\nB: 2\n",
		// Found by FuzzParseMessage: git keeps a carriage return inside a value, and
		// its isspace is not C's (a form feed is no space).
		"carriage return inside": "s\n\nA: 1\r2\n",
		"form feed":              "s\n\nA:\f1\nB: 2\f\n",
		"vertical tab line":      "s\n\nA: 1\n\v\nB: 2\n",
		// Found by FuzzParseMessage: "Conflicts:" starts git's old conflicts block
		// only as a whole line, and a run of comments on the first line is none.
		"conflicts without newline": "\nConflicts:",
		"comment first":             "# c\n\nA: 1\n",
		"blank first, comment":      "\n# c\nA: 1\n",
	}
	for name, raw := range raws {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := parsedTrailers(t, raw, "--no-divider")
			got := ParseMessage(raw).Trailers
			if !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
				t.Errorf("ParseMessage trailers = %q, git = %q for\n%s", got, want, raw)
			}
		})
	}
}

func TestParseMessageSubjectBody(t *testing.T) {
	t.Parallel()
	got := ParseMessage("first\nsecond  \n\n\nbody 1\n\nbody 2\n\nA: 1\n")
	want := Message{Subject: "first second", Body: "body 1\n\nbody 2", Trailers: []Trailer{{"A", "1"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	if v, ok := got.Trailer("a"); !ok || v != "1" {
		t.Errorf("Trailer(a) = %q, %v", v, ok)
	}
}

func TestMessageValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Message
		ok   bool
	}{
		{"session", sessionMessage("x"), true},
		{"empty subject", Message{Subject: " \n", Trailers: []Trailer{{"A", "1"}}}, false},
		{"key with space", Message{Subject: "s", Trailers: []Trailer{{"Strom Task", "1"}}}, false},
		{"key with colon", Message{Subject: "s", Trailers: []Trailer{{"A:", "1"}}}, false},
		{"key starting with a dash", Message{Subject: "s", Trailers: []Trailer{{"-A", "1"}}}, false},
		{"empty key", Message{Subject: "s", Trailers: []Trailer{{"", "1"}}}, false},
		{"key of digits and dashes", Message{Subject: "s", Trailers: []Trailer{{"9-a-B", "1"}}}, true},
		{"empty value", Message{Subject: "s", Trailers: []Trailer{{"A", " \n "}}}, false},
		{"no trailers", Message{Subject: "s"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.m.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && (!errors.Is(err, ErrBadMessage) || strings.Contains(err.Error(), "failed to")) {
				t.Errorf("error %q does not wrap ErrBadMessage", err)
			}
		})
	}
}
