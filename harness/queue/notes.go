package queue

import (
	"context"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// SetSummary rewrites a task's summary whole. Inside a session only its own task's,
// and only while the session is the live run's; outside, a person names the task.
func SetSummary(ctx context.Context, r *research.Research, ref SessionRef, id, text string) (statefiles.Task, error) {
	if id == "" {
		id = ref.Task
	}
	if ref.Session != "" {
		if err := liveSession(r, ref.Session); err != nil {
			return statefiles.Task{}, err
		}
	}
	return ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		if err := ownTask(t, ref); err != nil {
			return err
		}
		return t.SetSummary(text, r.Now(), ref.Session)
	})
}

// SetNote rewrites the research's handover note whole: any session of the live run
// or a person may.
func SetNote(ctx context.Context, r *research.Research, ref SessionRef, text string) (*statefiles.Note, error) {
	if ref.Session != "" {
		if err := liveSession(r, ref.Session); err != nil {
			return nil, err
		}
	}
	var out *statefiles.Note
	err := r.Tree.Locked(ctx, func() error {
		var err error
		out, err = r.Tree.SaveNote(text, r.Now(), ref.Session)
		return err
	})
	return out, err
}
