package gates

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Waiting between questions (R7.4).
const (
	DefaultRetry = 15 * time.Minute
	MinRetry     = time.Minute
	// finishPoll is how often, in real time, a wait looks for strom session finish.
	finishPoll = 500 * time.Millisecond
)

// Runner is a run's condition: it asks the gate before sessions, prints and logs
// each answer, and waits when the gate says wait. It is a Gate.
type Runner struct {
	Asker    *Asker
	Research *research.Research
	Out      io.Writer
	// EachSession: --loop and --until ask before every session; a run chosen by hand
	// asks once, before the first.
	EachSession bool
	// Until ends a wait as "time limit".
	Until time.Time
	// Interrupts is the run's Ctrl-C: it ends a wait "by hand".
	Interrupts <-chan struct{}
	// Confirm asks the person "Start anyway?"; asked is false when no one can be
	// asked (no terminal), and the run then keeps to the gate.
	Confirm func(question string) (yes, asked bool)

	asked    bool // the gate answered once in this run
	anyway   bool // the person started the run past the gate
	watching bool // an answer asked to watch: ask before every session
}

// Before asks the gate before session n and returns nil to start it.
func (g *Runner) Before(ctx context.Context, n int) (*ends.GateStop, error) {
	chosen := !g.EachSession
	if chosen && g.asked && !g.watching {
		return nil, nil
	}
	label := g.Asker.Spec.String()
	firstCall := !g.asked
	asker := g.Asker
	if chosen && !firstCall && asker.Spec.Builtin() {
		// A run chosen by hand is asked again only for the cap (R7.4.1): the
		// answer and its line say the cap alone, not a pace the run does not keep.
		capOnly := *asker
		capOnly.CapOnly = true
		asker = &capOnly
	}
	for {
		first := !g.asked
		rep := asker.Ask(ctx)
		g.asked = true
		if ctx.Err() != nil {
			return &ends.GateStop{Stop: ends.StopByHand}, nil
		}
		if rep.Err == nil {
			if rep.Watch != nil {
				g.watching = true
			}
			if rep.Watch != nil || !g.watching {
				_ = SaveWatch(g.Research.Tree, os.Getpid(), label, rep.Watch)
			}
		}
		// gate.log keeps the reason in English, as it keeps every value; the run's
		// line says an error in the person's language.
		msg := g.Research.Messages()
		verdict, reason, said := rep.Verdict, rep.Reason, rep.Reason
		if rep.Said != nil {
			said = msg.Text(rep.Said)
		}
		if rep.Err != nil {
			verdict, reason, said = "error", rep.Err.Error(), msg.Text(rep.Err)
		}
		// The gate's own words go on the run's lines: one line each, and a long
		// reason once, by its start (gate.log keeps it whole).
		shown, said := g.bounded(said)
		fmt.Fprintln(g.Out, msg.Say("gate.answer", messages.Args{"Gate": g.Asker.Spec.Name, "Verdict": msg.Say("gate.verdict." + verdict),
			"Reason": shown, "Exit": rep.Exit, "Log": logName}))
		var waitS float64
		log := func(did string) {
			// wait_s is the wait the run made: only a line of a run that waited has one.
			if did != DidWait {
				waitS = 0
			}
			e := LogEntry{When: g.Research.Now().UTC(), Gate: g.Asker.Spec.Name, Args: g.Asker.Spec.Args, Exit: rep.Exit,
				Verdict: verdict, Reason: reason, WaitS: waitS, Hard: rep.Hard, Watch: rep.Watch, Limits: rep.Limits, Did: did}
			if err := AppendLog(g.Research.Tree, e); err != nil {
				fmt.Fprintln(g.Out, msg.Say("gate.log_failed", messages.Args{"Error": err.Error()}))
			}
			// What claude-usage remembers holds once the run did as it said.
			if did == DidWait || did == DidGo {
				if err := asker.Keep(ctx, rep); err != nil {
					fmt.Fprintln(g.Out, msg.Say("gate.hold_failed", messages.Args{"Error": err.Error()}))
				}
			}
		}
		notLoggedIn := rep.Err == nil && rep.LoginAdvice != "" && rep.Verdict != Go

		switch {
		case rep.Err == nil && rep.Hard && rep.Verdict != Go:
			// A person's hard limit: no "anyway" goes past it, in any run.
			log(DidStop)
			return &ends.GateStop{Stop: ends.StopCap, Gate: label, Reason: said}, nil
		case rep.Err == nil && rep.Verdict == Go:
			log(DidGo)
			return nil, nil
		case chosen && !firstCall:
			// A run chosen by hand is asked again only for the cap; a condition
			// program answers for more, and the line after its answer says why the
			// session starts all the same.
			log(DidAnyway)
			fmt.Fprintln(g.Out, msg.Say("gate.cap_only"))
			return nil, nil
		case chosen && first && g.Confirm != nil:
			// Not logged in (R7.7) is asked about as any other answer: a person may
			// know better, and a session that meets the login ends the run.
			q := msg.Say("gate.start_anyway", messages.Args{"Gate": label, "Reason": strings.TrimRight(said, ". ")})
			if yes, asked := g.Confirm(q); asked {
				if yes {
					g.anyway = true
					log(DidAnyway)
					return nil, nil
				}
				log(DidStop)
				return &ends.GateStop{Stop: ends.StopNotStarted, Gate: label, Reason: said}, nil
			}
		}
		// No one to ask: the run keeps to the gate.
		switch {
		case notLoggedIn:
			// A person must log the agent in: the run ends as it does when the
			// pre-check or a session finds it.
			log(DidStop)
			return &ends.GateStop{Stop: ends.StopNotLoggedIn, Reason: rep.LoginAdvice}, nil
		case rep.Err != nil:
			log(DidStop)
			return nil, messages.Errorf(rep.Err, "gates.ask_failed", messages.Args{"Gate": label, "Error": rep.Err})
		case rep.Verdict == Stop:
			log(DidStop)
			return &ends.GateStop{Stop: ends.StopCondition, Gate: label, Reason: said}, nil
		}
		// The log says the wait the run makes: the 15-minute default, the minute at
		// least, or up to --until.
		now := g.Research.Now()
		till, _ := g.waitTill(rep.RetryAfter(), now)
		waitS = math.Round(till.Sub(now).Seconds())
		log(DidWait)
		if gs := g.wait(ctx, rep.RetryAfter(), said); gs != nil {
			return gs, nil
		}
	}
}

