package claudeusage

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/strom-research/strom/internal/shellword"

	"github.com/strom-research/strom/messages"
)

// Verdicts of an Answer, the gate protocol's wire words.
const (
	VerdictGo   = "go"
	VerdictWait = "wait"
	VerdictStop = "stop"
)

// HoldVersion is the version Decide writes into hold.json.
const HoldVersion = 1

const (
	// Week is the length of the subscription's week; a day is about 14.3 % of it.
	Week = 7 * 24 * time.Hour
	// lastHours before the week resets let a session through on the points left.
	lastHours = 2 * time.Hour
	// lastHoursPoints is how many points must be left to 100 % or to the cap for that.
	lastHoursPoints = 10.0
	// extraPoints is the extra lead asked for after waiting on the pace (R7.5.2).
	extraPoints = 2.0
	// minWait is the shortest wait on the pace (R7.5.3).
	minWait = 5 * time.Minute
	// defaultWait is the wait when nothing better is known (R7.4).
	defaultWait = 15 * time.Minute
	// afterReset is how long after a reset the gate asks again, so the new figures show.
	afterReset = time.Minute
	// sameWeekWithin tells the same week read from two sources apart from the next
	// week: /usage shows the reset to the minute or the hour, the statusLine to the
	// second, and weeks are 7 days apart.
	sameWeekWithin = 24 * time.Hour
	// eps absorbs float noise in percent comparisons; percentages come with at most
	// one decimal, so boundaries stay exact.
	eps = 1e-9
)

// Usage is one reading of the Claude subscription's limits.
// In JSON it is a gate's "limits" in gate.log and the agent's report in
// .strom/run/usage.json.
type Usage struct {
	WeekUsed         float64   `json:"week_used"`                    // percent of the week's limit used, 0–100
	WeekResetsAt     time.Time `json:"week_resets_at,omitzero"`      // zero when unknown (the week has not started)
	FiveHourUsed     float64   `json:"five_hour_used"`               // percent of the five-hour window used, 0–100
	FiveHourResetsAt time.Time `json:"five_hour_resets_at,omitzero"` // zero when unknown
	Source           string    `json:"source"`                       // where the reading came from, e.g. "claude -p /usage"
	At               time.Time `json:"at,omitzero"`                  // when it was read
}

// Hold is the gate's memory between answers, kept in
// .strom/gates/claude-usage/hold.json: the week in which it last waited on the pace
// (R7.5.2).
type Hold struct {
	Version      int       `json:"version"`
	WeekResetsAt time.Time `json:"week_resets_at,omitzero"`
	// Waiting is true after a wait on the pace until the next session goes, so the next
	// go needs the extra lead.
	Waiting bool `json:"waiting"`
}

// Watch asks strom to send a running session a finish request once the agent reports
// the week's usage at WeekFinishAt percent or more (R7.4.2).
type Watch struct {
	WeekFinishAt float64 `json:"week_finish_at,omitempty"`
	// FiveHourFinishAt is the five-hour window's usage at which a session is asked
	// to finish (claude-usage --five-hour); the run then goes on, and the condition
	// waits for the window's reset.
	FiveHourFinishAt float64 `json:"five_hour_finish_at,omitempty"`
}

// Answer is the gate's verdict on starting the next session.
type Answer struct {
	Verdict string // VerdictGo, VerdictWait or VerdictStop
	Reason  string // one sentence for the run's output and gate.log, in English
	// Said is Reason as a sentence a Printer says in the person's language (the
	// run's lines, strom gate test); gate.log keeps Reason.
	Said       *messages.Error
	RetryAfter time.Duration // with VerdictWait: when to ask again, whole seconds
	Hard       bool          // a person's limit: no "Start anyway?" goes past it
	Watch      *Watch        // nil: nothing to watch during a session
	// Login, when Claude Code is not logged in, is what a person runs to log it in
	// (LoginAdvice): the run then ends as "needs a person" (exit 3).
	Login string
}

// InvalidParams answers gate words that ParseArgs refused: stop, every run, until a
// person sets them again.
func InvalidParams(err error) Answer {
	example := "claude-usage 10"
	if errors.Is(err, ErrBadCap) {
		example = "claude-usage 10 --cap 95"
	}
	return reasoned(Answer{Verdict: VerdictStop}, messages.New("claudeusage.invalid", messages.Args{"Error": err, "Example": example}))
}

// reasoned gives a its reason, in English and as a sentence to say.
func reasoned(a Answer, said *messages.Error) Answer { return a.Saying(said) }

// Saying is a with the reason said: Reason in English, Said to say.
func (a Answer) Saying(said *messages.Error) Answer {
	a.Reason, a.Said = said.Error(), said
	return a
}

// NotClaude answers for an agent without a Claude subscription week (another agent,
// or Claude Code on an API key): go.
func NotClaude() Answer {
	return reasoned(Answer{Verdict: VerdictGo}, messages.New("claudeusage.not_claude", nil))
}

