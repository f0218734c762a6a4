package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/machines"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// RunOptions are the choices of strom run (R7.1).
type RunOptions struct {
	Max         int       // sessions to run; 0 = 1 (ignored with Loop or Tasks)
	Loop        bool      // session after session while there is work
	Tasks       []string  // these tasks, in this order, one session each
	Until       time.Time // no session starts after it; zero = none
	Minutes     string    // --minutes; "" = the settings
	Agent       string    // --agent; "" = the settings
	AgentArgs   []string  // words after --
	Interactive bool      // the person types into the agent; Ctrl-C stops at once

	Out        io.Writer       // the run's lines
	Terminal   *os.File        // the person's terminal, nil when none
	Interrupts <-chan struct{} // Ctrl-C outside the agent's raw terminal

	// Gate is asked before sessions; nil = no gate (the run goes on while there is work).
	Gate Gate
	// Notify calls the person when a session leaves a question or parks its task;
	// nil = nobody is called.
	Notify *Notifier
}

// Gate decides before a session whether the run goes on. It is the seam where the
// conditions of R7.4 plug in.
type Gate interface {
	// Before is asked before session n (1-based). It returns go (nil), or a stop with
	// its reason.
	Before(ctx context.Context, n int) (*ends.GateStop, error)
}

// RunResult is how a run ended.
type RunResult struct {
	Sessions int
	Stop     ends.Stop
	Gate     string // the condition that ended the run, with its words
	Detail   string
	// ChecksFailed counts the run's sessions that ended with their exit check
	// failing; CheckFailed is the last of them: its task and why.
	ChecksFailed int
	CheckFailed  CheckFailure
	// Parked and Waiting count the tasks that wait for a person when the run
	// ends: parked (strom task unpark), and waiting for an answer (strom task
	// answer).
	Parked, Waiting int
}

// CheckFailure is a session that ended with its exit check failing.
type CheckFailure struct {
	Task string
	Why  string
}

// sessionEnded counts a session whose commit was made.
func (rr *RunResult) sessionEnded(res session.SessionResult) {
	rr.Sessions++
	if res.CheckFailed != "" {
		rr.ChecksFailed++
		rr.CheckFailed = CheckFailure{Task: res.Task, Why: res.CheckFailed}
	}
}

// Line is the run's last line in English: N sessions · stopped: reason.
func (rr RunResult) Line() string { return rr.Say(nil) }

// Say is the run's last line in p's language (R7.1.1): "N sessions · stopped: …",
// "Sitzungen: N · Ende: …", "sezení: N · konec: …".
func (rr RunResult) Say(p *messages.Printer) string {
	line := p.Say("stop.line", messages.Args{"Count": rr.Sessions, "Reason": rr.Reason(p)})
	if rr.ChecksFailed > 0 {
		line += " · " + p.Say("stop.checks_failed", messages.Args{"Count": rr.ChecksFailed,
			"Task": rr.CheckFailed.Task, "Why": termsafe.Line(rr.CheckFailed.Why)})
	}
	if rr.Parked > 0 {
		line += " · " + p.Say("stop.parked", messages.Args{"Count": rr.Parked})
	}
	if rr.Waiting > 0 {
		line += " · " + p.Say("stop.waiting", messages.Args{"Count": rr.Waiting})
	}
	return line
}

