package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

func taskEditCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task edit")
	title := fs.String("title", "", "help.task.edit.flag.title")
	body := fs.String("body", "", "help.task.edit.flag.body")
	bodyFile := fs.String("body-file", "", "help.task.edit.flag.body-file")
	var needs stringList
	fs.Var(&needs, "needs", "help.task.edit.flag.needs")
	return &ffcli.Command{
		Name:       "edit",
		ShortUsage: "strom task edit ID [--title T] [--body TEXT | --body-file F] [--needs ARCHIVE[,ARCHIVE]]",
		ShortHelp:  "help.task.edit.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.task.edit.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task edit"); err != nil {
				return err
			}
			if len(args) != 1 {
				return s.usage("usage.task.edit.args")
			}
			var tp, bp *string
			set := map[string]bool{}
			fs.Visit(func(f *flagT) { set[f.Name] = true })
			if set["title"] {
				if err := statefiles.CheckInput(statefiles.TitleText, strings.TrimSpace(*title), "--title"); err != nil {
					return err
				}
				tp = title
			}
			if set["body"] && set["body-file"] {
				return s.usage("usage.task.body_both")
			}
			if set["body"] {
				if err := statefiles.CheckInput(statefiles.BodyText, *body, "--body"); err != nil {
					return err
				}
				bp = body
			}
			if set["body-file"] {
				text, err := readText(s, *bodyFile)
				if err != nil {
					return err
				}
				bp = &text
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if tp == nil && bp == nil && !set["needs"] {
				return editTask(ctx, s, r, args[0])
			}
			var t statefiles.Task
			if set["needs"] {
				if t, err = queue.SetNeeds(ctx, r, args[0], needs); err != nil {
					return err
				}
			}
			if tp != nil || bp != nil {
				if t, err = queue.EditTask(ctx, r, args[0], tp, bp); err != nil {
					return err
				}
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.edited", messages.Args{"Task": t.ID}))
			return nil
		}),
	}
}

func taskMoveCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task move")
	before := fs.String("before", "", "help.task.move.flag.before")
	return &ffcli.Command{
		Name:       "move",
		ShortUsage: "strom task move ID --before ID2",
		ShortHelp:  "help.task.move.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.task.move.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task move"); err != nil {
				return err
			}
			if len(args) != 1 || *before == "" {
				return s.usage("usage.task.move.args")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if err := queue.MoveTask(ctx, r, args[0], *before); err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.moved", messages.Args{"Task": statefiles.NormalizeID(args[0]), "Before": statefiles.NormalizeID(*before)}))
			return nil
		}),
	}
}

func taskParkCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task park")
	why := fs.String("why", "", "help.task.park.flag.why")
	return &ffcli.Command{
		Name:       "park",
		ShortUsage: "strom task park ID --why TEXT",
		ShortHelp:  "help.task.park.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.task.park.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task park"); err != nil {
				return err
			}
			if len(args) != 1 {
				return s.usage("usage.task.park.args")
			}
			if strings.TrimSpace(*why) == "" {
				return s.usage("usage.task.park.why")
			}
			if err := statefiles.CheckInput(statefiles.ReasonText, *why, "--why"); err != nil {
				return err
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := queue.ParkTask(ctx, r, args[0], *why)
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.parked", messages.Args{"Task": t.ID, "Reason": s.parkReason(t.Reason)}))
			return nil
		}),
	}
}

func taskUnparkCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task unpark")
	return &ffcli.Command{
		Name:       "unpark",
		ShortUsage: "strom task unpark ID",
		ShortHelp:  "help.task.unpark.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.task.unpark.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task unpark"); err != nil {
				return err
			}
			if len(args) != 1 {
				return s.usage("usage.task.unpark.args")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := queue.UnparkTask(ctx, r, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.unparked", messages.Args{"Task": t.ID, "State": s.msg().Say("state." + string(t.State))}))
			return nil
		}),
	}
}

func taskAnswerCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task answer")
	return &ffcli.Command{
		Name:       "answer",
		ShortUsage: "strom task answer ID TEXT",
		ShortHelp:  "help.task.answer.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.task.answer.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task answer"); err != nil {
				return err
			}
			if len(args) != 2 {
				return s.usage("usage.task.answer.args")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := queue.AnswerTask(ctx, r, args[0], args[1])
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.answered", messages.Args{"Task": t.ID}))
			return nil
		}),
	}
}

// parkReason is a parking reason as a person reads it: the reasons strom parks
// with, kept in English in the task's file, in the person's language.
func (s *sys) parkReason(reason string) string {
	return queue.SayParkReason(s.msg(), reason)
}