// NotLoggedIn answers for Claude Code that is not logged in (R7.7): stop. configDir is
// its separate config folder, or "" for the default ~/.claude.
func NotLoggedIn(configDir string) Answer {
	return reasoned(Answer{Verdict: VerdictStop, Login: LoginAdvice(configDir)}, messages.New("claudeusage.not_logged_in", messages.Args{"Command": loginCommand(configDir)}))
}

// LoginAdvice says what a person runs to log Claude Code in: configDir is its
// separate config folder, or "" for the default ~/.claude.
func LoginAdvice(configDir string) string {
	return "run " + loginCommand(configDir) + " once and log in"
}

// loginCommand is the command a person runs to log Claude Code in.
func loginCommand(configDir string) string {
	if configDir != "" {
		return "CLAUDE_CONFIG_DIR=" + shellword.Quote(configDir) + " claude"
	}
	return "claude"
}

// Unreadable answers when the usage could not be read after the caller's attempts:
// wait 15 minutes.
func Unreadable() Answer {
	return reasoned(Answer{Verdict: VerdictWait, RetryAfter: defaultWait}, messages.New("claudeusage.unreadable", nil))
}

// Decide answers whether the next session starts, given a usage reading taken for it
// and the hold from the last answer, and returns the hold to keep. It implements the
// steps of R7.5 from "a week without a reset time" on; the earlier steps (bad words,
// another agent, unreadable usage, not logged in) are the caller's, answered with the
// helpers above. Decide is pure: the same inputs give the same answer.
func Decide(now time.Time, p Params, u Usage, h Hold) (Answer, Hold) {
	h.Version = HoldVersion
	watch := p.Watch()
	answer := func(verdict string, wait time.Duration, id string, args messages.Args) Answer {
		return reasoned(Answer{Verdict: verdict, RetryAfter: wait, Watch: watch}, messages.New("claudeusage."+id, args))
	}

	// A week without a reset time has not started: nothing is used yet, or the reading
	// is incomplete.
	if u.WeekResetsAt.IsZero() {
		if u.WeekUsed <= eps {
			return answer(VerdictGo, 0, "unstarted", nil), h
		}
		return answer(VerdictWait, defaultWait, "no_reset", messages.Args{"Used": pct(u.WeekUsed)}), h
	}

	// A reading from before a reset that has since happened says nothing of the new
	// week, which starts at 0 %.
	reset, used := NextReset(u.WeekResetsAt, now), u.WeekUsed
	if !reset.Equal(u.WeekResetsAt) {
		used = 0
	}
	passed := passedAt(reset, now)
	lead := passed - used
	limit := 100.0
	if p.Cap > 0 {
		limit = float64(p.Cap)
	}

	if p.Cap > 0 && used >= limit-eps {
		a := answer(VerdictStop, 0, "cap", messages.Args{"Used": pct(used), "Cap": p.Cap, "Resets": ResetWords(reset)})
		a.Hard = true
		return a, h
	}

	// The five-hour window: used up, or at the limit --five-hour set.
	fiveLimit, five := 100.0, "five_hours"
	if p.FiveHour > 0 && p.FiveHour < 100 {
		fiveLimit, five = float64(p.FiveHour), "five_hours_at"
	}
	if u.FiveHourUsed >= fiveLimit-eps {
		args := messages.Args{"Used": pct(u.FiveHourUsed), "Limit": pct(fiveLimit)}
		if u.FiveHourResetsAt.IsZero() {
			return answer(VerdictWait, defaultWait, five+"_no_reset", args), h
		}
		if again := u.FiveHourResetsAt.Add(afterReset); now.Before(again) {
			wait := max(ceilSecond(again.Sub(now)), time.Minute)
			args["In"] = span(wait)
			return answer(VerdictWait, wait, five, args), h
		}
	}

	if !sameWeek(h.WeekResetsAt, reset) {
		h.Waiting = false
	}
	h.WeekResetsAt = reset
	need := needAt(p.N, passed)
	required, after := need, ""
	if h.Waiting {
		required += extraAt(p.N, passed)
		after = "_after_waiting"
	}
	week := messages.Args{"Used": pct(used), "Passed": pct(passed), "Lead": num(lead)}

	if lead >= required-eps {
		h.Waiting = false
		week["Need"] = num(required)
		return answer(VerdictGo, 0, "lead"+after, week), h
	}

	left := limit - used
	lastFrom := reset.Add(-lastHours)
	if !now.Before(lastFrom) && left >= lastHoursPoints-eps {
		week["Left"], week["Limit"] = num(left), pct(limit)
		return answer(VerdictGo, 0, "last_hours", week), h
	}

	h.Waiting = true
	wait, why, target := paceWait(now, p.N, used, reset, left)
	// Below the need, the lead is shown rounded down and the need up, so that the
	// reason never reads "lead 10 < 10 needed".
	week["Lead"], week["Need"], week["Target"], week["In"] = numDown(lead), numUp(required), numUp(target), span(wait)
	id := "behind" + after
	if why != "" {
		id += "_" + why
	}
	return answer(VerdictWait, wait, id, week), h
}

