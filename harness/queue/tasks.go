// Package queue is the tasks of a research and what is done to them: a person
// adds, edits, rewords, parks, answers and moves tasks (R2); the agent records
// what it found, asks, and says a task is done (strom record, ask, done); and the
// snapshot a session takes of the queue keeps its rules through the session.
//
// Its guarantee: the agent cannot reword a task, drop one or break the queue's
// order in a session (what it changed against the snapshot is put back at the
// session's close); an archive's new tasks wait parked; a task's needs name only
// archives the settings can probe.
package queue

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// AddTask appends a task to the queue. session is the session that adds it ("" for a
// person). In an archive a new task waits parked.
func AddTask(ctx context.Context, r *research.Research, title, body, session string) (statefiles.Task, error) {
	return AddTaskNeeding(ctx, r, title, body, session, nil)
}

// AddTaskNeeding appends a task that needs the archives named (R7.1.1): each must
// be set up with a probe.
func AddTaskNeeding(ctx context.Context, r *research.Research, title, body, session string, needs []string) (statefiles.Task, error) {
	return AddTaskFrom(ctx, r, title, body, SessionRef{Session: session}, needs)
}

// AddTaskFrom appends a task as AddTaskNeeding does; ref is the session that adds
// it and that session's task (none for a person). A task a session adds is a
// follow-up of the session's task, one deeper in its chain; one deeper than
// run.followUps allows waits parked for a person (FollowUpReason).
func AddTaskFrom(ctx context.Context, r *research.Research, title, body string, ref SessionRef, needs []string) (statefiles.Task, error) {
	var out statefiles.Task
	session := ref.Session
	limit := 0
	if session != "" && ref.Task != "" {
		s, err := r.Settings()
		if err != nil {
			return out, err
		}
		if limit, _, err = s.Int("run.followUps", ""); err != nil {
			return out, err
		}
	}
	// Refused before the lock is waited for; NewTask checks it again.
	if err := statefiles.CheckText(strings.TrimSpace(title), body); err != nil {
		return out, err
	}
	if err := CheckNeeds(r, needs); err != nil {
		return out, err
	}
	err := r.Tree.Locked(ctx, func() error {
		saved, err := r.Tree.LoadMode()
		if err != nil {
			return err
		}
		depth := 0
		if session != "" && ref.Task != "" {
			if from, err := r.Tree.FindTaskLocked(ref.Task); err == nil {
				depth = from.FollowUp + 1
			}
		}
		out, err = r.Tree.AddTaskLocked(func(id string) (statefiles.Task, error) {
			task, err := statefiles.NewTask(id, title, body, r.Now())
			if err != nil {
				return task, err
			}
			task.FollowUp = depth
			if session != "" {
				task.AddedBy = session
			}
			if len(needs) > 0 {
				task.Needs = needs
			}
			switch {
			case saved.Mode == statefiles.ModeArchive:
				if err := task.Park(mode.ArchiveReason, r.Now()); err != nil {
					return task, err
				}
			case limit > 0 && depth > limit:
				if err := task.Park(FollowUpReason(depth), r.Now()); err != nil {
					return task, err
				}
			}
			return task, nil
		})
		return err
	})
	return out, err
}

// ChangeTask applies fn to task id under the lock, reading and writing only the
// task's shard.
func ChangeTask(ctx context.Context, r *research.Research, id string, fn func(t *statefiles.Task) error) (statefiles.Task, error) {
	return r.Tree.UpdateTask(ctx, id, func(t *statefiles.Task) error {
		if err := fn(t); err != nil {
			return err
		}
		t.Updated = r.Now().UTC()
		return nil
	})
}