// Reason is why the run ended, in p's language.
func (rr RunResult) Reason(p *messages.Printer) string {
	d := rr.Detail
	switch rr.Stop {
	case ends.StopDone:
		return p.Say("stop.done")
	case ends.StopNoTasks:
		return p.Say("stop.no_tasks")
	case ends.StopNeedYou:
		return p.Say("stop.need_you")
	case ends.StopTimeLimit:
		if d == "" {
			return p.Say("stop.time_limit")
		}
		return p.Say("stop.time_limit_at", messages.Args{"Until": d})
	case ends.StopByHand:
		return p.Say("stop.by_hand")
	case ends.StopSubscriptionLimit:
		switch {
		case d == "" || d == agents.ResetUnknown:
			return p.Say("stop.subscription_limit_unknown")
		case strings.HasPrefix(d, "resets "):
			when, ok := limits.DescribedAs(d, p.Say("stop.reset_layout"))
			if !ok {
				when = strings.TrimPrefix(d, "resets ") // the agent's own words
			}
			return p.Say("stop.subscription_limit_resets", messages.Args{"When": when})
		}
		return p.Say("stop.error_detail", messages.Args{"Detail": d})
	case ends.StopNotLoggedIn:
		// "the agent is not logged in — run claude once and log in" (R7.7).
		if d == agents.LoginUnknown {
			return p.Say("stop.not_logged_in_any")
		}
		if cmd, ok := strings.CutPrefix(d, "run "); ok {
			if cmd, ok := strings.CutSuffix(cmd, " once and log in"); ok {
				return p.Say("stop.not_logged_in_run", messages.Args{"Command": cmd})
			}
		}
		if d == "" {
			return p.Say("stop.not_logged_in")
		}
		return p.Say("stop.not_logged_in_detail", messages.Args{"Detail": d})
	case ends.StopCondition, ends.StopCap, ends.StopNotStarted:
		if rr.Gate == "" {
			return p.Say(map[ends.Stop]string{ends.StopCondition: "stop.condition", ends.StopCap: "stop.cap", ends.StopNotStarted: "stop.not_started"}[rr.Stop])
		}
		args := messages.Args{"Gate": rr.Gate, "Reason": d}
		switch rr.Stop {
		case ends.StopCap:
			return p.Say("stop.cap_of", args)
		case ends.StopNotStarted:
			return p.Say("stop.not_started_by", args)
		}
		return p.Say("stop.condition_said", args)
	case ends.StopArchive:
		return p.Say("stop.archive", messages.Args{"Archive": d})
	case ends.StopNeedsPerson:
		if d == "" {
			return p.Say("stop.needs_person")
		}
		return p.Say("stop.needs_person_detail", messages.Args{"Detail": d})
	}
	if d == "" {
		return p.Say("stop.error")
	}
	return p.Say("stop.error_detail", messages.Args{"Detail": d})
}

// ResolveUntil turns HH:MM into the next such moment: a time already past today
// means tomorrow.
func ResolveUntil(hhmm string, now time.Time) (time.Time, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(hhmm))
	if err != nil || len(strings.TrimSpace(hhmm)) != 5 {
		return time.Time{}, messages.New("run.bad_until", messages.Args{"Value": termsafe.Excerpt(hhmm)})
	}
	at := time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), 0, 0, now.Location())
	if !at.After(now) {
		at = at.AddDate(0, 0, 1)
	}
	return at, nil
}

