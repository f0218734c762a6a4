package harness

import (
	"fmt"
	"math"
	"strconv"
	"time"
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
// the session is not yet in its last stretch.
func TimeNote(now, deadline time.Time, length time.Duration) string {
	if deadline.IsZero() {
		return ""
	}
	left := deadline.Sub(now)
	warn, wrap := Windows(length)
	ends := deadline.UTC().Format("15:04 UTC")
	switch {
	case left <= 0:
		return "⏱ The session's time is up: record what you found now (strom record \"…\") and close the session (strom session close)."
	case left <= wrap:
		return fmt.Sprintf("⏱ %s left (ends %s): write what you found now (strom record \"…\") and close the session (strom session close).", humanMinutes(left), ends)
	case left <= warn:
		return fmt.Sprintf("⏱ %s left in this session (ends %s).", humanMinutes(left), ends)
	}
	return ""
}

// FinishNote is the line shown while a person's request to finish is pending (R7.3).
const FinishNote = "⏹ A person asked this session to finish: start nothing new, record what you found (strom record \"…\"), then close the session (strom session close)."

func humanMinutes(d time.Duration) string {
	m := int(math.Ceil(d.Minutes()))
	if m <= 1 {
		if s := int(math.Ceil(d.Seconds())); s < 60 {
			return strconv.Itoa(s) + " seconds"
		}
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}
