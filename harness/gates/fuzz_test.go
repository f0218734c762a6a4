package gates

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzAnswer: a gate program's output is one answer strom acts on, or ErrBadAnswer
// with one line naming what was read. An accepted answer has a verdict, a reason on
// one line, a wait within 30 days, and reads back the same when written as JSON.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"verdict":"go","reason":"fine"}`,
		`{"verdict":"wait","reason":"week 43% used, 40% passed","retry_after_s":900.5}`,
		`{"verdict":"stop","reason":"cap","hard":true,"watch":{"week_finish_at":95}}`,
		`{"verdict":"go","reason":"x","limits":{"week":{"used":12}}}` + "\n",
		`{"verdict":"go"} {"verdict":"stop"}`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		a, err := decodeAnswer(out)
		if err != nil {
			if !errors.Is(err, ErrBadAnswer) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("decodeAnswer(%q): error %q", out, err)
			}
			return
		}
		switch {
		case a.Verdict != Go && a.Verdict != Wait && a.Verdict != Stop,
			a.Reason == "", strings.ContainsAny(a.Reason, "\n\r\t"),
			a.RetryAfter() < 0, a.RetryAfter().Hours() > 30*24+1:
			t.Fatalf("decodeAnswer(%q) = %+v", out, a)
		}
		again, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("write answer %+v: %v", a, err)
		}
		back, err := decodeAnswer(again)
		if err != nil {
			t.Fatalf("answer %+v written as %s does not read back: %v", a, again, err)
		}
		if diff := cmp.Diff(a, back, cmp.Comparer(func(x, y json.RawMessage) bool { return jsonEqual(x, y) })); diff != "" {
			t.Fatalf("answer read back differs (-first +again):\n%s", diff)
		}
	})
}

func jsonEqual(x, y json.RawMessage) bool {
	if len(x) == 0 || len(y) == 0 {
		return len(x) == len(y)
	}
	var a, b any
	return json.Unmarshal(x, &a) == nil && json.Unmarshal(y, &b) == nil && cmp.Equal(a, b)
}

// FuzzSpec: a run.gate setting reads as a gate's name and words, or as ErrBadSpec
// or a quote left open; what String writes reads back the same.
func FuzzSpec(f *testing.F) {
	for _, s := range []string{"claude-usage 10 --cap 95", "./gate.sh", "my-gate 'two words' x", "Claude", `g "a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			return
		}
		if !isGateName(spec.Name) {
			t.Fatalf("ParseSpec(%q) = %+v: not a gate name", s, spec)
		}
		back, err := ParseSpec(spec.String())
		if err != nil || !cmp.Equal(back, spec, cmp.Comparer(func(a, b []string) bool {
			return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
		})) {
			t.Fatalf("ParseSpec(%q) = %+v, written %q, read back %+v, %v", s, spec, spec.String(), back, err)
		}
	})
}
