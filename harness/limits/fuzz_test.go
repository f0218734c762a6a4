package limits

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The seed corpus of these targets, under testdata/fuzz, holds the agents' real
// screens and lines (../../shared/reference, copied to testdata/).

var fuzzNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// FuzzMatch: for every agent, a limit or login message found in any text is of a
// known kind, is text a person can read, and is found again in itself; its reset
// time, if any, reads without panicking.
func FuzzMatch(f *testing.F) {
	f.Add("You've hit your session limit · resets 8:30am (America/Los_Angeles)")
	f.Add("Not logged in · Please run /login")
	f.Fuzz(func(t *testing.T, text string) {
		for _, agent := range Agents() {
			p := Defaults(agent)
			sig, ok := p.Match(text)
			if !ok {
				continue
			}
			if sig.Kind != Limit && sig.Kind != Login {
				t.Fatalf("%s: signal of kind %d in %q", agent, sig.Kind, text)
			}
			if strings.TrimSpace(sig.Text) == "" || !utf8.ValidString(sig.Text) {
				t.Fatalf("%s: signal text %q is no text for a person (from %q)", agent, sig.Text, text)
			}
			again, ok := p.Match(sig.Text)
			if !ok || again.Kind != sig.Kind {
				t.Fatalf("%s: the matched text %q is not matched again (%v, %v)", agent, sig.Text, again, ok)
			}
			if sig.Reset != "" {
				ParseReset(sig.Reset, fuzzNow, time.UTC)
			}
		}
	})
}

