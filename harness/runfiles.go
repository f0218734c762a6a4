package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	// started under it, and the next run returns the task (recoverCrash).
	Claimed string `json:"claimed,omitempty"`
}

func (r *Research) runFile() string { return r.Tree.Path(statefiles.RunDir, "run.json") }

// LoadRun reads the live run's file; nil when there is none.
func (r *Research) LoadRun() (*RunInfo, error) {
	data, err := statefiles.ReadFile(r.runFile())
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
	if ri.Session != "" && !ValidSessionID(ri.Session) {
		// strom never wrote it: its session would name files outside .strom/run/.
		return &RunInfo{}, nil
	}
	return &ri, nil
}

// SaveRun writes the live run's file atomically.
func (r *Research) SaveRun(ri *RunInfo) error {
	data, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run state: %w", err)
	}
	if err := statefiles.MkdirAll(filepath.Dir(r.runFile()), 0o755); err != nil {
		return fmt.Errorf("write run state: %w", err)
	}
	return statefiles.WriteAtomic(r.runFile(), append(data, '\n'), 0o644)
}

// ClearRun removes the live run's file at the end of a run. A run that ends while
// the file still names a session (its commit failed: a full disk, a git error)
// keeps it, without the agent's process group, which is gone: the next run commits
// what the session left, as it does after a crash, so no session goes without a
// commit.
//
// So does a run that ends with a task it claimed for a session that never began
// (the run stopped by an error between the claim and the session): the next run
// returns the task (recoverCrash).
func (r *Research) ClearRun() error {
	if ri, err := r.LoadRun(); err == nil && ri != nil && (ri.Session != "" || r.claimLeft(ri.Claimed)) {
		ri.AgentPGID = 0
		return r.SaveRun(ri)
	}
	err := os.Remove(r.runFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// claimLeft reports whether a task is started here by the session claimed, which
// never began.
func (r *Research) claimLeft(claimed string) bool {
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
func (r *Research) LiveRun() (*RunInfo, error) {
	ri, err := r.LoadRun()
	if err != nil || ri == nil || !r.RunAlive() {
		return nil, err
	}
	return ri, nil
}

// requestFile names a request file for a session: close-<id>, finish-<id>,
// stop-<id> or active-<id>. Writers check the id first (ValidSessionID).
func (r *Research) requestFile(kind, session string) string {
	return r.Tree.Path(statefiles.RunDir, kind+"-"+session)
}

// RequestClose tells the harness that the session's agent asked to close it.
func (r *Research) RequestClose(session, why string) error {
	return r.writeRequest("close", session, why)
}

// writeRequest leaves a request for the running harness: atomic, so the harness
// never reads half of it, but not fsynced — a request outlives no crash (recovery
// commits the session whatever was asked).
func (r *Research) writeRequest(kind, session, why string) error {
	if !ValidSessionID(session) {
		return messages.Errorf(ErrNotLiveSession, "agent.not_live", messages.Args{"Session": session})
	}
	if err := statefiles.WriteTransient(r.requestFile(kind, session), []byte(why+"\n")); err != nil {
		return fmt.Errorf("request %s: %w", kind, err)
	}
	return nil
}

// Requested returns the reason of a pending request, and whether there is one.
func (r *Research) Requested(kind, session string) (string, bool) {
	if !ValidSessionID(session) {
		return "", false
	}
	data, err := statefiles.ReadFile(r.requestFile(kind, session))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}

// ClearRequests removes a session's request files once the session is committed.
func (r *Research) ClearRequests(session string) {
	if !ValidSessionID(session) {
		return
	}
	for _, k := range []string{"close", "finish", "stop", "active", appFinishRequest} {
		os.Remove(r.requestFile(k, session))
	}
}
