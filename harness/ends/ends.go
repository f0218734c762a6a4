// Package ends names why a session ended and why a run stopped (R7.1.1): each
// word in one table, stable in commit trailers, run.json and --json, and each stop
// with the exit code strom gives for it.
package ends

// End is why a session ended. Its words are the stable Strom-End trailer values.
type End int

// Session endings.
const (
	EndClosed End = iota
	EndDone
	EndWaiting
	EndTimeLimit
	EndFinishRequested
	EndStoppedByHand
	EndClosedByPerson
	EndSubscriptionLimit
	EndNotLoggedIn
	EndAgentFailed
	EndError
	EndCrashed
)

// endWords is the one table of Strom-End values and the words a commit subject uses.
var endWords = [...]struct{ trailer, subject string }{
	EndClosed:            {"closed", "closed"},
	EndDone:              {"done", "done"},
	EndWaiting:           {"waiting", "waits for an answer"},
	EndTimeLimit:         {"time-limit", "time limit"},
	EndFinishRequested:   {"finish-requested", "finished on request"},
	EndStoppedByHand:     {"stopped-by-hand", "stopped by hand"},
	EndClosedByPerson:    {"closed-by-person", "closed by a person"},
	EndSubscriptionLimit: {"subscription-limit", "subscription limit"},
	EndNotLoggedIn:       {"not-logged-in", "the agent is not logged in"},
	EndAgentFailed:       {"agent-failed", "the agent failed"},
	EndError:             {"error", "error"},
	EndCrashed:           {"crashed", "crashed"},
}

// String is the Strom-End trailer value.
func (e End) String() string { return endWords[e].trailer }

// Subject is how a commit subject says it.
func (e End) Subject() string { return endWords[e].subject }

// ParseEnd reads a Strom-End value.
func ParseEnd(s string) (End, bool) {
	for i, w := range endWords {
		if w.trailer == s {
			return End(i), true
		}
	}
	return 0, false
}

// CountsForParking reports endings where the agent had its chance at the task: a
// session that ended so and recorded nothing counts toward parking.
func (e End) CountsForParking() bool {
	switch e {
	case EndClosed, EndTimeLimit, EndAgentFailed:
		return true
	}
	return false
}

// Stop is why a run ended (R7.1.1).
type Stop int

// Run endings.
const (
	StopDone Stop = iota // the sessions asked for are done
	StopNoTasks
	StopTimeLimit // --until
	StopByHand
	StopSubscriptionLimit
	StopNotLoggedIn
	StopCondition // the gate's answer
	StopCap       // the gate's hard limit
	StopNotStarted
	StopError
	StopNeedsPerson // the agent showed a screen only a person may answer
	StopArchive     // the remaining tasks need an archive that does not answer (R7.1.1)
	StopNeedYou     // every task left is parked or waits for an answer: a person decides
)

var stopWords = [...]string{
	StopDone:              "done",
	StopNoTasks:           "no open tasks",
	StopTimeLimit:         "time limit",
	StopByHand:            "by hand",
	StopSubscriptionLimit: "subscription limit",
	StopNotLoggedIn:       "the agent is not logged in",
	StopCondition:         "the condition",
	StopCap:               "the cap",
	StopNotStarted:        "not started",
	StopError:             "error",
	StopNeedsPerson:       "the agent needs a person",
	StopArchive:           "the archive does not answer",
	StopNeedYou:           "the tasks left wait for a person",
}

func (s Stop) String() string { return stopWords[s] }

// ParseStop reads a Stop's word, as run.json keeps a run's end.
func ParseStop(w string) (Stop, bool) {
	for i, sw := range stopWords {
		if sw == w {
			return Stop(i), true
		}
	}
	return 0, false
}

// Exit statuses of strom run.
const (
	ExitPlanned     = 0 // the run ended as planned (done, no tasks, time limit, by hand, the condition)
	ExitError       = 1 // an error: the message says what to do
	ExitNeedsPerson = 3 // a person must act: subscription limit, not logged in, a screen for a person, the cap
)

// ExitCode maps a run's end to strom run's exit status.
func (s Stop) ExitCode() int {
	switch s {
	case StopSubscriptionLimit, StopNotLoggedIn, StopCap, StopNeedsPerson:
		return ExitNeedsPerson
	case StopError:
		return ExitError
	}
	return ExitPlanned
}

// GateStop is a gate's "do not start".
type GateStop struct {
	Stop   Stop
	Gate   string // the condition's name and words, for StopCondition, StopCap and StopNotStarted
	Reason string
}
