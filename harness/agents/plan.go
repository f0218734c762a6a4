package agents

import (
	"time"

	"github.com/strom-research/strom/statefiles"
)

// SessionPlan is everything a session needs before it starts.
type SessionPlan struct {
	Task        statefiles.Task
	Profile     Profile
	Agent       string // the run's --agent, "" when the settings chose the profile
	Vars        Vars
	Minutes     int
	Idle        time.Duration
	Interactive bool
	ClaudeDir   string // Claude Code's own config folder, "" for ~/.claude
	Check       string // check.command as the run started with it (allowed), "" = none
	Chat        bool   // a person attends: strom chat
	Root        string // the work tree the agent starts in
	// Session is the id of a session whose task was claimed on the remote already
	// (started by it); "" = a new id, the task taken when the session starts.
	Session string
	// SessionsPerTask is run.sessionsPerTask: a task is parked after this many
	// sessions in a row that ended neither done nor waiting; 0 = no limit.
	SessionsPerTask int
	// CheckSummary is check.summary: a session that recorded something closes only
	// once it rewrote its task's summary.
	CheckSummary bool
}
