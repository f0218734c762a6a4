package claudeusage

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// The seed corpus under testdata/fuzz holds the /usage screens, statusLine input
// and get_usage answers recorded from Claude Code (../../../shared/reference).

var fuzzNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// sane checks what every reader promises of a reading it accepts, and that the
// pacing decision takes it: a verdict, a reason, a wait that is not negative.
func sane(t *testing.T, u Usage, source string, input any) {
	t.Helper()
	if u.Source != source || !u.At.Equal(fuzzNow) {
		t.Fatalf("reading %+v of %q: source or time wrong", u, input)
	}
	for _, v := range []float64{u.WeekUsed, u.FiveHourUsed} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("reading %+v of %q: not a number", u, input)
		}
	}
	for _, n := range []int{0, 10, 99} {
		for _, h := range []Hold{{}, {Version: 1, WeekResetsAt: u.WeekResetsAt, Waiting: true}} {
			a, _ := Decide(fuzzNow, Params{N: n, Cap: 95}, u, h)
			switch {
			case a.Verdict != VerdictGo && a.Verdict != VerdictWait && a.Verdict != VerdictStop,
				a.Reason == "", strings.Contains(a.Reason, "\n"), a.RetryAfter < 0,
				a.Verdict == VerdictWait && a.RetryAfter == 0,
				strings.Contains(a.Reason, "NaN"), strings.Contains(a.Reason, "Inf"):
				t.Fatalf("Decide(n %d, %+v) = %+v for the reading of %q", n, u, a, input)
			}
		}
	}
}

// known reports whether err is one of the readers' sentinels.
func known(err error) bool {
	for _, s := range []error{ErrNoLimits, ErrAPIKey, ErrUnreadable} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzUsageText: any /usage text reads as a usage the pacing takes, or as one of
// the sentinel errors.
func FuzzUsageText(f *testing.F) {
	f.Add("Current session\n 0% used\nCurrent week (all models)\n 43% used\n Resets Jul 11 at 12pm (Asia/Singapore)\n")
	f.Add("Total cost: $0.0000\n")
	f.Fuzz(func(t *testing.T, out string) {
		u, err := ParseUsageText(out, fuzzNow)
		if err != nil {
			if !known(err) {
				t.Fatalf("ParseUsageText(%q): error %v is none of the sentinels", out, err)
			}
			return
		}
		sane(t, u, SourceUsageCommand, out)
	})
}

// FuzzStatusLine: any statusLine input reads as a usage the pacing takes, or fails.
func FuzzStatusLine(f *testing.F) {
	f.Add([]byte(`{"rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600},"seven_day":{"used_percentage":41.2,"resets_at":1738857600}}}`))
	f.Add([]byte(`{"model":{"id":"claude"},"rate_limits":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := ParseStatusLine(data, fuzzNow)
		if err != nil {
			return
		}
		sane(t, u, SourceStatusLine, data)
	})
}

// FuzzGetUsage: any get_usage answer reads as a usage the pacing takes, or fails.
func FuzzGetUsage(f *testing.F) {
	f.Add([]byte(`{"type":"control_response","response":{"subtype":"success","request_id":"u1","response":{"subscription_type":"max","rate_limits_available":true,"rate_limits":{"five_hour":{"utilization":12,"resets_at":"2026-11-30T12:00:00Z"},"seven_day":{"utilization":43.5,"resets_at":"2026-12-04T09:07:00Z"}}}}}`))
	f.Add([]byte(`{"subscription_type":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := ParseGetUsage(data, fuzzNow)
		if err != nil {
			return
		}
		sane(t, u, SourceGetUsage, data)
	})
}

// FuzzArgs: the gate's words read as n and cap in range, or as one sentence naming
// what is wrong; what String writes reads back the same.
func FuzzArgs(f *testing.F) {
	f.Add("10 --cap 95")
	f.Add("--cap=100 0")
	f.Add("1.5")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		p, err := ParseArgs(args)
		if err != nil {
			if !errors.Is(err, ErrBadN) && !errors.Is(err, ErrBadCap) && !errors.Is(err, ErrBadArgs) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseArgs(%q): error %q", args, err)
			}
			return
		}
		if p.N < 0 || p.N > 99 || p.Cap != 0 && (p.Cap < 1 || p.Cap > 100) {
			t.Fatalf("ParseArgs(%q) = %+v: out of range", args, p)
		}
		back, err := ParseArgs(strings.Fields(p.String()))
		if err != nil || back != p {
			t.Fatalf("ParseArgs(%q) = %+v, written %q, read back %+v, %v", args, p, p.String(), back, err)
		}
	})
}
