package session

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/procgroup"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// ParkAfter is how many sessions in a row may record nothing before their task is
// parked (R7.2).
const ParkAfter = 2

// checkTimeout bounds the tree's own check command.
const checkTimeout = 10 * time.Minute

// closeSession keeps the queue's rules, runs the clean-state check, returns or parks
// the task and makes the session's one commit.
func closeSession(ctx context.Context, r *research.Research, res SessionResult, task statefiles.Task, p agents.SessionPlan) (SessionResult, error) {
	var checks []string
	err := r.Tree.Locked(ctx, func() error {
		// One look at the work tree for the queue's rules and the clean-state check.
		var changes []gitrepo.Change
		g, gerr := r.Git(ctx)
		if gerr == nil {
			changes, gerr = g.Status(ctx)
		}
		fixes, err := queue.KeepQueueRules(ctx, r, res.ID, changes)
		if err != nil {
			return err
		}
		checks = append(checks, fixes...)
		var texts []string
		if _, err := r.Tree.UpdateTaskLocked(task.ID, func(t *statefiles.Task) error {
			if t.State == statefiles.Started && t.Session == res.ID {
				t.State, t.Session, t.Host, t.Updated = statefiles.Open, "", "", r.Now().UTC()
			}
			// A session records only on its own task (strom record refuses another).
			recs, err := r.Tree.TaskRecordsLocked(task.ID)
			if err != nil {
				return err
			}
			for _, rec := range recs {
				if rec.Session == res.ID {
					texts = append(texts, rec.Text)
				}
			}
			res.Records = len(texts)
			// A chat a person attended never counts toward parking, either way.
			if !p.Chat {
				return countForParking(r, t, &res, p)
			}
			return nil
		}); err != nil {
			return err
		}
		clean := cleanStateOf(ctx, r, p.Check, changes, gerr)
		if p.CheckSummary && res.Records > 0 {
			if t, err := r.Tree.FindTaskLocked(task.ID); err == nil && !summaryBy(t, res.ID) {
				clean = append(clean, "failed: "+summaryMissing)
			}
		}
		checks = append(checks, clean...)
		for _, c := range clean {
			if why, ok := strings.CutPrefix(c, "failed: "); ok && res.CheckFailed == "" {
				res.CheckFailed = why
			}
		}
		links := linksUnderStrom(r, changes)
		res.NotAllowed = allow.NotAllowedNow(ctx, r, p)
		msg := commitMessage(r.Messages(), res, task.Title, p.Profile.Name, texts, checks)
		// A crashed session is committed before the run resolves its sync.
		if r.Sync != nil {
			msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: research.TrailerHost, Value: r.Sync.Host})
		} else if r.Synced() {
			msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: research.TrailerHost, Value: r.Host()})
		}
		r.Marked("commit-start")
		res.Commit, err = r.CommitLocked(ctx, msg, links...)
		r.Marked("commit-end")
		return err
	})
	if err != nil {
		return res, fmt.Errorf("commit session %s: %w", res.ID, err)
	}
	runfiles.ClearRequests(r, res.ID)
	os.Remove(queue.SnapshotFile(r, res.ID))
	_ = runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.Session, ri.Task, ri.AgentPGID = "", "", 0 })
	return res, nil
}

// countForParking keeps a task's two park counters in park.json and parks the task
// when one reaches its limit: ParkAfter sessions in a row that recorded nothing, or
// p.SessionsPerTask sessions in a row that ended neither done nor waiting (a loop
// that never ends stops and asks for help). "In a row" is the task's own sessions:
// sessions on other tasks in between do not break the row, and the count carries
// over from run to run. Ending done or waiting clears both counters, a record clears
// the first; unparking clears both. Sessions a person ended, and endings that are
// not the task's doing (limits, login, crashes, a screen for a person, a program
// the agent's shell could not start), leave both as they are.
func countForParking(r *research.Research, t *statefiles.Task, res *SessionResult, p agents.SessionPlan) error {
	park, err := r.Tree.LoadPark()
	if err != nil {
		return err
	}
	finished := t.State == statefiles.Done || t.State == statefiles.Waiting
	// A screen that waited for a person, or a program the agent's shell could not
	// start, is not the task's doing.
	counts := res.End.CountsForParking() && res.Screen == "" && !res.NotStarted
	if finished || res.Records > 0 {
		delete(park.Empty, t.ID)
	}
	if finished {
		delete(park.Unfinished, t.ID)
	}
	if counts && !finished {
		if res.Records == 0 {
			park.Empty[t.ID]++
		}
		park.Unfinished[t.ID]++
		reason, n, unfinished := "", 0, false
		switch {
		case park.Empty[t.ID] >= ParkAfter:
			n = park.Empty[t.ID]
			reason = fmt.Sprintf("%d sessions in a row recorded nothing", n)
		case p.SessionsPerTask > 0 && park.Unfinished[t.ID] >= p.SessionsPerTask:
			n, unfinished = park.Unfinished[t.ID], true
			reason = fmt.Sprintf("%d sessions without finishing", n)
		}
		if reason != "" && t.State == statefiles.Open {
			if err := t.Park(reason, r.Now()); err != nil {
				return err
			}
			delete(park.Empty, t.ID)
			delete(park.Unfinished, t.ID)
			res.ParkReason, res.ParkCount, res.ParkUnfinished = reason, n, unfinished
		}
	}
	if len(park.Empty) == 0 {
		park.Empty = nil
	}
	if len(park.Unfinished) == 0 {
		park.Unfinished = nil
	}
	return r.Tree.SavePark(park)
}