// EditTask changes a task's title and body. Empty values keep what is there.
func EditTask(ctx context.Context, r *research.Research, id string, title, body *string) (statefiles.Task, error) {
	return ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		var ti, bo string
		if title != nil {
			ti = strings.TrimSpace(*title)
		}
		if body != nil {
			bo = *body
		}
		if err := statefiles.CheckText(ti, bo); err != nil {
			return err
		}
		if title != nil {
			if strings.TrimSpace(*title) == "" {
				return messages.Errorf(statefiles.ErrEmpty, "task.needs_title", messages.Args{"Task": t.ID, "Title": termsafe.Line(t.Title)})
			}
			t.Title = strings.TrimSpace(*title)
		}
		if body != nil {
			t.Body = *body
		}
		// A running session's snapshot must learn the person's wording, or the
		// session's close would take it for the agent's and put the old one back.
		return rewordInSnapshots(r, *t)
	})
}

// SetNeeds sets the archives a task needs; none clears them.
func SetNeeds(ctx context.Context, r *research.Research, id string, needs []string) (statefiles.Task, error) {
	if err := CheckNeeds(r, needs); err != nil {
		return statefiles.Task{}, err
	}
	return ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		t.Needs = nil
		if len(needs) > 0 {
			t.Needs = needs
		}
		return nil
	})
}

// ErrEditedMeanwhile means a task's wording changed between the moment a person's
// editor opened it and the save.
var ErrEditedMeanwhile = errors.New("the task was changed while you edited it")

// RewordTask sets a task's title and text to what a person wrote in an editor that
// started from was. If the task no longer reads was, nothing changes and the error
// wraps ErrEditedMeanwhile: the person's text must not silently replace another's.
func RewordTask(ctx context.Context, r *research.Research, id string, was statefiles.Task, title, body string) (statefiles.Task, error) {
	return ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		if t.Title != was.Title || t.Body != was.Body {
			return messages.Errorf(ErrEditedMeanwhile, "task.edited_meanwhile", messages.Args{"Title": termsafe.Line(t.Title)})
		}
		if strings.TrimSpace(title) == "" {
			return messages.Errorf(statefiles.ErrEmpty, "task.needs_title", messages.Args{"Task": t.ID, "Title": termsafe.Line(t.Title)})
		}
		if err := statefiles.CheckText(title, body); err != nil {
			return err
		}
		t.Title, t.Body = strings.TrimSpace(title), body
		return rewordInSnapshots(r, *t)
	})
}

// ParkTask sets a task aside; only a person unparks it.
func ParkTask(ctx context.Context, r *research.Research, id, why string) (statefiles.Task, error) {
	if err := statefiles.CheckInput(statefiles.ReasonText, why, ""); err != nil {
		return statefiles.Task{}, err
	}
	return ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		if t.State == statefiles.Started {
			return messages.New("task.park_started", messages.Args{"Task": t.ID, "Session": t.Session})
		}
		return t.Park(why, r.Now())
	})
}

// UnparkTask returns a parked task to where it was, and clears its park counters.
func UnparkTask(ctx context.Context, r *research.Research, id string) (statefiles.Task, error) {
	var out statefiles.Task
	err := r.Tree.Locked(ctx, func() error {
		saved, err := r.Tree.LoadMode()
		if err != nil {
			return err
		}
		if saved.Mode == statefiles.ModeArchive {
			if _, err := r.Tree.FindTaskLocked(id); err != nil {
				return err
			}
			return messages.Errorf(mode.ErrArchive, "task.unpark_archive", nil)
		}
		park, err := r.Tree.LoadPark()
		if err != nil {
			return err
		}
		// A person who unparks a task lets its chain of follow-ups go on: the
		// task's own follow-ups count from it again.
		t, err := r.Tree.UpdateTaskLocked(id, func(t *statefiles.Task) error {
			t.FollowUp = 0
			return t.Unpark(r.Now())
		})
		if err != nil {
			return err
		}
		out = t
		// A running session's snapshot learns the chain's new start, or the
		// session's close would put the old depth back.
		if err := rewordInSnapshots(r, t); err != nil {
			return err
		}
		_, empty := park.Empty[t.ID]
		_, unfinished := park.Unfinished[t.ID]
		if !empty && !unfinished {
			return nil
		}
		delete(park.Empty, t.ID)
		delete(park.Unfinished, t.ID)
		if len(park.Empty) == 0 {
			park.Empty = nil
		}
		if len(park.Unfinished) == 0 {
			park.Unfinished = nil
		}
		return r.Tree.SavePark(park)
	})
	return out, err
}

