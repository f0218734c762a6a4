package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/archives"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/machines"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// archiveFinishPoll is how often, in real time, a wait for an archive looks for
// strom session finish.
const archiveFinishPoll = 500 * time.Millisecond

// picker chooses a run's next task (R7.1, R7.1.1): the first open task in queue
// order, or the next of the tasks --task chose, passing over a task while an
// archive it needs does not answer.
type picker struct {
	pending []string // --task's tasks not yet taken, in their order
	chosen  bool     // the run works on --task's tasks only
	prober  *archives.Prober
	told    map[string]bool // "T-3 ddb": a pass-over the run already printed
	// claims are what a synced run knows of the remote's claims (harness/machines).
	claims machines.Claims
}

// newPicker is the picker of a run with the tasks --task chose (none: the queue).
func newPicker(r *research.Research, tasks []string) *picker {
	return &picker{
		pending: append([]string(nil), tasks...),
		chosen:  len(tasks) > 0,
		prober:  &archives.Prober{Clock: r.Clock, Dir: r.Tree.Root, Line: func(ctx context.Context, name string) (string, string, error) { return archiveProbe(ctx, r, name) }},
		told:    map[string]bool{},
	}
}

// archiveProbe is an archive's probe as the settings say it now. A probe from the
// tree's settings runs only while a person on this computer allowed it
// (harness/consent): the agent may have written it during the run.
func archiveProbe(ctx context.Context, r *research.Research, name string) (line, why string, err error) {
	s, err := r.Settings()
	if err != nil {
		return "", "", err
	}
	setting := statefiles.ArchiveSetting(name)
	v, err := s.Resolve(setting, "")
	if err != nil {
		return "", "", err
	}
	p := r.Messages()
	if v.Value == "" {
		return "", p.Say("run.archive_no_probe", messages.Args{"Setting": setting}), nil
	}
	if v.Source == statefiles.FromTree {
		rv, err := allow.ConsentOf(ctx, r, s)
		if err != nil {
			return "", "", err
		}
		for _, na := range rv.NotAllowed {
			if na.Setting == setting {
				return "", p.Say("run.archive_not_allowed", messages.Args{"Setting": setting}), nil
			}
		}
	}
	return v.Value, "", nil
}

// next returns the task to take, or nil. silent is the first archive that kept a
// task from being taken, when one did; lines are what the run prints about the
// tasks it skipped or passed over.
func next(ctx context.Context, r *research.Research, pk *picker) (task *statefiles.Task, silent *archives.Result, lines []string, err error) {
	// take reports whether t can be taken now; a task passed over stays where it is.
	take := func(t *statefiles.Task) (bool, error) {
		blocked, err := silentArchive(ctx, r, pk, t, &lines)
		if err != nil || blocked == nil {
			return err == nil, err
		}
		if silent == nil {
			silent = blocked
		}
		return false, nil
	}
	if !pk.chosen {
		// The tasks that may be taken (open, and started by a stale claim) in queue
		// order, through the queue's index: the cost is the tasks looked at, not
		// the queue.
		var found *statefiles.Task
		var takeErr error
		err := r.Tree.EachTaskIn(ctx, []statefiles.State{statefiles.Open, statefiles.Started}, func(t statefiles.Task) bool {
			if !pk.claims.Takeable(r, &t) {
				return true
			}
			ok, err := take(&t)
			if err != nil || ok {
				found, takeErr = &t, err
				return false
			}
			return true
		})
		if err != nil {
			return nil, nil, lines, err
		}
		if found != nil || takeErr != nil {
			return found, nil, lines, takeErr
		}
		return nil, silent, lines, nil
	}
	// --task's tasks in their order: one done or taken meanwhile is skipped for
	// good, the first that can be taken is taken; those after it wait their turn.
	p := r.Messages()
	for i := 0; i < len(pk.pending); {
		found, err := r.Tree.FindTask(ctx, pk.pending[i])
		t := &found
		if err != nil && !errors.Is(err, statefiles.ErrUnknownTask) {
			return nil, nil, lines, err
		}
		if err != nil || !pk.claims.Takeable(r, t) {
			if err != nil {
				lines = append(lines, p.Say("run.skipped_missing", messages.Args{"Task": pk.pending[i]}))
			} else {
				lines = append(lines, p.Say("run.skipped_state", messages.Args{"Task": t.ID, "State": p.Say("state." + string(t.State))}))
			}
			pk.pending = slices.Delete(pk.pending, i, i+1)
			continue
		}
		ok, err := take(t)
		if err != nil {
			return nil, nil, lines, err
		}
		if !ok {
			i++ // passed over: it keeps its turn
			continue
		}
		pk.pending = slices.Delete(pk.pending, i, i+1)
		return t, nil, lines, nil
	}
	return nil, silent, lines, nil
}

// silentArchive probes the archives t needs, in the order it names them, and
// returns the first that does not answer (nil: all answer). A pass-over is printed
// once while its archive stays silent.
func silentArchive(ctx context.Context, r *research.Research, pk *picker, t *statefiles.Task, lines *[]string) (*archives.Result, error) {
	for _, name := range t.Needs {
		res, err := pk.prober.Check(ctx, name)
		if err != nil {
			return nil, err
		}
		key := t.ID + " " + name
		if res.Answers {
			delete(pk.told, key)
			continue
		}
		if !pk.told[key] {
			pk.told[key] = true
			why := res.Why
			if res.Said != nil {
				why = r.Messages().Text(res.Said)
			}
			*lines = append(*lines, r.Messages().Say("run.passed_over", messages.Args{"Task": t.ID, "Archive": name, "Why": why}))
		}
		return &res, nil
	}
	return nil, nil
}

// waitForArchive is the wait of a run whose remaining tasks all need an archive
// that does not answer (R7.1.1): it waits archives.WaitEvery, or up to --until,
// then the run probes again. Ctrl-C, a finish request and the --until time end
// the wait as they end a condition's; ok is false when the run goes on.
func waitForArchive(ctx context.Context, r *research.Research, o RunOptions, silent archives.Result) (stop ends.Stop, detail string, ok bool) {
	p := r.Messages()
	now := r.Now()
	till := now.Add(archives.WaitEvery)
	atUntil := !o.Until.IsZero() && !till.Before(o.Until)
	if atUntil {
		till = o.Until
	}
	reason := p.Say("stop.archive", messages.Args{"Archive": silent.Name})
	fmt.Fprintln(o.Out, p.Say("gate.waiting", messages.Args{"Until": waitClock(till, now), "Reason": reason}))
	_ = runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.PausedTill, ri.PauseWhy, ri.WaitArchive = till, reason, silent.Name })
	defer runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.PausedTill, ri.PauseWhy, ri.WaitArchive = time.Time{}, "", "" })
	poll := time.NewTicker(archiveFinishPoll)
	defer poll.Stop()
	timer := r.Clock.After(till.Sub(now))
	for {
		select {
		case <-timer:
			if atUntil {
				return ends.StopTimeLimit, "--until " + o.Until.Local().Format("15:04"), true
			}
			return 0, "", false
		case <-poll.C:
			if runfiles.RunFinishRequested(r) {
				return ends.StopByHand, "", true
			}
		case <-o.Interrupts:
			return ends.StopByHand, "", true
		case <-ctx.Done():
			return ends.StopByHand, "", true
		}
	}
}

// waitClock is HH:MM, with the weekday when the moment is not today.
func waitClock(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.YearDay() != now.YearDay() || t.Year() != now.Year() {
		return t.Format("Mon 15:04")
	}
	return t.Format("15:04")
}