// Run works through the queue as the options say (R7.1), one session per task.
func Run(ctx context.Context, r *research.Research, o RunOptions) (rr RunResult, err error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	plan, stopped, done, err := startAgentWork(ctx, r, o, nil)
	if err != nil {
		return rr, err
	}
	if stopped != nil {
		return *stopped, nil
	}
	// run.json keeps how the run ended, for strom report and strom status.
	defer func() { done(endOf(r, rr, err)) }()
	// A run shares the research through sync.remote when it is set (a chat does
	// not: a person attends it on this machine).
	if s, err := r.Settings(); err != nil {
		return rr, err
	} else if r.Sync, err = machines.Of(ctx, r, s, plan.Vars.Strom); err != nil {
		return rr, err
	}

	max := o.Max
	if max <= 0 {
		max = 1
	}
	if len(o.Tasks) > 0 {
		max = len(o.Tasks)
	}
	pk := newPicker(r, o.Tasks)
	if r.Sync != nil {
		r.SyncOut = o.Out
		pk.claims.Stale = time.Duration(plan.Minutes)*time.Minute + machines.StaleGrace
		// What the last run left here (a crashed session's commit among it) is
		// pushed first, and the queue picked from is the remote's.
		if err := machines.Start(ctx, r, o.Out); err != nil {
			rr.Stop, rr.Detail = ends.StopError, err.Error()
			return rr, nil
		}
	}
	stopNow := func(s ends.Stop, detail string) (RunResult, error) {
		if s != ends.StopError {
			if left := machines.LeftBehind(ctx, r); left != "" {
				s, detail = ends.StopError, left
			}
		}
		rr.Stop, rr.Detail = s, detail
		// The end line says how many tasks wait for a person (queue.json alone).
		if sum, err := r.Tree.QueueSummary(ctx); err == nil {
			rr.Parked, rr.Waiting = sum.Counts[statefiles.Parked], sum.Counts[statefiles.Waiting]
			if s == ends.StopNoTasks && rr.Parked+rr.Waiting > 0 && sum.Counts[statefiles.Open]+sum.Counts[statefiles.Started] == 0 {
				rr.Stop = ends.StopNeedYou
			}
		}
		return rr, nil
	}
	byHand := false
	// pushedAgain: the synced run found no task, pushed what it committed, and
	// looks once more (reset by each session).
	pushedAgain := false
	for {
		// A finish asked for or a stop by hand ends the run as "by hand", also when
		// it was the run's only session (R7.3).
		if byHand || runfiles.RunFinishRequested(r) {
			return stopNow(ends.StopByHand, "")
		}
		if !o.Loop && rr.Sessions >= max {
			return stopNow(ends.StopDone, "")
		}
		if !o.Until.IsZero() && !r.Now().Before(o.Until) {
			return stopNow(ends.StopTimeLimit, "--until "+o.Until.Local().Format("15:04"))
		}
		select {
		case <-ctx.Done():
			return stopNow(ends.StopByHand, "")
		case <-o.Interrupts: // Ctrl-C between sessions: start no other
			return stopNow(ends.StopByHand, "")
		default:
		}
		task, silent, lines, err := next(ctx, r, pk)
		for _, s := range lines {
			fmt.Fprintln(o.Out, s)
		}
		if err != nil {
			if ctx.Err() != nil {
				return stopNow(ends.StopByHand, "")
			}
			return stopNow(ends.StopError, r.Messages().Text(err))
		}
		if task == nil && silent != nil {
			// Every task left needs an archive that does not answer (R7.1.1): an
			// unattended run (--loop, --until alone) waits and probes again; a run
			// chosen by hand (one session, --max, --task) ends.
			if !o.Loop {
				return stopNow(ends.StopArchive, silent.Name)
			}
			if s, detail, stop := waitForArchive(ctx, r, o, *silent); stop {
				return stopNow(s, detail)
			}
			continue
		}
		if task == nil {
			// The chosen tasks are used up: the run did what it was asked, unless the
			// queue has no open task left either.
			if len(o.Tasks) > 0 {
				if open, _, err := r.Tree.QueuePage(ctx, statefiles.Open, 0, 1); err == nil && len(open) > 0 {
					return stopNow(ends.StopDone, "")
				}
			}
			// A synced run pushes what it committed and looks once more: the push
			// renumbers this clone's new tasks whose ids another machine gave its
			// own meanwhile, and such a task, passed over as held by the other's
			// claim of the same id, is free under its new id.
			if r.Sync != nil && !pushedAgain {
				if left := machines.LeftBehind(ctx, r); left == "" {
					pushedAgain = true
					continue
				}
			}
			return stopNow(ends.StopNoTasks, "")
		}
		pushedAgain = false
		if o.Gate != nil {
			gs, err := o.Gate.Before(ctx, rr.Sessions+1)
			if err != nil {
				return stopNow(ends.StopError, r.Messages().Text(err))
			}
			if gs != nil {
				rr.Gate = gs.Gate
				return stopNow(gs.Stop, gs.Reason)
			}
			// The gate may have waited for hours: take the task only if it is still open.
			if t, err := r.Tree.FindTask(ctx, task.ID); err == nil && !pk.claims.Takeable(r, &t) {
				continue
			} else if errors.Is(err, statefiles.ErrUnknownTask) {
				continue
			}
		}
		// The agent's program may have been updated since the run started (Claude
		// Code updates itself, and a condition may have waited for hours): a version
		// strom does not know starts no session. `--version` is asked again only
		// when the program's file changed since its last known answer.
		if err := agents.CheckAgentVersion(ctx, r, plan); err != nil {
			if ctx.Err() != nil {
				return stopNow(ends.StopByHand, "")
			}
			return stopNow(ends.StopError, r.Messages().Text(err))
		}
		// The agent's program reads its own project files at each start: one the
		// last session (or a merge) wrote and no person allowed starts no session.
		if err := allow.AgentFilesAllowed(ctx, r, plan, o.Terminal != nil); err != nil {
			return stopNow(ends.StopError, r.Messages().Text(err))
		}
		p := plan
		if r.Sync != nil {
			// Several machines: the task is the first open one after the remote's
			// branch is merged in, claimed by a pushed commit.
			claimed, id, err := pk.claims.Claim(ctx, r, func(ctx context.Context) (*statefiles.Task, []string, error) {
				t, _, lines, err := next(ctx, r, pk)
				return t, lines, err
			}, o.Out)
			if err != nil {
				if ctx.Err() != nil {
					return stopNow(ends.StopByHand, "")
				}
				return stopNow(ends.StopError, r.Messages().Text(err))
			}
			if claimed == nil {
				continue
			}
			task, p.Session = claimed, id
			if err := allow.AgentFilesAllowed(ctx, r, plan, o.Terminal != nil); err != nil {
				return stopNow(ends.StopError, r.Messages().Text(err))
			}
		}
		p.Task = *task
		res, err := session.RunSession(ctx, r, p, session.Events{Interrupts: o.Interrupts, Out: o.Out, Terminal: o.Terminal})
		if err != nil {
			if res.Commit != "" {
				rr.sessionEnded(res)
			}
			var se *session.AgentStartError
			if errors.As(err, &se) {
				return stopNow(ends.StopError, r.Messages().Say("stop.agent_not_started", messages.Args{"Program": se.Program, "Cause": se.Cause()}))
			}
			return stopNow(ends.StopError, r.Messages().Text(err))
		}
		rr.sessionEnded(res)
		if o.Terminal != nil {
			// The agent's screen may have left the cursor mid-line.
			fmt.Fprint(o.Out, "\r\n")
		}
		printEnd(r, o.Out, res)
		o.Notify.sessionEnded(ctx, res)
		if r.Sync != nil {
			if err := machines.Publish(ctx, r, o.Out); err != nil {
				return stopNow(ends.StopError, r.Messages().Text(err))
			}
		}
		// A screen only a person may answer (screens.go): the next session would
		// meet it too.
		if res.Screen != "" && res.End != ends.EndNotLoggedIn {
			return stopNow(ends.StopNeedsPerson, res.Screen)
		}
		if s, detail, ok := stopForAgent(r, res, p); ok {
			return stopNow(s, detail)
		}
		switch res.End {
		case ends.EndAgentFailed, ends.EndError:
			// R7.1.1: a run ends on an error, the agent's failure among them; the
			// session's work is committed and its task is back in the queue.
			return stopNow(ends.StopError, r.Messages().Say("stop.agent_failed", messages.Args{"Detail": res.Detail}))
		case ends.EndStoppedByHand, ends.EndFinishRequested:
			byHand = res.Finish == nil || res.Finish.By != runfiles.FinishByWindow
		}
		// A finish asked during the session ends the run after it, however the
		// session ended: closed, done, waiting, the time limit (R7.3). A watching
		// condition's finish ends it with the condition's cap (R7.4.2), but for
		// the five-hour limit of claude-usage --five-hour.
		if f := res.Finish; f != nil {
			switch f.By {
			case runfiles.FinishByWindow:
				// The five-hour limit finished the session; the run goes on, and
				// its condition waits for the window's reset.
			case runfiles.FinishByCondition:
				rr.Gate = f.Gate
				return stopNow(ends.StopCap, f.Reason)
			default:
				byHand = true
			}
		}
	}
}

