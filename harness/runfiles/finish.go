package runfiles

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
)

// Who asked a run to finish (R7.3, R7.4.2).
const (
	FinishByPerson    = "person"    // strom session finish, Ctrl-C
	FinishByCondition = "condition" // a watching condition: the week's cap
	// FinishByWindow is a watching condition's five-hour limit (claude-usage
	// --five-hour): the session finishes, and the run goes on to its condition,
	// which waits for the window's reset.
	FinishByWindow = "window"
)

// runRequest names the finish request of a run with no session at work (waiting
// for its condition, or between sessions).
const runRequest = "run"

// FinishRequest is a pending request to finish: who asked, and why. A condition's
// request names the condition, so the run ends with its cap.
type FinishRequest struct {
	By     string `json:"by"`
	Gate   string `json:"gate,omitempty"`
	Reason string `json:"reason"`
}

// Person reports whether a person asked (not a condition).
func (f FinishRequest) Person() bool { return f.By != FinishByCondition && f.By != FinishByWindow }

// Limit names the limit a condition's request is for, as the messages' ids end:
// "cap" for the week's cap, "window" for the five-hour window.
func (f FinishRequest) Limit() string {
	if f.By == FinishByWindow {
		return "window"
	}
	return "cap"
}

// Note is the line every strom command in the session adds while the request is
// pending: the agent learns who asked and what to do.
func (f FinishRequest) Note() string { return f.SayNote(nil) }

// SayNote is Note in p's language.
func (f FinishRequest) SayNote(p *messages.Printer) string {
	if f.Person() {
		return p.Say("note.finish_person")
	}
	return p.Say("note.finish_"+f.Limit(), messages.Args{"Gate": f.Gate, "Reason": f.Reason})
}

// Typed is what an agent that takes typed text is told, in the person's language.
func (f FinishRequest) Typed(p *messages.Printer, profileText string) string {
	if f.Person() {
		return profileText
	}
	return p.Say("note.finish_"+f.Limit()+"_typed", messages.Args{"Gate": f.Gate, "Reason": f.Reason})
}

// RequestFinish asks a running session to finish for a person (R7.3).
func RequestFinish(r *research.Research, session, why string) error {
	return writeFinish(r, session, FinishRequest{By: FinishByPerson, Reason: why})
}

// RequestCapFinish asks a running session to finish because the condition gate,
// which watches the week's usage, found it at its cap (R7.4.2, R7.5.4).
func RequestCapFinish(r *research.Research, session, gate, reason string) error {
	return writeFinish(r, session, FinishRequest{By: FinishByCondition, Gate: gate, Reason: reason})
}

// RequestWindowFinish asks a running session to finish because the five-hour
// window reached the limit a watching condition set; the run goes on.
func RequestWindowFinish(r *research.Research, session, gate, reason string) error {
	return writeFinish(r, session, FinishRequest{By: FinishByWindow, Gate: gate, Reason: reason})
}

// RequestRunFinish asks a run that has no session at work — it waits for its
// condition — to end now (R7.3): the wait ends by hand.
func RequestRunFinish(r *research.Research, why string) error {
	return writeFinish(r, runRequest, FinishRequest{By: FinishByPerson, Reason: why})
}

func writeFinish(r *research.Research, session string, f FinishRequest) error {
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("request finish: %w", err)
	}
	return WriteRequest(r, "finish", session, string(data))
}

// FinishRequested returns a session's pending finish request.
func FinishRequested(r *research.Research, session string) (FinishRequest, bool) {
	raw, ok := Requested(r, "finish", session)
	if !ok {
		return FinishRequest{}, false
	}
	var f FinishRequest
	if json.Unmarshal([]byte(raw), &f) != nil || f.By == "" {
		f = FinishRequest{By: FinishByPerson, Reason: raw}
	}
	return f, true
}

// RunFinishRequested reports a pending finish request of the run itself.
func RunFinishRequested(r *research.Research) bool {
	_, ok := Requested(r, "finish", runRequest)
	return ok
}

// ClearRunRequests removes the run's own requests, at its start and its end.
func ClearRunRequests(r *research.Research) {
	os.Remove(RequestFile(r, "finish", runRequest))
	os.Remove(RequestFile(r, startRequest, runRequest))
}

// PendingFinish is the finish request pending in the live run ri: its session's,
// or the run's own while no session works. False when none is pending.
func PendingFinish(r *research.Research, ri *RunInfo) (FinishRequest, bool) {
	if ri == nil {
		return FinishRequest{}, false
	}
	if ri.Session != "" {
		if f, ok := FinishRequested(r, ri.Session); ok {
			return f, true
		}
	}
	if RunFinishRequested(r) {
		return FinishRequest{By: FinishByPerson, Reason: "strom session finish"}, true
	}
	return FinishRequest{}, false
}

// RequestStop asks the harness to stop a running session at once: the agent is
// stopped, the session committed, its task back in the queue, and the run ends.
func RequestStop(r *research.Research, session, why string) error {
	return WriteRequest(r, "stop", session, why)
}
