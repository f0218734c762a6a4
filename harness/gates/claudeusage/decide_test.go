package claudeusage

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The week of the table tests ends on Thursday 12 March 2026, 09:00 UTC.
var (
	testReset = time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	testStart = testReset.Add(-Week)
)

// at is the moment when passed percent of the test week have gone by; passed is exact
// to a hundredth of a percent.
func at(passed float64) time.Time {
	return testStart.Add(Week / 10000 * time.Duration(math.Round(passed*100)))
}

// weekPart is the duration of passed percent of a week.
func weekPart(passed float64) time.Duration {
	return Week / 10000 * time.Duration(math.Round(passed*100))
}

func used(pct float64) Usage {
	return Usage{WeekUsed: pct, WeekResetsAt: testReset, Source: SourceStatusLine}
}

// TestDecideReasonReadsTrue: a lead just below the need never reads as equal to it
// after rounding ("lead 10 < 10 needed").
func TestDecideReasonReadsTrue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		passed, used float64
		want         string
	}{
		{50, 40.04, "lead 9.9 < 10 needed"},
		{50, 40.01, "lead 9.9 < 10 needed"},
		{50, 40.5, "lead 9.5 < 10 needed"},
		{50, 41, "lead 9 < 10 needed"},
	}
	for _, tt := range tests {
		a, _ := Decide(at(tt.passed), Params{N: 10}, used(tt.used), Hold{Version: HoldVersion, WeekResetsAt: testReset})
		if !strings.Contains(a.Reason, tt.want) {
			t.Errorf("passed %v, used %v: reason %q, want it to say %q", tt.passed, tt.used, a.Reason, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	var (
		n10      = Params{N: 10}
		n15      = Params{N: 15}
		capped   = Params{N: 10, Cap: 95}
		hold     = Hold{Version: HoldVersion, WeekResetsAt: testReset}
		waiting  = Hold{Version: HoldVersion, WeekResetsAt: testReset, Waiting: true}
		lastWeek = Hold{Version: HoldVersion, WeekResetsAt: testReset.Add(-Week), Waiting: true}
		watch95  = &Watch{WeekFinishAt: 95}
		goNow    = Answer{Verdict: VerdictGo}
	)
	wait := func(d time.Duration) Answer { return Answer{Verdict: VerdictWait, RetryAfter: d} }
	withWatch := func(a Answer, w *Watch) Answer { a.Watch = w; return a }

	tests := []struct {
		name     string
		now      time.Time
		p        Params
		u        Usage
		h        Hold
		want     Answer
		wantHold Hold
		reason   []string // parts of the reason, in order
	}{
		// A week without a reset time.
		{name: "no reset time, 0% used: go", now: at(50), p: n10, u: Usage{},
			want: goNow, wantHold: Hold{Version: HoldVersion}, reason: []string{"week 0% used"}},
		{name: "no reset time, 1% used: wait 15 minutes", now: at(50), p: n10, u: Usage{WeekUsed: 1},
			want: wait(15 * time.Minute), wantHold: Hold{Version: HoldVersion}, reason: []string{"week 1% used", "15 minutes"}},
		{name: "no reset time keeps the hold", now: at(50), p: capped, u: Usage{WeekUsed: 1}, h: waiting,
			want: withWatch(wait(15*time.Minute), watch95), wantHold: waiting},

		// The cap (R7.5.4).
		{name: "exactly at the cap: stop, hard", now: at(97), p: capped, u: used(95), h: waiting,
			want: Answer{Verdict: VerdictStop, Hard: true, Watch: watch95}, wantHold: waiting,
			reason: []string{"week 95% used", "cap of 95%", "when it resets 2026-03-12 09:00 UTC"}},
		{name: "over the cap: stop, hard", now: at(10), p: capped, u: used(99.5),
			want: Answer{Verdict: VerdictStop, Hard: true, Watch: watch95}, wantHold: Hold{Version: HoldVersion},
			reason: []string{"week 99.5% used", "cap of 95%"}},
		{name: "just below the cap: the pace decides", now: at(97), p: Params{Cap: 95}, u: used(94.9),
			want: withWatch(goNow, watch95), wantHold: hold, reason: []string{"lead 2.1 ≥ 0 needed"}},
		{name: "--cap 100 at 100%: stop, hard", now: at(99.5), p: Params{Cap: 100}, u: used(100),
			want: Answer{Verdict: VerdictStop, Hard: true, Watch: &Watch{WeekFinishAt: 99}}, wantHold: Hold{Version: HoldVersion}},
		{name: "--cap 100 at 99%: go, finish at 99", now: at(99.5), p: Params{Cap: 100}, u: used(99),
			want: withWatch(goNow, &Watch{WeekFinishAt: 99}), wantHold: hold},
		{name: "no cap at 100%: waits for the reset, never hard", now: at(99), p: Params{}, u: used(100),
			want: wait(weekPart(1) + time.Minute), wantHold: waiting},

		// The five-hour window.
		{name: "five-hour at 100%: wait until its reset plus a minute", now: at(50), p: n10,
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 100, FiveHourResetsAt: at(50).Add(2*time.Hour + 7*time.Minute)},
			want: wait(2*time.Hour + 8*time.Minute), wantHold: Hold{Version: HoldVersion}, reason: []string{"five-hour window 100% used", "2h8m"}},
		{name: "five-hour at 100% without a reset time: wait 15 minutes", now: at(50), p: n10,
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 100},
			want: wait(15 * time.Minute), wantHold: Hold{Version: HoldVersion}},
		{name: "five-hour at 100% read before its reset: the pace decides", now: at(50), p: n10,
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 100, FiveHourResetsAt: at(50).Add(-time.Minute)},
			want: goNow, wantHold: hold},
		{name: "five-hour at 99%: the pace decides", now: at(50), p: n10,
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 99, FiveHourResetsAt: at(50).Add(time.Hour)},
			want: goNow, wantHold: hold},
		{name: "--five-hour 90 at 92%: wait until its reset plus a minute, watching", now: at(50), p: Params{N: 10, FiveHour: 90},
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 92, FiveHourResetsAt: at(50).Add(time.Hour)},
			want: withWatch(wait(time.Hour+time.Minute), &Watch{FiveHourFinishAt: 90}), wantHold: Hold{Version: HoldVersion},
			reason: []string{"five-hour window 92% used, at the limit of 90% (--five-hour)", "1h1m"}},
		{name: "--five-hour 90 at 89%: the pace decides", now: at(50), p: Params{N: 10, FiveHour: 90},
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 89, FiveHourResetsAt: at(50).Add(time.Hour)},
			want: withWatch(goNow, &Watch{FiveHourFinishAt: 90}), wantHold: hold},
		{name: "--five-hour 90 at 95% read before its reset: the pace decides", now: at(50), p: Params{N: 10, FiveHour: 90},
			u:    Usage{WeekUsed: 10, WeekResetsAt: testReset, FiveHourUsed: 95, FiveHourResetsAt: at(50).Add(-time.Minute)},
			want: withWatch(goNow, &Watch{FiveHourFinishAt: 90}), wantHold: hold},
		{name: "the cap comes before the five-hour window", now: at(97), p: capped,
			u:    Usage{WeekUsed: 96, WeekResetsAt: testReset, FiveHourUsed: 100, FiveHourResetsAt: at(97).Add(time.Hour)},
			want: Answer{Verdict: VerdictStop, Hard: true, Watch: watch95}, wantHold: Hold{Version: HoldVersion}},

		// The lead and the start of the week (R7.5.1).
		{name: "example: lead 18 with 10 needed", now: at(41), p: n10, u: used(23),
			want: goNow, wantHold: hold, reason: []string{"week 23% used, 41% passed, lead 18 ≥ 10 needed"}},
		{name: "n=10, 12% passed, 6% used: 6 needed, go", now: at(12), p: n10, u: used(6),
			want: goNow, wantHold: hold, reason: []string{"week 6% used, 12% passed, lead 6 ≥ 6 needed"}},
		{name: "n=10, 12% passed, 7% used: wait", now: at(12), p: n10, u: used(7),
			want: wait(weekPart(17.5) - weekPart(12)), wantHold: waiting,
			reason: []string{"week 7% used, 12% passed, lead 5 < 6 needed", "lead of 10.5"}},
		{name: "exactly 2n passed: the whole n, go", now: at(20), p: n10, u: used(10),
			want: goNow, wantHold: hold, reason: []string{"lead 10 ≥ 10 needed"}},
		{name: "exactly 2n passed: the whole n, wait", now: at(20), p: n10, u: used(10.5),
			want: wait(weekPart(22.5) - weekPart(20)), wantHold: waiting, reason: []string{"lead 9.5 < 10 needed", "lead of 12"}},
		{name: "past 2n the need stays n", now: at(60), p: n10, u: used(50),
			want: goNow, wantHold: hold, reason: []string{"lead 10 ≥ 10 needed"}},
		{name: "right after the reset a session starts", now: testStart, p: n10, u: used(0),
			want: goNow, wantHold: hold, reason: []string{"week 0% used, 0% passed, lead 0 ≥ 0 needed"}},
		{name: "n=0 goes while the lead is not negative", now: at(30), p: Params{}, u: used(30),
			want: goNow, wantHold: hold},

		// The extra after waiting (R7.5.2).
		{name: "after a wait n=15 needs a lead of 17: 16 waits", now: at(50), p: n15, u: used(34), h: waiting,
			want: wait(weekPart(51) - weekPart(50)), wantHold: waiting,
			reason: []string{"week 34% used, 50% passed, lead 16 < 17 needed after waiting", "lead of 17"}},
		{name: "after a wait n=15 needs a lead of 17: 17 goes and clears the hold", now: at(50), p: n15, u: used(33), h: waiting,
			want: goNow, wantHold: hold, reason: []string{"lead 17 ≥ 17 needed after waiting"}},
		{name: "then one after another on the lead alone", now: at(51), p: n15, u: used(36), h: hold,
			want: goNow, wantHold: hold, reason: []string{"lead 15 ≥ 15 needed"}},
		{name: "until the lead drops below what is needed", now: at(51), p: n15, u: used(36.5), h: hold,
			want: wait(weekPart(53.5) - weekPart(51)), wantHold: waiting, reason: []string{"lead 14.5 < 15 needed", "lead of 17"}},
		{name: "a new week starts without the extra", now: at(50), p: n15, u: used(35), h: lastWeek,
			want: goNow, wantHold: hold, reason: []string{"lead 15 ≥ 15 needed"}},
		{name: "the same week read with a rounded reset keeps the extra", now: at(50), p: n15, u: used(35),
			h:    Hold{Version: HoldVersion, WeekResetsAt: testReset.Add(-7 * time.Minute), Waiting: true},
			want: wait(weekPart(52) - weekPart(50)), wantHold: waiting},
		{name: "the minute after the reset: new week, no extra", now: testStart.Add(time.Minute), p: n10, u: used(0), h: lastWeek,
			want: goNow, wantHold: hold},
		{name: "early in the week the extra is 2·need/n: lead 6 at 10% goes", now: at(10), p: n10, u: used(4), h: waiting,
			want: goNow, wantHold: hold, reason: []string{"lead 6 ≥ 6 needed after waiting"}},
		{name: "early in the week the extra is 2·need/n: lead 5.5 at 10% waits", now: at(10), p: n10, u: used(4.5), h: waiting,
			want: wait(weekPart(11.25) - weekPart(10)), wantHold: waiting, reason: []string{"lead 5.5 < 6 needed after waiting"}},

		// The last 2 hours of the week.
		{name: "last 2 hours, exactly 10 points left: go", now: testReset.Add(-2 * time.Hour), p: n10, u: used(90), h: waiting,
			want: goNow, wantHold: waiting, reason: []string{"last 2 hours", "10 points left to 100%"}},
		{name: "last 2 hours, 9 points left: wait for the reset", now: testReset.Add(-2 * time.Hour), p: n10, u: used(91),
			want: wait(2*time.Hour + time.Minute), wantHold: waiting, reason: []string{"a minute after the week resets"}},
		{name: "last 2 hours, exactly 10 points left to the cap: go", now: testReset.Add(-time.Hour), p: Params{N: 20, Cap: 95}, u: used(85),
			want: withWatch(goNow, watch95), wantHold: hold, reason: []string{"10 points left to 95%"}},
		{name: "last 2 hours, 9 points left to the cap: wait", now: testReset.Add(-time.Hour), p: Params{N: 20, Cap: 95}, u: used(86),
			want: withWatch(wait(time.Hour+time.Minute), watch95), wantHold: waiting},
		{name: "a second before the last 2 hours: at least 5 minutes", now: testReset.Add(-2*time.Hour - time.Second), p: n10, u: used(90),
			want: wait(5 * time.Minute), wantHold: waiting},

		// How long it waits (R7.5.3).
		{name: "wait until the week catches up with lead plus extra", now: at(50), p: n10, u: used(45),
			want: wait(weekPart(57) - weekPart(50)), wantHold: waiting,
			reason: []string{"week 45% used, 50% passed, lead 5 < 10 needed; waiting for a lead of 12, asking again in 11h46m"}},
		{name: "catching up early in the week, where the need grows too", now: at(10), p: n10, u: used(6),
			want: wait(weekPart(15) - weekPart(10)), wantHold: waiting, reason: []string{"lead 4 < 5 needed", "lead of 9"}},
		{name: "the last 2 hours come before the catch-up", now: at(92), p: n10, u: used(88),
			want: wait(testReset.Add(-2 * time.Hour).Sub(at(92))), wantHold: waiting, reason: []string{"last 2 hours begin"}},
		{name: "no catch-up this week: until the reset plus a minute", now: at(95), p: n10, u: used(91),
			want: wait(weekPart(5) + time.Minute), wantHold: waiting, reason: []string{"lead 4 < 10 needed", "a minute after the week resets"}},
		{name: "a catch-up a minute away waits 5 minutes", now: at(50), p: n10, u: used(38.01), h: waiting,
			want: wait(5 * time.Minute), wantHold: waiting},
		{name: "the reset 3 minutes away: never past the reset", now: testReset.Add(-3 * time.Minute), p: n10, u: used(95),
			want: wait(4 * time.Minute), wantHold: waiting},
		{name: "waits round up to whole seconds", now: at(50).Add(300 * time.Millisecond), p: n10, u: used(45),
			want: wait(weekPart(7)), wantHold: waiting},

		// A reading from before a reset that has happened since.
		{name: "a reading from last week says nothing of this one", now: testReset.Add(10 * time.Minute), p: capped, u: used(97), h: waiting,
			want: withWatch(goNow, watch95), wantHold: Hold{Version: HoldVersion, WeekResetsAt: testReset.Add(Week)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, gotHold := Decide(tt.now, tt.p, tt.u, tt.h)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Answer{}, "Reason", "Said")); diff != "" {
				t.Errorf("Decide answer (-want +got):\n%s\nreason: %s", diff, got.Reason)
			}
			if diff := cmp.Diff(tt.wantHold, gotHold); diff != "" {
				t.Errorf("Decide hold (-want +got):\n%s", diff)
			}
			rest := got.Reason
			for _, part := range tt.reason {
				i := strings.Index(rest, part)
				if i < 0 {
					t.Errorf("reason %q lacks %q (in order)", got.Reason, part)
					break
				}
				rest = rest[i+len(part):]
			}
			if got.Reason == "" || strings.Contains(got.Reason, "\n") || strings.Contains(got.Reason, ". ") {
				t.Errorf("reason %q is not one sentence", got.Reason)
			}
			if got.Verdict == VerdictWait {
				checkWaitBounds(t, tt.now, tt.u, got.RetryAfter)
			}
		})
	}
}

