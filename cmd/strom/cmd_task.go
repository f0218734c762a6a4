package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/views"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// research finds the research repo once per command: the agent runs strom many
// times a session, and each walk up the folders is paid again otherwise.
func (s *sys) research() (*research.Research, error) {
	if s.res == nil {
		r, err := research.Open(s.cwd(), s.env())
		if err != nil {
			return nil, err
		}
		s.res = r
		// The first strom command in a research puts it on this computer's list
		// (strom app); a list that cannot be written does not stop the command.
		_ = views.Remember(context.Background(), r)
	}
	return s.res, nil
}

// taskOptions are the flags of strom task itself.
type taskOptions struct {
	JSON bool // --json
}

func taskCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task")
	var o taskOptions
	fs.BoolVar(&o.JSON, "json", false, "help.flag.json")
	var task *ffcli.Command
	task = &ffcli.Command{
		Name:       "task",
		ShortUsage: "strom task <add|list|show|edit|move|park|unpark|answer|summary> …",
		ShortHelp:  "help.task.short",
		LongHelp:   withHelp("help.task.long", ""),
		FlagSet:    fs,
		Subcommands: []*ffcli.Command{
			taskAddCommand(s), taskListCommand(s), taskShowCommand(s), taskEditCommand(s),
			taskMoveCommand(s), taskParkCommand(s), taskUnparkCommand(s), taskAnswerCommand(s),
			taskSummaryCommand(s),
		},
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return s.usage(s.noSuchCommand(task, args[0]))
			}
			return runTask(ctx, s, o)
		},
	}
	return task
}

// runTask is strom task itself: inside a session the session's task, outside
// the first page of the queue.
func runTask(ctx context.Context, s *sys, o taskOptions) error {
	s.json = o.JSON
	if s.inSession() != "" {
		return showSessionTask(ctx, s)
	}
	return listTasks(ctx, s, listOptions{json: o.JSON})
}

func taskAddCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task add")
	body := fs.String("body", "", "help.task.add.flag.body")
	bodyFile := fs.String("body-file", "", "help.task.add.flag.body-file")
	asJSON := fs.Bool("json", false, "help.task.add.flag.json")
	var needs stringList
	fs.Var(&needs, "needs", "help.task.add.flag.needs")
	return &ffcli.Command{
		Name:       "add",
		ShortUsage: "strom task add TITLE [--body TEXT | --body-file F] [--needs ARCHIVE[,ARCHIVE]]",
		ShortHelp:  "help.task.add.short",
		LongHelp:   withHelp("help.task.add.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) != 1 {
				return s.usage("usage.task.add.title", messages.Args{"Count": len(args)})
			}
			text := *body
			if err := statefiles.CheckInput(statefiles.BodyText, text, "--body"); err != nil {
				return err
			}
			if *bodyFile != "" {
				if *body != "" {
					return s.usage("usage.task.body_both")
				}
				var err error
				if text, err = readText(s, *bodyFile); err != nil {
					return err
				}
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := queue.AddTaskFrom(ctx, r, args[0], text, s.sessionRef(), needs)
			if err != nil {
				return err
			}
			if *asJSON {
				return s.printJSON(t)
			}
			if t.State == statefiles.Parked {
				fmt.Fprintln(s.stdout, s.msg().Say("task.added_parked", messages.Args{"Task": t.ID, "Reason": s.parkReason(t.Reason)}))
				return nil
			}
			fmt.Fprintln(s.stdout, t.ID)
			return nil
		}),
	}
}

// readText reads the text --body-file names (- for stdin), at most one byte past
// its bound: a larger file is refused without being read whole.
func readText(s *sys, path string) (string, error) {
	var r io.Reader = s.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", readError(path, err)
		}
		defer f.Close()
		r = f
	}
	if r == nil {
		return "", nil
	}
	b, err := io.ReadAll(io.LimitReader(r, statefiles.BodyMax+1))
	if err != nil {
		return "", readError(path, err)
	}
	return string(b), statefiles.CheckInput(statefiles.BodyText, string(b), "--body-file "+termsafe.Excerpt(path))
}

// readError is the error of reading the file a person named: its path said once,
// by its start (termsafe.Excerpt), however long the path given was.
func readError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("read %s: %w", termsafe.Excerpt(path), err)
}
