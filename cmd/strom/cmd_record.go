package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/statefiles"
)

// sessionRef is the session and task of a command run by the agent ("" outside).
func (s *sys) sessionRef() harness.SessionRef {
	return harness.SessionRef{Session: s.getenv("STROM_SESSION"), Task: s.getenv("STROM_TASK")}
}

func recordCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom record")
	task := fs.String("task", "", "the task (outside a session)")
	return &ffcli.Command{
		Name:       "record",
		ShortUsage: "strom record TEXT [--task ID]",
		ShortHelp:  "help.record.short",
		FlagSet:    fs,
		LongHelp:   withHelp("Inside a session the record belongs to the session's task; outside, name the task with --task.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return usagef("strom record takes the text in quotes, e.g. strom record \"the 1850 register has no Anna Novak\"")
			}
			ref := s.sessionRef()
			if ref.Session == "" {
				if *task == "" {
					return usagef("outside a session, say which task the record is for: strom record --task T-3 \"…\"")
				}
				ref.Task = *task
			} else if *task != "" && statefiles.NormalizeID(*task) != statefiles.NormalizeID(ref.Task) {
				return fmt.Errorf("this session works on %s, so its records belong to %s: drop --task", ref.Task, ref.Task)
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if _, err := r.Record(ctx, ref, strings.Join(args, " ")); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "Recorded on %s.\n", statefiles.NormalizeID(ref.Task))
			return nil
		}),
	}
}

func doneCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom done")
	return &ffcli.Command{
		Name:       "done",
		ShortUsage: "strom done [ID]",
		ShortHelp:  "help.done.short",
		FlagSet:    fs,
		LongHelp:   withHelp("Record what was found first: strom record \"…\".", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			ref := s.sessionRef()
			id := ""
			if len(args) == 1 {
				id = args[0]
			} else if len(args) > 1 || ref.Session == "" {
				return usagef("strom done takes one task id outside a session, e.g. strom done T-3")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := r.Done(ctx, ref, id)
			if err != nil {
				return err
			}
			if ref.Session != "" {
				fmt.Fprintf(s.stdout, "%s is done. The session closes now: exit when you have finished writing.\n", t.ID)
				return nil
			}
			fmt.Fprintf(s.stdout, "%s is done.\n", t.ID)
			return nil
		}),
	}
}

func askCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom ask")
	task := fs.String("task", "", "the task (outside a session)")
	return &ffcli.Command{
		Name:       "ask",
		ShortUsage: "strom ask QUESTION",
		ShortHelp:  "help.ask.short",
		FlagSet:    fs,
		LongHelp:   withHelp("A person answers with strom task answer ID \"…\"; the task then returns to the queue.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return usagef("strom ask takes the question in quotes, e.g. strom ask \"which Anna Novak: born 1850 or 1852?\"")
			}
			ref := s.sessionRef()
			id := *task
			if ref.Session == "" && id == "" {
				return usagef("outside a session, say which task waits: strom ask --task T-3 \"…\"")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := r.Ask(ctx, ref, id, strings.Join(args, " "))
			if err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "%s waits for a person's answer.", t.ID)
			if ref.Session != "" {
				fmt.Fprint(s.stdout, " The session closes now: exit when you have finished writing.")
			}
			fmt.Fprintln(s.stdout)
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
	recs, err := r.Records(ctx, t.ID)
	if err != nil {
		return err
	}
	if s.json {
		return s.printJSON(struct {
			statefiles.Task
			Records  []statefiles.Record `json:"records"`
			Deadline string              `json:"deadline"`
		}{t, recs, s.getenv("STROM_DEADLINE")})
	}
	printTask(s, t, recs)
	if dl, err := time.Parse(time.RFC3339, s.getenv("STROM_DEADLINE")); err == nil {
		fmt.Fprintf(s.stdout, "\nsession %s ends at %s UTC: %s.\n", ref.Session, harness.ClockAt(dl.UTC()), harness.TimeLeft(r.Now(), dl))
	}
	return nil
}

// noteActivity records a strom command inside a session as the agent's activity
// (R7.2): an agent that only runs strom commands is not idle. It runs before the
// command, so that the session's end, which clears the mark, comes after it.
func noteActivity(s *sys, args []string) {
	ref := s.sessionRef()
	// The statusLine Claude Code runs by itself is no act of the agent.
	if ref.Session == "" || !validSessionID(ref.Session) || len(args) > 0 && args[0] == "usage" {
		return
	}
	if r, err := s.research(); err == nil {
		r.NoteActivity(ref.Session)
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
		if n := harness.SayTimeNote(s.msg(), s.clock().Now(), dl, time.Duration(mins)*time.Minute); n != "" {
			notes = append(notes, n)
		}
	}
	if r, err := s.research(); err == nil {
		if f, ok := r.FinishRequested(ref.Session); ok {
			notes = append(notes, f.SayNote(s.msg()))
		}
	}
	return notes
}
