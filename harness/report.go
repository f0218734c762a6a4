package harness

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// LastRun is the research's last run as .strom/run/run.json keeps it after it
// ended: when it ran, its sessions and how it ended.
type LastRun struct {
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
	Host    string    `json:"host,omitempty"`
	// Working: the run works still. Killed: it stopped without ending (killed, a
	// crash, the computer went down); the next strom run commits what it left.
	Working bool `json:"working"`
	Killed  bool `json:"killed"`
	// Stop is why it ended: an ends.Stop's word ("" while it works or when it was
	// killed); Line and Next say it and what to do next in the reader's language.
	Stop     string   `json:"stop,omitempty"`
	Detail   string   `json:"detail,omitempty"`
	Line     string   `json:"line,omitempty"`
	Next     string   `json:"next,omitempty"`
	Sessions []string `json:"sessions"`

	result RunResult
}

// ReadLastRun reads the last run from run.json; nil when none is kept (no run
// yet, or only runs of a strom that did not keep their end).
func ReadLastRun(r *research.Research) (*LastRun, error) {
	ri, err := runfiles.LoadRun(r)
	if err != nil || ri == nil || ri.Started.IsZero() {
		return nil, err
	}
	lr := &LastRun{Started: ri.Started, Host: ri.Host, Sessions: ri.Sessions}
	if lr.Sessions == nil {
		lr.Sessions = []string{}
	}
	switch e := ri.Ended; {
	case runfiles.RunAlive(r):
		lr.Working = true
	case e == nil:
		lr.Killed = true
	default:
		lr.Ended = e.At
		st, ok := ends.ParseStop(e.Stop)
		if !ok {
			st = ends.StopError
		}
		lr.Stop, lr.Detail = st.String(), e.Detail
		lr.result = RunResult{Sessions: e.Sessions, Stop: st, Gate: e.Gate, Detail: e.Detail, Parked: e.Parked, Waiting: e.Waiting,
			ChecksFailed: e.ChecksFailed, CheckFailed: CheckFailure{Task: e.CheckTask, Why: e.CheckWhy}}
	}
	p := r.Messages()
	lr.Line, lr.Next = lr.Say(p), lr.SayNext(p)
	return lr, nil
}

// Say is the run's end line as strom run printed it at its end, in p's
// language; for a run that works or was killed, the sentence that says so.
func (lr *LastRun) Say(p *messages.Printer) string {
	switch {
	case lr.Working:
		return p.Say("report.run_working", messages.Args{"Count": len(lr.Sessions)})
	case lr.Killed:
		return p.Say("report.run_killed", messages.Args{"Count": len(lr.Sessions)})
	}
	return lr.result.Say(p)
}

// SayNext is what a person does next after the run, in p's language.
func (lr *LastRun) SayNext(p *messages.Printer) string {
	switch {
	case lr.Working:
		return p.Say("report.next.working")
	case lr.Killed:
		return p.Say("report.next.killed")
	}
	rr := lr.result
	d := rr.Detail
	switch rr.Stop {
	case ends.StopSubscriptionLimit:
		if when, ok := resetWhen(p, d); ok {
			return p.Say("report.next.subscription_resets", messages.Args{"When": when})
		}
		return p.Say("report.next.subscription")
	case ends.StopNotLoggedIn:
		return p.Say("report.next.login")
	case ends.StopCap:
		return p.Say("report.next.cap")
	case ends.StopCondition, ends.StopNotStarted:
		return p.Say("report.next.condition")
	case ends.StopError:
		return p.Say("report.next.error")
	case ends.StopNeedsPerson:
		return p.Say("report.next.needs_person")
	case ends.StopArchive:
		return p.Say("report.next.archive", messages.Args{"Archive": d})
	case ends.StopNoTasks:
		return p.Say("report.next.no_tasks")
	}
	if rr.Parked+rr.Waiting > 0 {
		return p.Say("report.next.need_you")
	}
	return p.Say("report.next.go_on")
}

// resetWhen is the time a subscription limit's detail says it resets, as the end
// line says it; false when the agent did not say.
func resetWhen(p *messages.Printer, d string) (string, bool) {
	if d == "" || d == agents.ResetUnknown || !strings.HasPrefix(d, "resets ") {
		return "", false
	}
	when, ok := limits.DescribedAs(d, p.Say("stop.reset_layout"))
	if !ok {
		when = strings.TrimPrefix(d, "resets ") // the agent's own words
	}
	return when, true
}

// Report is the morning's page (strom report): the last run, or everything since
// a time; its sessions with what they found; the questions that wait for an
// answer and the tasks parked.
type Report struct {
	Since     time.Time         `json:"since,omitzero"`
	Run       *LastRun          `json:"last_run"`
	Sessions  []ReportSession   `json:"sessions"`
	Questions []WaitingQuestion `json:"questions"`
	Parked    []ParkedTask      `json:"parked"`
}

// ReportSession is one session in the report: its entry in the history, its
// task's title, how long it worked, and what it found: the task's summary when a
// summary was written, and the session's records as its commit keeps them.
type ReportSession struct {
	SessionEntry
	Title   string    `json:"title"`
	Started time.Time `json:"started,omitzero"`
	// Seconds is how long the session worked: from its start to its commit.
	Seconds int      `json:"seconds"`
	Summary string   `json:"summary,omitempty"`
	Found   []string `json:"found"`
}

// WaitingQuestion is a task that waits for a person's answer.
type WaitingQuestion struct {
	Task     string    `json:"task"`
	Title    string    `json:"title"`
	Question string    `json:"question"`
	Asked    time.Time `json:"asked,omitzero"`
	Command  string    `json:"command"`
}

