// Package runfiles keeps the live run's files under .strom/run/: run.json (the
// run, its session and its deadline), the run's lock, the requests made to a
// session (finish, close, the app's ask to finish: R7.3), the agent's activity
// mark and the model its client reported.
//
// Its guarantee: the lock dies with the run's process, so a crashed run never
// blocks the next one, and a request reaches only the live session it names.
package runfiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// RunInfo is .strom/run/run.json: the live run, so that another strom can tell it is
// running and a later run can recover after a crash.
type RunInfo struct {
	PID        int       `json:"pid"`
	Host       string    `json:"host"`
	Started    time.Time `json:"started,omitzero"`
	Session    string    `json:"session,omitempty"`
	Task       string    `json:"task,omitempty"`
	Agent      string    `json:"agent,omitempty"`
	AgentPGID  int       `json:"agent_pgid,omitempty"`
	SessionAt  time.Time `json:"session_started,omitzero"`
	Deadline   time.Time `json:"deadline,omitzero"`
	Minutes    int       `json:"minutes,omitempty"`
	PausedTill time.Time `json:"paused_until,omitzero"`
	PauseWhy   string    `json:"pause_reason,omitempty"`
	// WaitArchive names the archive a paused run waits for (R7.1.1), "" when it
	// waits for its condition.
	WaitArchive string `json:"waiting_for_archive,omitempty"`
	// Claimed is the session a synced run's last claim was made for, written
	// before the claim: a run killed before that session began leaves its task
	// started under it, and the next run returns the task (RecoverCrash).
	Claimed string `json:"claimed,omitempty"`
	// Question is "Start anyway?" of a run with no terminal, while it waits for an
	// answer from a window on the desktop or from strom app (R7.4.1).
	Question      string    `json:"question,omitempty"`
	QuestionUntil time.Time `json:"question_until,omitzero"`
	// Sessions are the run's sessions so far, oldest first: strom report finds
	// them in the history by their Strom-Session trailers.
	Sessions []string `json:"sessions,omitempty"`
	// Ended is how the run ended, kept after it ended for strom report and
	// strom status; nil while it works, and for a run that was killed.
	Ended *RunEnd `json:"ended,omitempty"`
}

// RunEnd is how a run ended (R7.1.1), in machine words: what its end line said is
// said again from them, in the reader's language.
type RunEnd struct {
	At       time.Time `json:"at"`
	Stop     string    `json:"stop"` // an ends.Stop's word
	Detail   string    `json:"detail,omitempty"`
	Gate     string    `json:"gate,omitempty"`
	Sessions int       `json:"sessions"`
	Parked   int       `json:"parked,omitempty"`
	Waiting  int       `json:"waiting,omitempty"`
	// ChecksFailed counts the sessions that ended with their exit check failing;
	// CheckTask and CheckWhy are the last of them.
	ChecksFailed int    `json:"checks_failed,omitempty"`
	CheckTask    string `json:"check_task,omitempty"`
	CheckWhy     string `json:"check_why,omitempty"`
}

func runFile(r *research.Research) string { return r.Tree.Path(statefiles.RunDir, "run.json") }

// LoadRun reads the live run's file; nil when there is none.
func LoadRun(r *research.Research) (*RunInfo, error) {
	data, err := statefiles.ReadFile(runFile(r))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run state: %w", err)
	}
	var ri RunInfo
	if err := json.Unmarshal(data, &ri); err != nil {
		// A torn run file is only ever left by a crash: treat the run as dead.
		return &RunInfo{}, nil
	}
	if ri.Session != "" && !research.ValidSessionID(ri.Session) {
		// strom never wrote it: its session would name files outside .strom/run/.
		return &RunInfo{}, nil
	}
	return &ri, nil
}

// SaveRun writes the live run's file atomically.
func SaveRun(r *research.Research, ri *RunInfo) error {
	data, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run state: %w", err)
	}
	if err := statefiles.MkdirAll(filepath.Dir(runFile(r)), 0o755); err != nil {
		return fmt.Errorf("write run state: %w", err)
	}
	return statefiles.WriteAtomic(runFile(r), append(data, '\n'), 0o644)
}