// FuzzMessageLine: a JSON chat line gives a signal only for an assistant's message,
// and then the same signal as its content does.
func FuzzMessageLine(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","content":"Sorry, I encountered an error: Grok API error: 429 You have run out of credits"}`))
	f.Add([]byte(`{"role":"tool","content":"You've hit your usage limit"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, agent := range Agents() {
			p := Defaults(agent)
			sig, ok := p.MatchMessageLine(line)
			if !ok {
				continue
			}
			var m struct{ Role, Content string }
			if err := json.Unmarshal(line, &m); err != nil || m.Role != "assistant" {
				t.Fatalf("%s: a signal from %q, which is no assistant message (%v)", agent, line, err)
			}
			if want, _ := p.Match(m.Content); want != sig {
				t.Fatalf("%s: line gives %+v, its content %+v", agent, sig, want)
			}
		}
	})
}

// FuzzStreamJSON: a stream-json line gives a signal only when it is one JSON
// object, with either the agent's words or strom's own account of them; a
// rate_limit_event is a Limit exactly when its status is "rejected".
func FuzzStreamJSON(f *testing.F) {
	f.Add([]byte(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1774447200,"rateLimitType":"five_hour"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		sig, ok := ParseStreamJSON(line)
		if ok {
			if sig.Kind != Limit && sig.Kind != Login || sig.Agent == "" || (sig.Text == "") == (sig.Own == "") || (sig.Window != "") != (sig.Own == OwnWindow) {
				t.Fatalf("signal %+v from %q", sig, line)
			}
			var obj map[string]any
			if json.Unmarshal(line, &obj) != nil {
				t.Fatalf("signal %+v from %q, which is no JSON object", sig, line)
			}
			if sig.Reset != "" {
				ParseReset(sig.Reset, fuzzNow, time.UTC)
			}
		}
		u, isEvent := ParseRateLimitEvent(line)
		if isEvent {
			if rejected := u.Status == "rejected"; rejected != (ok && sig.Kind == Limit) {
				t.Fatalf("rate_limit_event status %q, signal %+v (%v)", u.Status, sig, ok)
			}
			if u.HasUtilization != strings.Contains(string(line), `"utilization"`) && u.HasUtilization {
				t.Fatalf("utilization read from %q, which has none", line)
			}
		}
	})
}

// FuzzParseReset: any text reads as a reset time or not, without panicking, and the
// same way twice.
func FuzzParseReset(f *testing.F) {
	for _, s := range []string{"5pm", "4:50am", "3:28 PM", "14:30", "Oct 24", "Sep 28th, 2026 2:14 AM", "Dec 2, 7pm", "Sep 15 at 7pm (America/Detroit)",
		"in 5 days 22 hours 11 minutes", "after 5s", "1h30m", "Claude AI usage limit reached|1760004000", "2026-12-01T10:00:00Z",
		"Your limit will reset at 5pm (Europe/Warsaw).", "resets 11:00 PM Mon Nov 30 (America/Anchorage)"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, raw string, offset int64) {
		now := fuzzNow.Add(time.Duration(offset%(400*24*3600)) * time.Second)
		got, ok := ParseReset(raw, now, time.UTC)
		again, ok2 := ParseReset(raw, now, time.UTC)
		if ok != ok2 || !got.Equal(again) {
			t.Fatalf("ParseReset(%q) gave %v %v, then %v %v", raw, got, ok, again, ok2)
		}
		if !ok && !got.IsZero() {
			t.Fatalf("ParseReset(%q) failed but gave %v", raw, got)
		}
	})
}

// FuzzDescribeReset: what DescribeReset writes, ParseReset reads back as the same
// minute, in every zone and for resets up to a year ahead.
func FuzzDescribeReset(f *testing.F) {
	f.Add(uint32(0), uint8(0))
	f.Add(uint32(60*24*200+37), uint8(1))
	f.Add(uint32(14*60+59), uint8(3))
	zones := []string{"UTC", "Europe/Warsaw", "America/Anchorage", "Asia/Kolkata", "Australia/Lord_Howe", "America/Sao_Paulo"}
	f.Fuzz(func(t *testing.T, minutes uint32, zone uint8) {
		loc, err := time.LoadLocation(zones[int(zone)%len(zones)])
		if err != nil {
			t.Fatal(err)
		}
		now := fuzzNow.In(loc)
		reset := now.Add(time.Duration(minutes%(330*24*60)) * time.Minute).Truncate(time.Minute) // at most 335 days ahead: further is a date that went by (stalePast)
		text := DescribeReset(reset, loc)
		got, ok := ParseReset(text, now, time.UTC)
		if !ok {
			t.Fatalf("ParseReset(%q) failed (now %v)", text, now)
		}
		// A local time that happens twice (clocks set back) reads as one of the two.
		if !got.Equal(reset) && DescribeReset(got, loc) != text {
			t.Fatalf("ParseReset(%q) = %v, want %v", text, got, reset)
		}
	})
}

// FuzzScreen: a screen that waits for a person comes with its advice.
func FuzzScreen(f *testing.F) {
	f.Add("Trust this folder? Codex can read, edit, and run files here")
	f.Fuzz(func(t *testing.T, text string) {
		for name, read := range map[string]func(string) (Screen, bool){"claude": ClaudeScreen, "codex": CodexScreen} {
			scr, ok := read(text)
			if ok && (scr.Kind == 0 || scr.Advice == "" || !utf8.ValidString(scr.Advice)) {
				t.Fatalf("%s: screen %+v from %q", name, scr, text)
			}
		}
	})
}

// FuzzStripVT: the text is UTF-8, no escape or control character survives but the
// line break, and stripping twice changes nothing more.
func FuzzStripVT(f *testing.F) {
	f.Add("\x1b[2J\x1b[1;1HHello\x1b[1Cworld\r\n\x1b[?2004h")
	f.Fuzz(func(t *testing.T, s string) {
		out := StripVT(s)
		if !utf8.ValidString(out) {
			t.Fatalf("StripVT(%q) = %q is not UTF-8", s, out)
		}
		for _, c := range []byte(out) {
			if c < 0x20 && c != '\n' || c == 0x7f {
				t.Fatalf("StripVT(%q) = %q keeps control byte %#x", s, out, c)
			}
		}
		if twice := StripVT(out); twice != out {
			t.Fatalf("StripVT(%q) = %q, and again %q", s, out, twice)
		}
	})
}