// startAgentWork is what a run and a chat do before their first session, in this
// order: hold the run lock; refuse while a merge or rebase is in progress (the
// session's commit would fail), while a tree setting that starts a program is not
// allowed on this computer, in an archive and without the agent's program
// (R7.8, R7.8.1), and with a version of it whose flags strom does not know; check
// (a chat's own refusals; may be nil); commit a crashed
// session; stop before any session when Claude Code with a folder of its own is not
// logged in there (R7.7: a result, not an error); record the run in run.json. done
// clears run.json and lets the lock go.
func startAgentWork(ctx context.Context, r *research.Research, o RunOptions, check func() error) (plan agents.SessionPlan, stopped *RunResult, done func(*runfiles.RunEnd), err error) {
	unlock, err := runfiles.LockRun(r)
	if err != nil {
		return plan, nil, nil, err
	}
	fail := func(err error) (agents.SessionPlan, *RunResult, func(*runfiles.RunEnd), error) {
		unlock()
		return plan, nil, nil, err
	}
	if g, err := r.Git(ctx); err == nil {
		// What git processes of a strom that was killed left half done is
		// finished or undone first (gitrepo.MendAfterKill); a person's own merge or
		// lock then stops the run below.
		if err := session.MendAfterKill(ctx, r, g, o.Out); err != nil {
			return fail(err)
		}
		if op, err := g.InProgress(ctx); err == nil && op != "" {
			return fail(&gitrepo.InProgressError{Op: op, Dir: r.Tree.Root})
		}
		if err := g.OnBranch(); err != nil {
			return fail(err)
		}
	}
	// Tree settings that start programs, allowed by a person on this computer
	// (harness/consent): checked on the same settings the plan is made of, before
	// anything is started, the crashed session's check among it.
	s, err := r.Settings()
	if err != nil {
		return fail(err)
	}
	rv, err := allow.ConsentFor(ctx, r, s, o.Agent, o.AgentArgs)
	if err != nil {
		return fail(err)
	}
	if err := rv.Err(o.Terminal != nil); err != nil {
		return fail(err)
	}
	if plan, err = planAgent(r, o, s); err != nil {
		return fail(err)
	}

	if err := mode.RefuseAgentWork(r, plan.Profile); err != nil {
		return fail(err)
	}
	if err := agents.CheckAgentVersion(ctx, r, plan); err != nil {
		return fail(err)
	}
	if check != nil {
		if err := check(); err != nil {
			return fail(err)
		}
	}
	if err := session.RecoverCrash(ctx, r, func(s string) { fmt.Fprintln(o.Out, s) }, plan.Check); err != nil {
		return fail(err)
	}
	host, _ := os.Hostname()
	if advice, ok := agents.NotLoggedIn(ctx, r, plan); ok {
		rr := &RunResult{Stop: ends.StopNotLoggedIn, Detail: advice}
		_ = runfiles.SaveRun(r, &runfiles.RunInfo{PID: os.Getpid(), Host: host, Started: r.Now(), Ended: endOf(r, *rr, nil)})
		unlock()
		return plan, rr, nil, nil
	}
	runfiles.ClearRunRequests(r) // a request left by an earlier run is not for this one
	if err := runfiles.SaveRun(r, &runfiles.RunInfo{PID: os.Getpid(), Host: host, Started: r.Now()}); err != nil {
		return fail(err)
	}
	return plan, nil, func(end *runfiles.RunEnd) { runfiles.ClearRunRequests(r); runfiles.ClearRun(r, end); unlock() }, nil
}

