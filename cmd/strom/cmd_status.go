package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/machines"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

type statusJSON struct {
	Mode    string                   `json:"mode"`
	Tasks   map[statefiles.State]int `json:"tasks"`
	Last    *harness.SessionEntry    `json:"last_session"`
	Running *runfiles.RunInfo        `json:"running"`
	// NotAllowed: tree settings that start programs, not allowed on this computer.
	NotAllowed []consent.Value `json:"not_allowed"`
	// Finish is a finish request pending in the running run (R7.3).
	Finish *runfiles.FinishRequest `json:"finish_requested,omitempty"`
	// Sync is the sync with a remote (sync.remote).
	Sync machines.State `json:"sync"`
	// LastRun is the last run as run.json keeps it, with its end line; nil when
	// none is kept.
	LastRun *harness.LastRun `json:"last_run"`
	// QuestionsWaiting counts the tasks that wait for a person's answer.
	QuestionsWaiting int `json:"questions_waiting"`
}

// statusOptions are the flags of strom status.
type statusOptions struct {
	JSON bool // --json
}

func statusCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom status")
	var o statusOptions
	fs.BoolVar(&o.JSON, "json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "status",
		ShortUsage: "strom status [--json]",
		ShortHelp:  "help.status.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.status.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = o.JSON
			if len(args) > 0 {
				return s.usage("usage.status.args")
			}
			return runStatus(ctx, s, o)
		}),
	}
}

// runStatus is strom status: the mode, the tasks by state, the run, the last
// session, the sync and what is not allowed, as lines or JSON.
func runStatus(ctx context.Context, s *sys, o statusOptions) error {
	s.json = o.JSON
	r, err := s.research()
	if err != nil {
		return err
	}
	st, err := harness.ReadStatus(ctx, r)
	if err != nil {
		return err
	}
	out := statusJSON{Mode: st.Mode, Tasks: st.Counts, Last: st.Last, Running: st.Running, NotAllowed: st.NotAllowed, Sync: st.Sync,
		QuestionsWaiting: st.Counts[statefiles.Waiting]}
	if out.LastRun, err = harness.ReadLastRun(r); err != nil {
		return err
	}
	if out.NotAllowed == nil {
		out.NotAllowed = []consent.Value{}
	}
	finish, asked := runfiles.PendingFinish(r, st.Running)
	if asked {
		out.Finish = &finish
	}
	if o.JSON {
		return s.printJSON(out)
	}
	p := s.msg()
	mode := st.ModeText
	if st.State != nil {
		mode = modeText(p, *st.State)
	}
	fmt.Fprintln(s.stdout, p.Say("status.mode", messages.Args{"Mode": mode}))
	fmt.Fprintln(s.stdout, p.Say("status.tasks", messages.Args{"Open": st.Counts[statefiles.Open], "Started": st.Counts[statefiles.Started],
		"Waiting": st.Counts[statefiles.Waiting], "Parked": st.Counts[statefiles.Parked], "Done": st.Counts[statefiles.Done]}))
	if st.Running != nil {
		ri := st.Running
		pending := ""
		if asked {
			pending = p.Say("status.finish_asked")
			if !finish.Person() {
				pending = p.Say("status.finish_"+finish.Limit(), messages.Args{"Gate": finish.Gate})
			}
		}
		switch {
		case !ri.PausedTill.IsZero() && ri.Session == "":
			fmt.Fprintln(s.stdout, p.Say("status.paused", messages.Args{"Until": ri.PausedTill.Local().Format("15:04"), "Why": termsafe.Line(ri.PauseWhy), "Pending": pending, "PID": ri.PID}))
		case ri.Session != "":
			fmt.Fprintln(s.stdout, p.Say("status.session", messages.Args{"Session": ri.Session, "Task": ri.Task,
				"Left": session.SayTimeLeft(p, r.Now(), ri.Deadline), "Until": runfiles.ClockAt(ri.Deadline.Local()), "Pending": pending, "PID": ri.PID}))
		default:
			fmt.Fprintln(s.stdout, p.Say("status.between", messages.Args{"Pending": pending, "PID": ri.PID}))
		}
	} else {
		fmt.Fprintln(s.stdout, p.Say("status.no_run"))
	}
	if st.Last != nil {
		end := st.Last.End
		if _, ok := ends.ParseEnd(end); ok {
			end = p.Say("end." + end)
		}
		line := p.Say("status.last", messages.Args{"Session": st.Last.Session, "Task": st.Last.Task,
			"When": st.Last.When.Local().Format("2006-01-02 15:04"), "End": end})
		if st.Last.CheckFailed != "" {
			line += " — " + p.Say("run.check_failed", messages.Args{"Why": termsafe.Line(st.Last.CheckFailed)})
		}
		fmt.Fprintln(s.stdout, line)
	} else {
		fmt.Fprintln(s.stdout, p.Say("status.last_none"))
	}
	// The last run's end line, as it printed it; a run at work has its line above.
	if lr := out.LastRun; lr != nil && !lr.Working {
		when := lr.Ended
		if when.IsZero() {
			when = lr.Started
		}
		fmt.Fprintln(s.stdout, p.Say("status.last_run", messages.Args{"Line": lr.Line, "When": zoned(when)}))
	}
	if n := out.QuestionsWaiting; n > 0 {
		fmt.Fprintln(s.stdout, p.Say("status.questions", messages.Args{"Count": n}))
	} else {
		fmt.Fprintln(s.stdout, p.Say("status.questions_none"))
	}
	switch sy := st.Sync; {
	case !sy.On:
		fmt.Fprintln(s.stdout, p.Say("status.sync_off"))
	case sy.Problem != "":
		fmt.Fprintln(s.stdout, p.Say("status.sync_problem", messages.Args{"Remote": sy.Remote, "Problem": sy.Problem}))
	default:
		fmt.Fprintln(s.stdout, p.Say("status.sync_on", messages.Args{"Remote": sy.Remote, "Branch": sy.Branch}))
		if sy.Unpushed > 0 {
			fmt.Fprintln(s.stdout, p.Say("status.sync_unpushed", messages.Args{"Count": sy.Unpushed}))
		}
		for _, c := range sy.Claims {
			fmt.Fprintln(s.stdout, p.Say("status.claim", messages.Args{"Task": c.Task, "Host": c.Host, "Session": c.Session,
				"Since": c.Since.Local().Format("2006-01-02 15:04")}))
		}
	}
	if err := st.ConsentError(s.terminal() != nil); err != nil {
		fmt.Fprintln(s.stdout, p.Say("status.not_allowed", messages.Args{"Problem": p.Text(err)}))
	}
	return nil
}
