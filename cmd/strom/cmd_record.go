package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/messages"

	"github.com/strom-research/strom/statefiles"
)

// sessionRef is the session and task of a command run by the agent ("" outside).
func (s *sys) sessionRef() queue.SessionRef {
	return queue.SessionRef{Session: s.getenv("STROM_SESSION"), Task: s.getenv("STROM_TASK")}
}

// recordOptions are the flags and words of strom record.
type recordOptions struct {
	Task string // --task: the task outside a session
	Text string // the record: the words, joined by spaces
}

func recordCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom record")
	var o recordOptions
	fs.StringVar(&o.Task, "task", "", "help.record.flag.task")
	return &ffcli.Command{
		Name:       "record",
		ShortUsage: "strom record TEXT [--task ID]",
		ShortHelp:  "help.record.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.record.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return s.usage("usage.record.text")
			}
			o.Text = strings.Join(args, " ")
			return runRecord(ctx, s, o)
		}),
	}
}

// runRecord is strom record: the text appended to the records of the session's
// task, or of --task outside a session.
func runRecord(ctx context.Context, s *sys, o recordOptions) error {
	ref := s.sessionRef()
	if ref.Session == "" {
		if o.Task == "" {
			return s.usage("usage.record.task")
		}
		ref.Task = o.Task
	} else if o.Task != "" && statefiles.NormalizeID(o.Task) != statefiles.NormalizeID(ref.Task) {
		return errors.New(s.msg().Say("record.other_task", messages.Args{"Task": ref.Task}))
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	if _, err := queue.Record(ctx, r, ref, o.Text); err != nil {
		return err
	}
	fmt.Fprintln(s.stdout, s.msg().Say("record.done", messages.Args{"Task": statefiles.NormalizeID(ref.Task)}))
	return nil
}

func doneCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom done")
	return &ffcli.Command{
		Name:       "done",
		ShortUsage: "strom done [ID]",
		ShortHelp:  "help.done.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.done.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			ref := s.sessionRef()
			id := ""
			if len(args) == 1 {
				id = args[0]
			} else if len(args) > 1 || ref.Session == "" {
				return s.usage("usage.done.args")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			// A session's done closes it: the exit check that keeps strom session
			// close from closing keeps the task started too, and says why.
			if ref.Session != "" && (id == "" || id == ref.Task) {
				if why := session.CheckNow(ctx, r, ref.Session, ref.Task); why != "" {
					return errors.New(s.msg().Say("done.not_yet", messages.Args{"Task": ref.Task, "Why": why}))
				}
			}
			t, err := queue.Done(ctx, r, ref, id)
			if err != nil {
				return err
			}
			if ref.Session != "" {
				fmt.Fprintln(s.stdout, s.msg().Say("done.closing", messages.Args{"Task": t.ID}))
				return nil
			}
			fmt.Fprintln(s.stdout, s.msg().Say("done.done", messages.Args{"Task": t.ID}))
			return nil
		}),
	}
}

func askCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom ask")
	task := fs.String("task", "", "help.ask.flag.task")
	return &ffcli.Command{
		Name:       "ask",
		ShortUsage: "strom ask QUESTION [--task ID]",
		ShortHelp:  "help.ask.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.ask.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return s.usage("usage.ask.question")
			}
			ref := s.sessionRef()
			id := *task
			if ref.Session == "" && id == "" {
				return s.usage("usage.ask.task")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := queue.Ask(ctx, r, ref, id, strings.Join(args, " "))
			if err != nil {
				return err
			}
			if ref.Session != "" {
				fmt.Fprintln(s.stdout, s.msg().Say("ask.closing", messages.Args{"Task": t.ID}))
				return nil
			}
			fmt.Fprintln(s.stdout, s.msg().Say("ask.waits", messages.Args{"Task": t.ID}))
			return nil
		}),
	}
}

// showSessionTask is `strom task` inside a session: the task, its answers, and the
// time left.
func showSessionTask(ctx context.Context, s *sys) error {
	ref := s.sessionRef()
	r, err := s.research()
	if err != nil {
		return err
	}
	t, err := r.Tree.FindTask(ctx, ref.Task)
	if err != nil {
		return err
	}
	recs, err := queue.Records(ctx, r, t.ID)
	if err != nil {
		return err
	}
	recs, older := recordPage(recs, 1)
	if s.json {
		if recs == nil {
			recs = []statefiles.Record{}
		}
		return s.printJSON(struct {
			statefiles.Task
			Records  []statefiles.Record `json:"records"`
			Older    int                 `json:"older_records"`
			Deadline string              `json:"deadline"`
		}{t, recs, older, s.getenv("STROM_DEADLINE")})
	}
	printTask(s, t, recs)
	printOlder(s, t.ID, 1, older)
	if dl, err := time.Parse(time.RFC3339, s.getenv("STROM_DEADLINE")); err == nil {
		fmt.Fprintf(s.stdout, "\n%s\n", s.msg().Say("task.session_ends", messages.Args{"Session": ref.Session,
			"Ends": runfiles.ClockAt(dl.UTC()), "Left": session.SayTimeLeft(s.msg(), r.Now(), dl)}))
	}
	return nil
}

// noteActivity records a strom command inside a session as the agent's activity
// (R7.2): an agent that only runs strom commands is not idle. It runs before the
// command, so that the session's end, which clears the mark, comes after it.
func noteActivity(s *sys, args []string) {
	ref := s.sessionRef()
	// The statusLine Claude Code runs by itself is no act of the agent.
	if ref.Session == "" || !research.ValidSessionID(ref.Session) || len(args) > 0 && args[0] == "usage" {
		return
	}
	if r, err := s.research(); err == nil {
		runfiles.NoteActivity(r, ref.Session)
	}
}

// sessionNotes are the lines every strom command inside a session adds: the time
// left (R7.2) and a pending finish request (R7.3).
func sessionNotes(s *sys) []string {
	ref := s.sessionRef()
	if ref.Session == "" {
		return nil
	}
	var notes []string
	dl, err := time.Parse(time.RFC3339, s.getenv("STROM_DEADLINE"))
	if err == nil {
		mins, _ := strconv.Atoi(s.getenv("STROM_MINUTES"))
		if mins <= 0 {
			mins = 60
		}
		if n := session.SayTimeNote(s.msg(), s.clock().Now(), dl, time.Duration(mins)*time.Minute); n != "" {
			notes = append(notes, n)
		}
	}
	if r, err := s.research(); err == nil {
		if f, ok := runfiles.FinishRequested(r, ref.Session); ok {
			notes = append(notes, f.SayNote(s.msg()))
		}
	}
	return notes
}