// endOf is how run.json keeps the end of a run that returned rr and err: an error
// is the run's end as strom run says it.
func endOf(r *research.Research, rr RunResult, err error) *runfiles.RunEnd {
	if err != nil {
		rr.Stop, rr.Detail = ends.StopError, r.Messages().Text(err)
	}
	return &runfiles.RunEnd{At: r.Now().UTC(), Stop: rr.Stop.String(), Detail: rr.Detail, Gate: rr.Gate, Sessions: rr.Sessions,
		Parked: rr.Parked, Waiting: rr.Waiting, ChecksFailed: rr.ChecksFailed, CheckTask: rr.CheckFailed.Task, CheckWhy: rr.CheckFailed.Why}
}

// stopForAgent is the stop a session's ending asks of a run or a chat: the
// subscription limit or a login the agent needs, which a person must act on.
func stopForAgent(r *research.Research, res session.SessionResult, p agents.SessionPlan) (ends.Stop, string, bool) {
	switch res.End {
	case ends.EndSubscriptionLimit:
		return ends.StopSubscriptionLimit, agents.ResetDetail(r, res.Reset), true
	case ends.EndNotLoggedIn:
		return ends.StopNotLoggedIn, agents.LoginAdvice(r, p), true
	}
	return 0, "", false
}

