package session

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/strom-research/strom/harness/runfiles"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/messages"
)

// Windows of R7.2 for a session of the given length: from warn on, every strom
// command says the time left; from wrap on, it asks the agent to record and close.
// A session under 40 minutes warns in its last quarter; under 24 minutes it asks to
// wrap up in its last eighth.
func Windows(length time.Duration) (warn, wrap time.Duration) {
	warn, wrap = 10*time.Minute, 3*time.Minute
	if length < 40*time.Minute {
		warn = length / 4
	}
	if length < 24*time.Minute {
		wrap = length / 8
	}
	return warn, wrap
}

// TimeNote is the line every strom command inside a session adds (R7.2), or "" when
// the session is not yet in its last stretch; in English (see SayTimeNote).
func TimeNote(now, deadline time.Time, length time.Duration) string {
	return SayTimeNote(nil, now, deadline, length)
}

// SayTimeNote is TimeNote in p's language.
func SayTimeNote(p *messages.Printer, now, deadline time.Time, length time.Duration) string {
	if deadline.IsZero() {
		return ""
	}
	left := deadline.Sub(now)
	warn, wrap := Windows(length)
	args := messages.Args{"Left": sayDuration(p, left), "Ends": runfiles.ClockAt(deadline.UTC()) + " UTC"}
	switch {
	case left <= 0:
		return p.Say("note.time_up")
	case left <= wrap:
		return p.Say("note.wrap_up", args)
	case left <= warn:
		return p.Say("note.time_left", args)
	}
	return ""
}

// FinishNote is the line shown while a person's request to finish is pending (R7.3).
const FinishNote = "⏹ A person asked this session to finish: start nothing new, record what you found (strom record \"…\"), then close the session (strom session close)."

// sayDuration says d rounded down, so that it never says more time than is left:
// whole minutes from a minute on (1 min 59 s is "1 minute"), seconds under a minute.
func sayDuration(p *messages.Printer, d time.Duration) string {
	switch m, sec := int(d/time.Minute), int(d/time.Second); {
	case m >= 1:
		return p.Say("note.minutes", messages.Args{"Count": m})
	case sec >= 1:
		return p.Say("note.seconds", messages.Args{"Count": sec})
	}
	return p.Say("note.under_second")
}

// TimeLeft is the time left until deadline as every view says it (the agent's
// notes, strom status, strom session list): rounded down, "time is up" at the end.
func TimeLeft(now, deadline time.Time) string { return SayTimeLeft(nil, now, deadline) }

// SayTimeLeft is TimeLeft in p's language.
func SayTimeLeft(p *messages.Printer, now, deadline time.Time) string {
	left := deadline.Sub(now)
	if left <= 0 {
		return p.Say("note.is_up")
	}
	return p.Say("note.left", messages.Args{"Left": sayDuration(p, left)})
}

// sayStatus says how the agent's program ended: its exit code, or the signal
// that ended it (by its number and its name, SIGKILL).
func sayStatus(p *messages.Printer, st agentpty.ExitStatus) string {
	if st.Signaled() {
		return p.Say("watch.status_signal", messages.Args{"Signal": int(st.Signal), "Name": unix.SignalName(st.Signal)})
	}
	return p.Say("watch.status_exit", messages.Args{"Code": st.Code})
}
