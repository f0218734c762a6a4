package harness

import (
	"context"

	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/harness/machines"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/statefiles"
)

// Status is what strom status shows.
type Status struct {
	Mode     string
	ModeText string
	State    *mode.State // the mode as strom mode reads it; nil when it could not be read
	Counts   map[statefiles.State]int
	Last     *SessionEntry
	Running  *runfiles.RunInfo
	// NotAllowed are the tree settings that start programs which no person on
	// this computer allowed: a run and a chat refuse until strom allow.
	NotAllowed []consent.Value
	// Sync is the sync with a remote (sync.remote), off when unset.
	Sync machines.State
	// consent is the review NotAllowed comes from, for ConsentError.
	consent consent.Review
}

// ConsentError is the sentence a run would refuse with, nil when nothing is
// refused. terminal: a person is at a terminal.
func (st Status) ConsentError(terminal bool) error { return st.consent.Err(terminal) }

// Status reads the research's state: no work-tree scan, one history lookup.
func ReadStatus(ctx context.Context, r *research.Research) (Status, error) {
	var st Status
	m, err := r.Tree.LoadMode()
	if err != nil {
		return st, err
	}
	if st.Running, err = runfiles.LiveRun(r); err != nil {
		return st, err
	}
	// Broken settings or agent profile still leave the saved mode to show. The
	// settings are read once for the mode, the consent and the sync.
	st.Mode, st.ModeText = m.Mode, m.Mode
	s, serr := r.Settings()
	if serr == nil {
		if ms, err := mode.OfSettings(r, m, st.Running, s); err == nil {
			st.ModeText, st.State = ms.Text(), &ms
		}
	}
	sum, err := r.Tree.QueueSummary(ctx)
	if err != nil {
		return st, err
	}
	st.Counts = sum.Counts
	if st.Last, err = LastSession(ctx, r); err != nil {
		return st, err
	}
	// Broken settings are reported by the commands that use them; status still shows
	// the rest.
	if serr == nil {
		if rv, err := allow.ConsentOf(ctx, r, s); err == nil {
			st.consent, st.NotAllowed = rv, rv.NotAllowed
		}
		st.Sync = machines.StatusOf(ctx, r, s)
	}
	return st, nil
}