func printEnd(r *research.Research, out io.Writer, res session.SessionResult) {
	p := r.Messages()
	line := p.Say("run.session_end", messages.Args{"Session": res.ID, "Task": res.Task, "End": p.Say("end." + res.End.String())})
	if res.Detail != "" && res.End != ends.EndDone && res.End != ends.EndWaiting && res.End != ends.EndClosed {
		line += " — " + res.Detail
	}
	if res.CheckFailed != "" {
		line += " — " + p.Say("run.check_failed", messages.Args{"Why": termsafe.Line(res.CheckFailed)})
	}
	if len(res.Commit) >= 7 {
		line += " " + p.Say("run.session_commit", messages.Args{"Commit": res.Commit[:7], "Count": res.Records})
	}
	fmt.Fprintln(out, line)
	if len(res.NotAllowed) > 0 {
		fmt.Fprintln(out, p.Say("run.consent_changed", messages.Args{"Settings": strings.Join(res.NotAllowed, ", ")}))
	}
	if res.ParkReason != "" {
		id := "run.parked"
		if res.ParkUnfinished {
			id = "run.parked_unfinished"
		}
		fmt.Fprintln(out, p.Say(id, messages.Args{"Task": res.Task, "Count": res.ParkCount}))
	}
}

// planAgent resolves the agent profile, the session length, the idle limit and the
// check command from the settings s. A run keeps them: a value changed while it
// works takes effect at the next run.
func planAgent(r *research.Research, o RunOptions, s statefiles.Settings) (agents.SessionPlan, error) {
	var p agents.SessionPlan
	prof, err := agents.AgentProfile(r, s, o.Agent)
	if err != nil {
		return p, err
	}
	p.ClaudeDir = agents.ClaudeConfigDir(r, s)
	mins, _, err := s.Int("run.minutes", o.Minutes)
	if err != nil {
		return p, err
	}
	idle, _, err := s.Int("run.idleMinutes", "")
	if err != nil {
		return p, err
	}
	if p.SessionsPerTask, _, err = s.Int("run.sessionsPerTask", ""); err != nil {
		return p, err
	}
	summary, err := s.Resolve("check.summary", "")
	if err != nil {
		return p, err
	}
	p.CheckSummary = summary.Value == "on"
	perm, _ := s.Resolve("agent.permissions", "")
	cmdline, _ := s.Resolve("agent.command", "")
	check, _ := s.Resolve("check.command", "")
	p.Check = check.Value
	strom, _ := os.Executable()
	p.Profile, p.Agent, p.Minutes, p.Idle, p.Interactive = prof, o.Agent, mins, time.Duration(idle)*time.Minute, o.Interactive
	p.Vars = agents.Vars{Strom: strom, Permissions: perm.Value, ExtraArgs: o.AgentArgs, Command: cmdline.Value}
	if _, err := prof.Argv(agents.Vars{Prompt: "x", PromptFile: "x", Settings: "x", Session: "x", Strom: strom, Permissions: perm.Value, ExtraArgs: o.AgentArgs, Command: cmdline.Value}); err != nil {
		return p, err
	}
	return p, nil
}