// NextReset is the week's next reset after now, counted on in weeks from a reset
// that was read before it went by.
func NextReset(reset, now time.Time) time.Time {
	if reset.IsZero() {
		return reset
	}
	if !now.Before(reset) {
		reset = reset.Add(Week * time.Duration(now.Sub(reset)/Week+1))
	}
	return reset
}

// ResetWords is how a reset is said in a reason: 2026-12-04 09:00 UTC.
func ResetWords(t time.Time) string { return t.Format("2006-01-02 15:04 MST") }

// paceWait is R7.5.3: how long to wait on the pace, why the moment was chosen when it
// is not the catch-up (last_hours, reset: the end of the reason's id), and the lead
// waited for. It assumes the usage stays where it is
// while the week passes at 100 % per 7 days, and that the next go needs the extra.
func paceWait(now time.Time, n int, used float64, reset time.Time, left float64) (time.Duration, string, float64) {
	start := reset.Add(-Week)
	p := catchUpPassed(n, used)
	target := needAt(n, min(p, 100)) + extraAt(n, min(p, 100))
	untilReset := reset.Add(afterReset).Sub(now)

	wait, why := time.Duration(math.MaxInt64), ""
	if p <= 100 {
		wait = ceilSecond(start.Add(time.Duration(p * float64(Week) / 100)).Sub(now))
	}
	if left >= lastHoursPoints-eps {
		if d := ceilSecond(reset.Add(-lastHours).Sub(now)); d < wait {
			wait, why = d, "last_hours"
		}
	}
	if untilReset < wait {
		wait, why = untilReset, "reset"
	}
	if wait < minWait {
		wait = minWait
	}
	// Never past the reset: when it is less than 5 minutes away, the reset wins over
	// the shortest wait, since the new week's first session should not be held back.
	if d := untilReset.Truncate(time.Second); wait > d {
		wait, why = d, "reset"
	}
	return wait, why, target
}

// catchUpPassed is the part of the week, in percent, at which a lead of need plus the
// extra is reached with the usage held at used. Before 2·n % both grow with the part
// passed (need = passed/2, extra = 2·need/n), after it they are n+2.
func catchUpPassed(n int, used float64) float64 {
	if n > 2 && used < float64(n-2) {
		return 2 * float64(n) * used / float64(n-2)
	}
	return used + float64(n) + extraPoints
}

// needAt is R7.5.1: the lead needed is n, or half the part passed early in the week.
func needAt(n int, passed float64) float64 {
	return min(float64(n), passed/2)
}

// extraAt is R7.5.2: the extra after waiting is 2 points, proportionally smaller while
// the whole n does not hold yet. With n = 0 the whole n holds from the start.
func extraAt(n int, passed float64) float64 {
	if n == 0 {
		return extraPoints
	}
	return extraPoints * needAt(n, passed) / float64(n)
}

// passedAt is the part of the week ending at reset that has passed at now, in percent.
func passedAt(reset, now time.Time) float64 {
	elapsed := now.Sub(reset.Add(-Week))
	// Multiplying first keeps whole percentages exact.
	p := float64(elapsed) * 100 / float64(Week)
	return max(0, min(100, p))
}

func sameWeek(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return false
	}
	d := a.Sub(b)
	return d > -sameWeekWithin && d < sameWeekWithin
}

func ceilSecond(d time.Duration) time.Duration {
	if r := d % time.Second; r > 0 {
		d += time.Second - r
	}
	return d
}

// num formats a percentage or a lead with at most one decimal: 18, 41.2, -3.5.
func num(x float64) string {
	r := math.Round(x*10) / 10
	if r == 0 {
		r = 0 // no "-0"
	}
	return fmt.Sprintf("%g", r)
}

func pct(x float64) string { return num(x) + "%" }

// numDown and numUp format like num, rounded down or up to one decimal: for the two
// sides of a comparison that must read true.
func numDown(x float64) string { return num(math.Floor(x*10+1e-9) / 10) }
func numUp(x float64) string   { return num(math.Ceil(x*10-1e-9) / 10) }

// span formats a wait for a person: 5m, 3h20m, 2d4h; under a minute in words.
func span(d time.Duration) any {
	d = d.Round(time.Minute)
	days, hours, mins := d/(24*time.Hour), d%(24*time.Hour)/time.Hour, d%time.Hour/time.Minute
	var b strings.Builder
	if days > 0 {
		fmt.Fprintf(&b, "%dd", days)
	}
	if hours > 0 {
		fmt.Fprintf(&b, "%dh", hours)
	}
	if mins > 0 && days == 0 {
		fmt.Fprintf(&b, "%dm", mins)
	}
	if b.Len() == 0 {
		return messages.New("claudeusage.under_minute", nil)
	}
	return b.String()
}