// ParkedTask is a task set aside until a person unparks it.
type ParkedTask struct {
	Task    string `json:"task"`
	Title   string `json:"title"`
	Reason  string `json:"reason"` // in the reader's language
	Command string `json:"command"`
}

// lastRunSlack is how long before a run's start its sessions' commits are looked
// for: a commit's date comes from the clock of the computer that made it.
const lastRunSlack = 24 * time.Hour

// noRunWindow: without a run kept in run.json, the report shows the sessions of
// this long before the newest one.
const noRunWindow = 24 * time.Hour

// ReadReport reads the report: since zero = the last run.
func ReadReport(ctx context.Context, r *research.Research, since time.Time) (Report, error) {
	rep := Report{Since: since}
	lr, err := ReadLastRun(r)
	if err != nil {
		return rep, err
	}
	if rep.Sessions, err = ReportSessions(ctx, r, lr, since); err != nil {
		return rep, err
	}
	if lr != nil && (since.IsZero() || lr.Working || lr.Killed || !lr.Ended.Before(since)) {
		rep.Run = lr
	}
	rep.Questions, rep.Parked, err = WaitingForPerson(ctx, r)
	return rep, err
}

// ReportSessions are the sessions since a time, or (since zero) those of the last
// run lr, oldest first, with their tasks' titles and summaries. Without a last run
// kept, they are the sessions of the day before the newest session.
func ReportSessions(ctx context.Context, r *research.Research, lr *LastRun, since time.Time) ([]ReportSession, error) {
	ss, err := ReportCommits(ctx, r, lr, since)
	if err != nil {
		return nil, err
	}
	return WithTasks(ctx, r, ss), nil
}

// ReportCommits are ReportSessions as the history alone tells them (git log only),
// without their tasks' titles and summaries: what the history says cannot change
// while HEAD and the run's sessions stay the same.
func ReportCommits(ctx context.Context, r *research.Research, lr *LastRun, since time.Time) ([]ReportSession, error) {
	g, found := gitrepo.Discover(r.Tree.Root)
	if !found {
		var err error
		if g, err = r.Git(ctx); err != nil {
			return nil, err
		}
	}
	opts := gitrepo.LogOptions{TrailerKey: research.TrailerSession, Since: since}
	keep := func(e SessionEntry) bool { return !e.When.Before(since) }
	switch {
	case !since.IsZero():
	case lr != nil:
		ids := map[string]bool{}
		for _, id := range lr.Sessions {
			ids[id] = true
		}
		opts.Since = lr.Started.Add(-lastRunSlack)
		keep = func(e SessionEntry) bool { return ids[e.Session] }
	default:
		last, err := g.Log(ctx, gitrepo.LogOptions{TrailerKey: research.TrailerSession, Max: 1})
		if err != nil || len(last) == 0 {
			return []ReportSession{}, err
		}
		opts.Since = last[0].When.Add(-noRunWindow)
		keep = func(e SessionEntry) bool { return !e.When.Before(opts.Since) }
	}
	commits, err := g.Log(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := []ReportSession{}
	for _, c := range commits {
		e := sessionEntry(c)
		if !keep(e) {
			continue
		}
		s := ReportSession{SessionEntry: e, Found: []string{}}
		if e.Records > 0 {
			for _, l := range strings.Split(c.Message.Body, "\n") {
				if l = strings.TrimSpace(l); l != "" && !nothingRecorded(l) {
					s.Found = append(s.Found, l)
				}
			}
		}
		if at, err := time.Parse("20060102T150405Z", strings.SplitN(e.Session, "-", 2)[0]); err == nil {
			s.Started = at
			if d := e.When.Sub(at); d > 0 {
				s.Seconds = int(d / time.Second)
			}
		}
		out = append(out, s)
	}
	// The report tells the night in the order it went: oldest first.
	slices.Reverse(out)
	return out, nil
}

// WithTasks returns a copy of ss with each session's task title and the task's
// summary, read from the tasks' files as they are now.
func WithTasks(ctx context.Context, r *research.Research, ss []ReportSession) []ReportSession {
	out := slices.Clone(ss)
	tasks := map[string]*statefiles.Task{}
	for i, s := range out {
		t, ok := tasks[s.Task]
		if !ok {
			if ft, err := r.Tree.FindTask(ctx, s.Task); err == nil {
				t = &ft
			}
			tasks[s.Task] = t
		}
		if t != nil {
			out[i].Title = t.Title
			if t.Summary != nil {
				out[i].Summary = t.Summary.Text
			}
		}
	}
	return out
}

// WaitingForPerson are the questions that wait for an answer and the tasks
// parked, in queue order, each with the command that answers or unparks it.
func WaitingForPerson(ctx context.Context, r *research.Research) ([]WaitingQuestion, []ParkedTask, error) {
	qs, parked := []WaitingQuestion{}, []ParkedTask{}
	err := r.Tree.EachTask(ctx, statefiles.Waiting, func(t statefiles.Task) bool {
		q := WaitingQuestion{Task: t.ID, Title: t.Title, Command: "strom task answer " + t.ID + " \"…\""}
		if n := len(t.Questions); n > 0 {
			q.Question, q.Asked = t.Questions[n-1].Question, t.Questions[n-1].Asked
		}
		qs = append(qs, q)
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	p := r.Messages()
	err = r.Tree.EachTask(ctx, statefiles.Parked, func(t statefiles.Task) bool {
		parked = append(parked, ParkedTask{Task: t.ID, Title: t.Title, Reason: queue.SayParkReason(p, t.Reason), Command: "strom task unpark " + t.ID})
		return true
	})
	return qs, parked, err
}