// ClearRun removes the live run's file at the end of a run, or, with end given,
// leaves only the run's end in it (its pid, host, start, sessions and how it
// ended), which no later command takes for a live run: the lock says whether a run
// lives. A run that ends while the file still names a session (its commit failed:
// a full disk, a git error) keeps it whole, without the agent's process group,
// which is gone: the next run commits what the session left, as it does after a
// crash, so no session goes without a commit.
//
// So does a run that ends with a task it claimed for a session that never began
// (the run stopped by an error between the claim and the session): the next run
// returns the task (RecoverCrash).
func ClearRun(r *research.Research, end *RunEnd) error {
	ri, err := LoadRun(r)
	if err == nil && ri != nil && (ri.Session != "" || claimLeft(r, ri.Claimed)) {
		ri.AgentPGID = 0
		ri.Ended = end
		return SaveRun(r, ri)
	}
	if end != nil && err == nil && ri != nil {
		return SaveRun(r, &RunInfo{PID: ri.PID, Host: ri.Host, Started: ri.Started, Sessions: ri.Sessions, Ended: end})
	}
	err = os.Remove(runFile(r))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// claimLeft reports whether a task is started here by the session claimed, which
// never began.
func claimLeft(r *research.Research, claimed string) bool {
	if claimed == "" {
		return false
	}
	left := false
	_ = r.Tree.EachTask(context.Background(), statefiles.Started, func(t statefiles.Task) bool {
		left = t.Session == claimed
		return !left
	})
	return left
}

// LiveRun returns the running run, or nil when none is alive. A run is alive while
// it holds the run lock: the lock dies with its process, so a reused pid never
// passes for a run.
func LiveRun(r *research.Research) (*RunInfo, error) {
	ri, err := LoadRun(r)
	if err != nil || ri == nil || !RunAlive(r) {
		return nil, err
	}
	return ri, nil
}

// RequestFile names a request file for a session: close-<id>, finish-<id>,
// stop-<id>, active-<id> or model-<id>. Writers check the id first (ValidSessionID).
func RequestFile(r *research.Research, kind, session string) string {
	return r.Tree.Path(statefiles.RunDir, kind+"-"+session)
}

// RequestClose tells the harness that the session's agent asked to close it.
func RequestClose(r *research.Research, session, why string) error {
	return WriteRequest(r, "close", session, why)
}

// WriteRequest leaves a request for the running harness: atomic, so the harness
// never reads half of it, but not fsynced — a request outlives no crash (recovery
// commits the session whatever was asked).
func WriteRequest(r *research.Research, kind, session, why string) error {
	if !research.ValidSessionID(session) {
		return messages.Errorf(ErrNotLiveSession, "agent.not_live", messages.Args{"Session": session})
	}
	if err := statefiles.WriteTransient(RequestFile(r, kind, session), []byte(why+"\n")); err != nil {
		return fmt.Errorf("request %s: %w", kind, err)
	}
	return nil
}

// Requested returns the reason of a pending request, and whether there is one.
func Requested(r *research.Research, kind, session string) (string, bool) {
	if !research.ValidSessionID(session) {
		return "", false
	}
	data, err := statefiles.ReadFile(RequestFile(r, kind, session))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}

// ClearRequests removes a session's request files once the session is committed.
func ClearRequests(r *research.Research, session string) {
	if !research.ValidSessionID(session) {
		return
	}
	for _, k := range []string{"close", "finish", "stop", "active", "model", AppFinishRequest} {
		os.Remove(RequestFile(r, k, session))
	}
}

// ErrRunning means another run works in this research repo.
var ErrRunning = errors.New("another strom run is working in this research repo")

// LockRun takes the run lock for the life of the run. The lock dies with the
// process, so a crashed run never blocks the next one.
func LockRun(r *research.Research) (func(), error) {
	path := r.Tree.Path(statefiles.RunDir, "run.lock")
	unlock, held, err := statefiles.TryLockFile(path)
	// Another strom command may be looking at the lock this very moment (RunAlive
	// holds a shared lock for microseconds): look again for a little while before
	// calling it a run.
	for try := 0; err == nil && held && try < 40; try++ {
		if alive, _ := statefiles.LockHeld(path); alive && try >= 4 {
			break
		}
		time.Sleep(25 * time.Millisecond)
		unlock, held, err = statefiles.TryLockFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock the run: %w", err)
	}
	if held {
		ri, _ := LoadRun(r)
		p := r.Messages()
		switch {
		case ri == nil:
			return nil, messages.Wrap(ErrRunning, p.Say("refuse.running"))
		case ri.Session != "":
			return nil, messages.Wrap(ErrRunning, p.Say("refuse.running_session", messages.Args{"PID": ri.PID, "Session": ri.Session, "Task": ri.Task}))
		}
		return nil, messages.Wrap(ErrRunning, p.Say("refuse.running_pid", messages.Args{"PID": ri.PID}))
	}
	return unlock, nil
}

// RunAlive reports whether a run holds the run lock right now.
func RunAlive(r *research.Research) bool {
	path := r.Tree.Path(statefiles.RunDir, "run.lock")
	if _, err := os.Stat(path); err != nil {
		return false // no run ever locked here
	}
	held, _ := statefiles.LockHeld(path)
	return held
}

// UpdateRun changes run.json of the live run; without one it does nothing.
func UpdateRun(r *research.Research, fn func(*RunInfo)) error {
	ri, err := LoadRun(r)
	if err != nil || ri == nil {
		return err
	}
	fn(ri)
	return SaveRun(r, ri)
}

// AppFinishRequest names the app's request to finish a session, which the run's
// terminal confirms before it becomes a finish request (R7.3).
const AppFinishRequest = "app-finish"

// ErrNotLiveSession means a command named a session (STROM_SESSION) that is not the
// session of the live run.
var ErrNotLiveSession = errors.New("no such session is running")

// Zombie reports a process that has exited but not been reaped.
func Zombie(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(data, ')'); i > 0 && i+2 < len(data) {
		return data[i+2] == 'Z'
	}
	return false
}

// ClockAt is a moment as HH:MM, or HH:MM:SS when it does not fall on a whole
// minute: a deadline is shown to the second (cut, never later than it is). The
// caller picks the zone.
func ClockAt(t time.Time) string {
	if t.Second() == 0 {
		return t.Format("15:04")
	}
	return t.Format("15:04:05")
}

// AgentModel is the model and client version the agent's client reported of
// itself during a session (Claude Code's statusLine: strom usage report).
type AgentModel struct {
	Model   string `json:"model,omitempty"`
	Version string `json:"version,omitempty"`
}

// NoteAgentModel keeps what the session's client reported of its model and
// version, for the session's commit (.strom/run/model-<session>); a report that
// changes nothing writes nothing.
func NoteAgentModel(r *research.Research, session string, m AgentModel) error {
	if !research.ValidSessionID(session) {
		return messages.Errorf(ErrNotLiveSession, "agent.not_live", messages.Args{"Session": session})
	}
	if m == (AgentModel{}) || ReportedModel(r, session) == m {
		return nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("note the agent's model: %w", err)
	}
	if err := statefiles.WriteTransient(RequestFile(r, "model", session), append(data, '\n')); err != nil {
		return fmt.Errorf("note the agent's model: %w", err)
	}
	return nil
}

// ReportedModel is what NoteAgentModel kept for the session; zero for nothing.
func ReportedModel(r *research.Research, session string) AgentModel {
	var m AgentModel
	if !research.ValidSessionID(session) {
		return m
	}
	data, err := statefiles.ReadFile(RequestFile(r, "model", session))
	if err != nil || json.Unmarshal(data, &m) != nil {
		return AgentModel{}
	}
	return m
}
