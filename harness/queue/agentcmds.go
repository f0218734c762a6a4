package queue

import (
	"context"
	"errors"
	"strings"
	"syscall"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// SessionRef names the session and task a command from inside a session works on.
type SessionRef struct {
	Session string
	Task    string
}

// Record appends a record to the progress file. Inside a session it is the session's
// task; outside, a person names the task.
func Record(ctx context.Context, r *research.Research, ref SessionRef, text string) (statefiles.Record, error) {
	if strings.TrimSpace(text) == "" {
		return statefiles.Record{}, messages.Errorf(statefiles.ErrEmpty, "agent.record_empty", nil)
	}
	if err := statefiles.CheckInput(statefiles.RecordText, text, ""); err != nil {
		return statefiles.Record{}, err
	}
	rec := statefiles.Record{Time: r.Now(), Session: ref.Session, Task: statefiles.NormalizeID(ref.Task), Text: text}
	if ref.Session != "" {
		if err := liveSession(r, ref.Session); err != nil {
			return statefiles.Record{}, err
		}
	}
	err := r.Tree.Locked(ctx, func() error {
		if _, err := r.Tree.FindTaskLocked(rec.Task); err != nil {
			return err
		}
		return r.Tree.AppendProgressLocked(rec)
	})
	return rec, err
}

// liveSession refuses a session id that is not the session of the live run: a
// record must never be credited to a session that ended (an agent's process left
// behind, a STROM_SESSION left in a shell) or never was.
//
// The run's pid is checked first, not its lock: taking the lock even for a moment
// could make a strom run starting just then believe another run works. Only when
// the pid cannot be seen is the lock asked: an agent's sandbox may have a process
// namespace of its own (Codex's workspace-write sandbox does), where the run's pid
// does not exist although the run works.
func liveSession(r *research.Research, id string) error {
	ri, _ := runfiles.LoadRun(r)
	if ri != nil && ri.Session == id && (processAlive(ri.PID) || runfiles.RunAlive(r)) {
		return nil
	}
	return messages.Errorf(runfiles.ErrNotLiveSession, "agent.not_live", messages.Args{"Session": id})
}

// ownTask checks that a session acts on its own task, and that its id is one a
// session can have: it names the session's request files under .strom/run/.
func ownTask(t *statefiles.Task, ref SessionRef) error {
	if ref.Session == "" {
		return nil
	}
	if !research.ValidSessionID(ref.Session) {
		return messages.Errorf(runfiles.ErrNotLiveSession, "agent.not_live", messages.Args{"Session": ref.Session})
	}
	if t.ID != statefiles.NormalizeID(ref.Task) {
		return messages.New("agent.not_own_task", messages.Args{"Task": t.ID, "Own": ref.Task})
	}
	return nil
}

// Done marks a task done. In a session only its own task; the session then closes.
func Done(ctx context.Context, r *research.Research, ref SessionRef, id string) (statefiles.Task, error) {
	if id == "" {
		id = ref.Task
	}
	t, err := ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		if err := ownTask(t, ref); err != nil {
			return err
		}
		switch t.State {
		case statefiles.Done:
			return messages.New("agent.already_done", messages.Args{"Task": t.ID})
		case statefiles.Parked:
			return messages.New("agent.parked", messages.Args{"Task": t.ID, "Reason": termsafe.Line(t.Reason)})
		}
		t.State, t.Session = statefiles.Done, ref.Session
		return nil
	})
	if err != nil {
		return t, err
	}
	if ref.Session != "" {
		err = runfiles.RequestClose(r, ref.Session, "done")
	}
	return t, err
}

// Ask puts a task into waiting with a question for a person; the session closes.
func Ask(ctx context.Context, r *research.Research, ref SessionRef, id, question string) (statefiles.Task, error) {
	if strings.TrimSpace(question) == "" {
		return statefiles.Task{}, messages.Errorf(statefiles.ErrEmpty, "agent.question_empty", nil)
	}
	if err := statefiles.CheckInput(statefiles.QuestionText, question, ""); err != nil {
		return statefiles.Task{}, err
	}
	if id == "" {
		id = ref.Task
	}
	t, err := ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		if err := ownTask(t, ref); err != nil {
			return err
		}
		if t.State == statefiles.Done || t.State == statefiles.Parked {
			return messages.New("agent.cannot_wait", messages.Args{"Task": t.ID, "State": messages.New("state."+string(t.State), nil)})
		}
		t.Questions = append(t.Questions, statefiles.Question{Question: question, Asked: r.Now().UTC(), Session: ref.Session})
		t.State = statefiles.Waiting
		return nil
	})
	if err != nil {
		return t, err
	}
	if ref.Session != "" {
		err = runfiles.RequestClose(r, ref.Session, "waiting")
	}
	return t, err
}

// processAlive reports whether pid is a running process (not a zombie).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !runfiles.Zombie(pid)
}