// AnswerTask gives a waiting task a person's answer; the task returns to the queue.
func AnswerTask(ctx context.Context, r *research.Research, id, answer string) (statefiles.Task, error) {
	if err := statefiles.CheckInput(statefiles.AnswerText, answer, ""); err != nil {
		return statefiles.Task{}, err
	}
	return ChangeTask(ctx, r, id, func(t *statefiles.Task) error {
		return t.AnswerQuestion(answer, r.Now())
	})
}

// MoveTask puts a task before another in the queue.
func MoveTask(ctx context.Context, r *research.Research, id, before string) error {
	return r.Tree.MoveTask(ctx, id, before)
}

// Records returns the records of one task, oldest first, from the file of its
// hundred: the cost is the task's, not the research's.
func Records(ctx context.Context, r *research.Research, task string) ([]statefiles.Record, error) {
	return r.Tree.TaskRecords(ctx, statefiles.NormalizeID(task))
}

// CheckNeeds refuses archive names a task cannot need: a name that is not one, or
// an archive the settings give no probe.
func CheckNeeds(r *research.Research, needs []string) error {
	for i, name := range needs {
		if err := statefiles.CheckArchiveName(name); err != nil {
			return err
		}
		if slices.Contains(needs[:i], name) {
			return messages.New("needs.twice", messages.Args{"Archive": name})
		}
		s, err := r.Settings()
		if err != nil {
			return err
		}
		if v, err := s.Resolve(statefiles.ArchiveSetting(name), ""); err != nil {
			return err
		} else if v.Value == "" {
			return messages.Errorf(ErrNoArchive, "needs.no_probe", messages.Args{"Archive": name, "Setting": statefiles.ArchiveSetting(name)})
		}
	}
	return nil
}

// ErrNoArchive means a task names an archive the settings give no probe.
var ErrNoArchive = errors.New("no archive is set up with the name")

// The reasons a run parks a task with, kept in English in the task's file (the
// state's stable words) and said in the person's language by SayParkReason.
var (
	parkedEmptyRE      = regexp.MustCompile(`^(\d+) sessions in a row recorded nothing$`)
	parkedUnfinishedRE = regexp.MustCompile(`^(\d+) sessions without finishing$`)
	parkedFollowUpRE   = regexp.MustCompile(`^a follow-up (\d+) deep: each task of its chain was added by a session of the one before$`)
)

// FollowUpReason is the reason a follow-up depth deep in its chain (deeper than
// run.followUps) is parked with: the agents keep adding work, and a person decides
// whether it goes on.
func FollowUpReason(depth int) string {
	return "a follow-up " + strconv.Itoa(depth) + " deep: each task of its chain was added by a session of the one before"
}

// SayParkReason is a parking reason as a person reads it: the reasons strom
// itself parks with in p's language, a person's own reason as it was given (on
// one line).
func SayParkReason(p *messages.Printer, reason string) string {
	if reason == mode.ArchiveReason {
		return p.Say("task.archive_reason")
	}
	for re, id := range map[*regexp.Regexp]string{parkedEmptyRE: "task.parked_empty", parkedUnfinishedRE: "task.parked_unfinished", parkedFollowUpRE: "task.parked_follow_up"} {
		if m := re.FindStringSubmatch(reason); m != nil {
			n, _ := strconv.Atoi(m[1])
			return p.Say(id, messages.Args{"Count": n})
		}
	}
	return termsafe.Line(reason)
}