// cleanState is the exit check of DESIGN.md before a session's commit: conflict
// markers in changed files and the tree's own check command. Each failure is a
// Strom-Check note; the work is committed anyway. check is the check command to
// run, "" for none.
func cleanState(ctx context.Context, r *research.Research, check string) []string {
	g, err := r.Git(ctx)
	if err != nil {
		return nil
	}
	changes, err := g.Status(ctx)
	return cleanStateOf(ctx, r, check, changes, err)
}

// cleanStateOf is cleanState with the work tree's changes read already (statusErr:
// git could not tell them).
func cleanStateOf(ctx context.Context, r *research.Research, check string, changes []gitrepo.Change, statusErr error) []string {
	var notes []string
	g, err := r.Git(ctx)
	if err != nil {
		return nil
	}
	if statusErr == nil {
		if marked, err := g.ConflictMarkers(ctx, changes); err == nil && len(marked) > 0 {
			notes = append(notes, "failed: conflict markers in "+strings.Join(marked, ", "))
		}
	}
	if links := linksUnderStrom(r, changes); len(links) > 0 {
		notes = append(notes, "failed: symbolic links under .strom/ are not committed: "+strings.Join(links, ", "))
	}
	if why := runCheck(ctx, r, check); why != "" {
		notes = append(notes, "failed: "+why)
	}
	return notes
}

// linksUnderStrom lists the changed paths at or under .strom/ that are symbolic
// links in the work tree. strom follows no link there (statefiles.OpenFile), and a
// session's commit takes none into the history, where every clone would meet it.
func linksUnderStrom(r *research.Research, changes []gitrepo.Change) []string {
	var links []string
	for _, c := range changes {
		if c.Path != statefiles.DirName && !strings.HasPrefix(c.Path, statefiles.DirName+"/") {
			continue
		}
		fi, err := os.Lstat(filepath.Join(r.Tree.Root, filepath.FromSlash(c.Path)))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			links = append(links, c.Path)
		}
	}
	return links
}

// CheckNow is the clean-state check an agent meets when session asks to close on
// task: the reason the session may not close yet, or "". A check.command of the
// tree that is not allowed on this computer is not run (allowedCheck); with
// check.summary on, a session that recorded something closes only once it rewrote
// the task's summary.
func CheckNow(ctx context.Context, r *research.Research, session, task string) string {
	if _, err := r.Tree.QueueSummary(ctx); err != nil {
		return r.Messages().Text(err)
	}
	if err := CheckRecords(ctx, r); err != nil {
		return r.Messages().Text(err)
	}
	if s, err := r.Settings(); err != nil {
		return r.Messages().Text(err)
	} else if v, err := s.Resolve("check.summary", ""); err == nil && v.Value == "on" {
		t, err := r.Tree.FindTask(ctx, task)
		if err != nil {
			return r.Messages().Text(err)
		}
		recs, err := r.Tree.TaskRecords(ctx, t.ID)
		if err != nil {
			return r.Messages().Text(err)
		}
		if n := recordedBy(recs, session); n > 0 && !summaryBy(t, session) {
			return r.Messages().Say("session.summary_not_rewritten", messages.Args{"Count": n, "Task": t.ID})
		}
	}
	g, err := r.Git(ctx)
	if err != nil {
		return ""
	}
	if op, err := g.InProgress(ctx); err == nil && op != "" {
		return r.Messages().Say("run.in_progress", messages.Args{"What": op})
	}
	for _, n := range cleanState(ctx, r, allow.AllowedCheck(ctx, r)) {
		return strings.TrimPrefix(n, "failed: ")
	}
	return ""
}

// summaryMissing is the Strom-Check words of a session that recorded something and
// left its task's summary as it was, while check.summary is on.
const summaryMissing = "the session recorded and did not rewrite the task's summary (strom task summary)"

// recordedBy counts the records session made among recs.
func recordedBy(recs []statefiles.Record, session string) int {
	n := 0
	for _, rec := range recs {
		if rec.Session == session {
			n++
		}
	}
	return n
}

// summaryBy reports whether session wrote t's summary last.
func summaryBy(t statefiles.Task, session string) bool {
	return t.Summary != nil && t.Summary.Session == session
}

// runCheck runs the check command (check.command), returning why it failed or "".
func runCheck(ctx context.Context, r *research.Research, check string) string {
	if check == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", check)
	cmd.Dir = r.Tree.Root
	// The check and whatever it started end with its verdict, its exit: a child it
	// left holding the output neither keeps the session open nor outlives the check.
	// Only the end of the output is kept, for its last line.
	out := &capped.Tail{N: 1 << 16}
	cmd.Stdout, cmd.Stderr = out, out
	err := procgroup.Run(cmd)
	if err == nil {
		return ""
	}
	last := strings.TrimSpace(out.String())
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	if len(last) > 120 {
		last = last[:120]
	}
	why := fmt.Sprintf("check.command %q: %v", check, err)
	if last != "" {
		why += " (" + last + ")"
	}
	return why
}