// checkWaitBounds holds for every wait: never past a minute after the week's reset,
// never shorter than a minute, and at least 5 minutes unless the reset is closer.
func checkWaitBounds(t *testing.T, now time.Time, u Usage, wait time.Duration) {
	t.Helper()
	if wait < time.Minute || wait%time.Second != 0 {
		t.Errorf("wait %v is under a minute or not whole seconds", wait)
	}
	if u.WeekResetsAt.IsZero() || u.FiveHourUsed >= 100 {
		return
	}
	untilReset := u.WeekResetsAt.Add(time.Minute).Sub(now)
	if wait > untilReset {
		t.Errorf("wait %v goes past the reset plus a minute, %v away", wait, untilReset)
	}
	if wait < 5*time.Minute && wait < untilReset.Truncate(time.Second) {
		t.Errorf("wait %v is under 5 minutes with the reset %v away", wait, untilReset)
	}
}

func TestHoldJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Hold{Version: 1, WeekResetsAt: testReset, Waiting: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"week_resets_at":"2026-03-12T09:00:00Z","waiting":true}`
	if string(b) != want {
		t.Errorf("hold.json = %s, want %s", b, want)
	}
	var back Hold
	if err := json.Unmarshal(b, &back); err != nil || !back.WeekResetsAt.Equal(testReset) || !back.Waiting {
		t.Errorf("hold.json read back as %+v, %v", back, err)
	}
	b, _ = json.Marshal(Hold{Version: 1})
	if want := `{"version":1,"waiting":false}`; string(b) != want {
		t.Errorf("empty hold.json = %s, want %s", b, want)
	}
}

func TestNextReset(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		now  time.Time
		want time.Time
	}{
		{now: reset.Add(-time.Hour), want: reset},
		{now: reset, want: reset.Add(Week)},
		{now: reset.Add(Week - time.Second), want: reset.Add(Week)},
		{now: reset.Add(3*Week + time.Hour), want: reset.Add(4 * Week)},
	}
	for _, tt := range tests {
		if got := NextReset(reset, tt.now); !got.Equal(tt.want) {
			t.Errorf("NextReset(%v, %v) = %v, want %v", reset, tt.now, got, tt.want)
		}
	}
	if got := NextReset(time.Time{}, reset); !got.IsZero() {
		t.Errorf("NextReset of no reset = %v, want none", got)
	}
}