// logName is gate.log as the run's lines name it.
const logName = statefiles.DirName + "/" + statefiles.GateLogFile

// bounded is a gate's reason as the run's lines show it, on one line: on the answer's
// line (shown) its first termsafe.ExcerptMax characters and how many there are in
// all, and on the lines after it (said: the wait, the question, the run's end) a
// note of it, so that a long reason is printed once, by its start. A short reason
// is itself on each.
func (g *Runner) bounded(reason string) (shown, said string) {
	n := utf8.RuneCountInString(reason)
	if n <= termsafe.ExcerptMax {
		line := termsafe.Line(reason)
		return line, line
	}
	msg := g.Research.Messages()
	shown = msg.Say("gate.reason_cut", messages.Args{"Start": termsafe.Excerpt(reason), "Count": n, "Log": logName})
	said = msg.Say("gate.reason_long", messages.Args{"Count": n, "Log": logName})
	return shown, said
}

// wait pauses the run until the gate should be asked again; it returns a stop when
// the wait ended by hand or at the --until time.
func (g *Runner) wait(ctx context.Context, d time.Duration, reason string) *ends.GateStop {
	now := g.Research.Now()
	till, atUntil := g.waitTill(d, now)
	fmt.Fprintln(g.Out, g.Research.Messages().Say("gate.waiting", messages.Args{"Until": clockTime(till, now), "Reason": reason}))
	_ = g.pause(till, reason)
	defer g.pause(time.Time{}, "")
	// strom session finish ends the wait as Ctrl-C does: it looks for the run's
	// request twice a second.
	poll := time.NewTicker(finishPoll)
	defer poll.Stop()
	timer := g.Research.Clock.After(till.Sub(now))
wait:
	for {
		select {
		case <-timer:
			break wait
		case <-poll.C:
			if runfiles.RunFinishRequested(g.Research) {
				return &ends.GateStop{Stop: ends.StopByHand}
			}
		case <-g.Interrupts:
			return &ends.GateStop{Stop: ends.StopByHand}
		case <-ctx.Done():
			return &ends.GateStop{Stop: ends.StopByHand}
		}
	}
	if atUntil {
		return &ends.GateStop{Stop: ends.StopTimeLimit, Reason: "--until " + g.Until.Local().Format("15:04")}
	}
	return nil
}

// waitTill is the end of a wait the gate asked for (d; 0 = not said): the
// 15-minute default, at least a minute, and never past --until (atUntil).
func (g *Runner) waitTill(d time.Duration, now time.Time) (till time.Time, atUntil bool) {
	if d == 0 {
		d = DefaultRetry
	}
	d = max(d, MinRetry)
	till = now.Add(d)
	atUntil = !g.Until.IsZero() && !till.Before(g.Until)
	if atUntil {
		till = g.Until
	}
	return till, atUntil
}

// pause shows the waiting in .strom/run/run.json, so strom status prints it.
func (g *Runner) pause(till time.Time, why string) error {
	return runfiles.UpdateRun(g.Research, func(ri *runfiles.RunInfo) { ri.PausedTill, ri.PauseWhy = till, why })
}

// clockTime is HH:MM, with the weekday when the moment is not today.
func clockTime(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.YearDay() != now.YearDay() || t.Year() != now.Year() {
		return t.Format("Mon 15:04")
	}
	return t.Format("15:04")
}
