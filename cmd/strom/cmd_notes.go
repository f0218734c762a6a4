package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// rewriteOptions are the words and flags of strom task summary and strom note: the
// new text, given as words or in a file; none prints what is there.
type rewriteOptions struct {
	Task string // the task (strom task summary); "" = the session's
	Text string // the words
	Said bool   // the words were given (an empty text is refused, not printed)
	File string // --file: the text from a file, - for stdin
	JSON bool   // --json
}

func taskSummaryCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task summary")
	var o rewriteOptions
	fs.StringVar(&o.File, "file", "", "help.task.summary.flag.file")
	fs.BoolVar(&o.JSON, "json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "summary",
		ShortUsage: "strom task summary [ID] [TEXT | --file F] [--json]",
		ShortHelp:  "help.task.summary.short",
		LongHelp:   withHelp(s.helpWith("help.task.summary.long", messages.Args{"Bound": "4 KiB"}), ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = o.JSON
			// Outside a session the first word is the task; inside, the session's
			// task is meant unless two words name another.
			if s.inSession() == "" || len(args) > 1 {
				if len(args) == 0 {
					return s.usage("usage.task.summary.task")
				}
				o.Task, args = args[0], args[1:]
			}
			if len(args) > 1 {
				return s.usage("usage.task.summary.args", messages.Args{"Count": len(args)})
			}
			if len(args) == 1 {
				o.Text, o.Said = args[0], true
			}
			return runTaskSummary(ctx, s, o)
		}),
	}
}

// runTaskSummary is strom task summary: the task's summary rewritten whole from
// the words or --file, or printed when neither is given.
func runTaskSummary(ctx context.Context, s *sys, o rewriteOptions) error {
	text, given, err := rewriteText(s, o, statefiles.SummaryText, statefiles.SummaryMax)
	if err != nil {
		return err
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	ref := s.sessionRef()
	if !given {
		id := o.Task
		if id == "" {
			id = ref.Task
		}
		t, err := r.Tree.FindTask(ctx, id)
		if err != nil {
			return err
		}
		if s.json {
			return s.printJSON(struct {
				Task    string              `json:"task"`
				Summary *statefiles.Summary `json:"summary"`
			}{t.ID, t.Summary})
		}
		if t.Summary == nil {
			fmt.Fprintln(s.stdout, s.msg().Say("summary.none", messages.Args{"Task": t.ID}))
			return nil
		}
		fmt.Fprintln(s.stdout, s.msg().Say("summary.head", writtenArgs(s, t.ID, t.Summary.Updated, t.Summary.Session)))
		fmt.Fprintln(s.stdout, strings.TrimRight(t.Summary.Text, "\n"))
		return nil
	}
	t, err := queue.SetSummary(ctx, r, ref, o.Task, text)
	if err != nil {
		return err
	}
	if s.json {
		return s.printJSON(struct {
			Task    string              `json:"task"`
			Summary *statefiles.Summary `json:"summary"`
		}{t.ID, t.Summary})
	}
	fmt.Fprintln(s.stdout, s.msg().Say("summary.written", messages.Args{"Task": t.ID, "Size": len(text), "Bound": statefiles.SummaryMax}))
	return nil
}

func noteCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom note")
	var o rewriteOptions
	fs.StringVar(&o.File, "file", "", "help.note.flag.file")
	fs.BoolVar(&o.JSON, "json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "note",
		ShortUsage: "strom note [TEXT | --file F] [--json]",
		ShortHelp:  "help.note.short",
		LongHelp:   withHelp(s.helpWith("help.note.long", messages.Args{"Bound": "8 KiB"}), ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = o.JSON
			if len(args) > 1 {
				return s.usage("usage.note.args", messages.Args{"Count": len(args)})
			}
			if len(args) == 1 {
				o.Text, o.Said = args[0], true
			}
			return runNote(ctx, s, o)
		}),
	}
}

// runNote is strom note: the research's handover note rewritten whole from the
// words or --file, or printed when neither is given.
func runNote(ctx context.Context, s *sys, o rewriteOptions) error {
	text, given, err := rewriteText(s, o, statefiles.NoteText, statefiles.NoteMax)
	if err != nil {
		return err
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	if !given {
		n, err := r.Tree.LoadNote()
		if err != nil {
			return err
		}
		if s.json {
			return s.printJSON(struct {
				Note *statefiles.Note `json:"note"`
			}{n})
		}
		if n == nil {
			fmt.Fprintln(s.stdout, s.msg().Say("handover.none"))
			return nil
		}
		fmt.Fprintln(s.stdout, s.msg().Say("handover.head", writtenArgs(s, "", n.Updated, n.Session)))
		fmt.Fprintln(s.stdout, strings.TrimRight(n.Text, "\n"))
		return nil
	}
	n, err := queue.SetNote(ctx, r, s.sessionRef(), text)
	if err != nil {
		return err
	}
	if s.json {
		return s.printJSON(struct {
			Note *statefiles.Note `json:"note"`
		}{n})
	}
	fmt.Fprintln(s.stdout, s.msg().Say("handover.written", messages.Args{"Size": len(text), "Bound": statefiles.NoteMax}))
	return nil
}

// rewriteText is the text a summary or note is rewritten with: the words, or the
// file --file names (- for stdin), read no further than one byte past bound.
// given is false when neither was given (the command prints instead).
func rewriteText(s *sys, o rewriteOptions, kind statefiles.TextKind, bound int) (text string, given bool, err error) {
	switch {
	case o.File != "" && o.Said:
		return "", false, s.usage("usage.note.both")
	case o.Said:
		return o.Text, true, statefiles.CheckInput(kind, o.Text, "")
	case o.File == "":
		return "", false, nil
	}
	var in io.Reader = s.stdin
	if o.File != "-" {
		f, err := os.Open(o.File)
		if err != nil {
			return "", false, readError(o.File, err)
		}
		defer f.Close()
		in = f
	}
	if in == nil {
		in = strings.NewReader("")
	}
	b, err := io.ReadAll(io.LimitReader(in, int64(bound)+1))
	if err != nil {
		return "", false, readError(o.File, err)
	}
	return string(b), true, statefiles.CheckInput(kind, string(b), "--file "+termsafe.Excerpt(o.File))
}

// writtenArgs are the words of a summary's or note's heading: when and by whom it
// was written last (a session, or a person).
func writtenArgs(s *sys, task string, when time.Time, session string) messages.Args {
	who := session
	if who == "" {
		who = s.msg().Say("handover.by_person")
	}
	return messages.Args{"Task": task, "When": when.Local().Format("2006-01-02 15:04"), "Who": who}
}
