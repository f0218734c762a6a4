package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// research finds the research repo once per command: the agent runs strom many
// times a session, and each walk up the folders is paid again otherwise.
func (s *sys) research() (*harness.Research, error) {
	if s.res == nil {
		r, err := harness.Open(s.cwd(), s.env())
		if err != nil {
			return nil, err
		}
		s.res = r
		// The first strom command in a research puts it on this computer's list
		// (strom app); a list that cannot be written does not stop the command.
		_ = r.Remember(context.Background())
	}
	return s.res, nil
}

func taskCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task")
	asJSON := fs.Bool("json", false, "print JSON")
	return &ffcli.Command{
		Name:       "task",
		ShortUsage: "strom task <add|list|show|edit|move|park|unpark|answer> …",
		ShortHelp:  "help.task.short",
		LongHelp: withHelp(`Tasks are kept in .strom/queue.json in queue order; a run takes the first open
task. Ids (T-1, T-2, …) are never reused. A person adds, edits, reorders, parks,
unparks and answers; the agent in a session may add tasks and ends its own task
with strom done or strom ask.`, ""),
		FlagSet: fs,
		Subcommands: []*ffcli.Command{
			taskAddCommand(s), taskListCommand(s), taskShowCommand(s), taskEditCommand(s),
			taskMoveCommand(s), taskParkCommand(s), taskUnparkCommand(s), taskAnswerCommand(s),
		},
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usagef("unknown task command %q: use add, list, show, edit, move, park, unpark or answer", args[0])
			}
			s.json = *asJSON
			if s.inSession() != "" {
				return showSessionTask(ctx, s)
			}
			return listTasks(ctx, s, listOptions{json: *asJSON})
		},
	}
}

func taskAddCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task add")
	body := fs.String("body", "", "the task's text")
	bodyFile := fs.String("body-file", "", "read the task's text from a file (- = stdin)")
	asJSON := fs.Bool("json", false, "print the new task as JSON")
	var needs stringList
	fs.Var(&needs, "needs", "the archives the task reads, comma-separated: a run takes it only while they answer")
	return &ffcli.Command{
		Name:       "add",
		ShortUsage: "strom task add TITLE [--body TEXT | --body-file F] [--needs ARCHIVE[,ARCHIVE]]",
		ShortHelp:  "add a task at the end of the queue and print its id",
		LongHelp:   withHelp("Flags may come before or after the title.", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) != 1 {
				return usagef("strom task add takes one title (quote it), not %d words: strom task add \"Find the baptism of Anna Novak\"", len(args))
			}
			text := *body
			if *bodyFile != "" {
				if *body != "" {
					return usagef("give the text with --body or --body-file, not both")
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
			t, err := r.AddTaskNeeding(ctx, args[0], text, s.inSession(), needs)
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

func readText(s *sys, path string) (string, error) {
	if path == "-" {
		b, err := readAll(s.stdin)
		return string(b), err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return string(b), nil
}

func taskListCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task list")
	asJSON := fs.Bool("json", false, "print JSON")
	state := fs.String("state", "", "only tasks in this state: open, started, waiting, done, parked")
	page := fs.Int("page", 0, fmt.Sprintf("show page N of %d tasks (default: the first; with --json: all)", listPage))
	all := fs.Bool("all", false, "show every task, not a page")
	return &ffcli.Command{
		Name:       "list",
		ShortUsage: "strom task list [--state S] [--page N | --all] [--json]",
		ShortHelp:  "the queue in order",
		FlagSet:    fs,
		LongHelp: withHelp(fmt.Sprintf(`Lists the tasks in queue order: id, state, title, %d at a time; the last line
says how to see the next page. --json lists every task unless --page is given.`, listPage), ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 0 {
				return usagef("strom task list takes no arguments; use --state to filter")
			}
			if *page < 0 {
				return usagef("--page must be 1 or more, not %d", *page)
			}
			if *page > 0 && *all {
				return usagef("give --page or --all, not both")
			}
			return listTasks(ctx, s, listOptions{state: *state, json: *asJSON, page: *page, all: *all})
		}),
	}
}

// listPage is how many tasks a page of strom task list shows.
const listPage = 100

type listOptions struct {
	state string
	json  bool
	page  int // 0: the first page, or every task with json
	all   bool
}

// listTasks prints a page of the queue, read through the queue's index: a page
// costs the same in a queue of any length.
func listTasks(ctx context.Context, s *sys, o listOptions) error {
	var want statefiles.State
	if o.state != "" {
		st, err := statefiles.ParseState(o.state)
		if err != nil {
			return usageError{msg: err.Error()}
		}
		want = st
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	page, size := max(o.page, 1), listPage
	if o.all || (o.json && o.page == 0) {
		page, size = 1, math.MaxInt
	}
	tasks, total, err := r.Tree.QueuePage(ctx, want, (page-1)*listPage, size)
	if err != nil {
		return err
	}
	if o.json {
		return s.printJSON(tasks)
	}
	if len(tasks) == 0 {
		switch {
		case total > 0:
			fmt.Fprintf(s.stdout, "Page %d is past the last page: %d tasks, %d a page.\n", page, total, listPage)
		case want != "":
			fmt.Fprintln(s.stdout, s.msg().Say("task.none_in_state", messages.Args{"State": s.msg().Say("state." + string(want))}))
		default:
			fmt.Fprintln(s.stdout, s.msg().Say("task.queue_empty"))
		}
		return nil
	}
	defer func() {
		first := (page-1)*listPage + 1
		if last := first + len(tasks) - 1; first > 1 || last < total {
			next := ""
			if last < total {
				next = fmt.Sprintf(": strom task list --page %d shows the next ones, --all every one", page+1)
			}
			fmt.Fprintf(s.stdout, "Tasks %d–%d of %d%s.\n", first, last, total, next)
		}
	}()
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	for _, t := range tasks {
		extra := ""
		switch t.State {
		case statefiles.Parked:
			extra = " — " + t.Reason
		case statefiles.Started:
			switch {
			case r.ClaimedElsewhere(t):
				extra = " — " + s.msg().Say("task.claimed_elsewhere", messages.Args{"Host": t.Host, "Session": t.Session,
					"Since": harness.ClaimTime(t).Local().Format("2006-01-02 15:04")})
			case t.Host != "":
				extra = " — session " + t.Session + " on " + t.Host
			default:
				extra = " — session " + t.Session
			}
		case statefiles.Waiting:
			if n := len(t.Questions); n > 0 {
				extra = " — asks: " + t.Questions[n-1].Question
			}
		}
		if len(t.Needs) > 0 && (t.State == statefiles.Open || t.State == statefiles.Started) {
			extra += " — needs " + strings.Join(t.Needs, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%s\n", t.ID, t.State, oneLine(t.Title), extra)
	}
	return tw.Flush()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func taskShowCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task show")
	asJSON := fs.Bool("json", false, "print JSON")
	return &ffcli.Command{
		Name:       "show",
		ShortUsage: "strom task show ID [--json]",
		ShortHelp:  "one task with its questions and records",
		FlagSet:    fs,
		LongHelp:   withHelp("Shows the task's text, state, questions and answers, and every record made on it.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) != 1 {
				return usagef("strom task show takes one task id, e.g. strom task show T-3")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			q, err := r.Tree.LoadQueue()
			if err != nil {
				return err
			}
			t, err := q.Find(args[0])
			if err != nil {
				return err
			}
			recs, err := r.Records(ctx, t.ID)
			if err != nil {
				return err
			}
			if *asJSON {
				if recs == nil {
					recs = []statefiles.Record{}
				}
				return s.printJSON(struct {
					statefiles.Task
					Records []statefiles.Record `json:"records"`
				}{*t, recs})
			}
			printTask(s, *t, recs)
			return nil
		}),
	}
}

func printTask(s *sys, t statefiles.Task, recs []statefiles.Record) {
	fmt.Fprintf(s.stdout, "%s  %s\nstate: %s", t.ID, t.Title, t.State)
	switch t.State {
	case statefiles.Parked:
		fmt.Fprintf(s.stdout, " (%s; returns to %s)", t.Reason, t.ParkedFrom)
	case statefiles.Started:
		if t.Host != "" {
			fmt.Fprintf(s.stdout, " (session %s on %s)", t.Session, t.Host)
		} else {
			fmt.Fprintf(s.stdout, " (session %s)", t.Session)
		}
	}
	fmt.Fprintf(s.stdout, "\ncreated: %s  updated: %s\n", t.Created.Format("2006-01-02 15:04 MST"), t.Updated.Format("2006-01-02 15:04 MST"))
	if t.AddedBy != "" {
		fmt.Fprintf(s.stdout, "added by session %s\n", t.AddedBy)
	}
	if len(t.Needs) > 0 {
		fmt.Fprintf(s.stdout, "needs: %s\n", strings.Join(t.Needs, ", "))
	}
	if strings.TrimSpace(t.Body) != "" {
		fmt.Fprintf(s.stdout, "\n%s\n", strings.TrimRight(t.Body, "\n"))
	}
	for _, q := range t.Questions {
		fmt.Fprintf(s.stdout, "\nasked %s: %s\n", q.Asked.Format("2006-01-02 15:04"), q.Question)
		if q.Answered != nil {
			fmt.Fprintf(s.stdout, "answered %s: %s\n", q.Answered.Format("2006-01-02 15:04"), q.Answer)
		}
	}
	if len(recs) > 0 {
		fmt.Fprintln(s.stdout, "\nrecords:")
		for _, r := range recs {
			fmt.Fprintf(s.stdout, "  %s  %s\n", r.Time.Format("2006-01-02 15:04"), r.Text)
		}
	}
}

func taskEditCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task edit")
	title := fs.String("title", "", "the new title")
	body := fs.String("body", "", "the new text")
	bodyFile := fs.String("body-file", "", "read the new text from a file (- = stdin)")
	var needs stringList
	fs.Var(&needs, "needs", `the archives the task reads, comma-separated ("" = none)`)
	return &ffcli.Command{
		Name:       "edit",
		ShortUsage: "strom task edit ID [--title T] [--body TEXT | --body-file F] [--needs ARCHIVE[,ARCHIVE]]",
		ShortHelp:  "change a task's title or text",
		FlagSet:    fs,
		LongHelp: withHelp(`Without flags, opens the task in your editor, as git does for a commit message
(GIT_EDITOR, core.editor, VISUAL, EDITOR): the first line is the title, the text
follows after an empty line. An empty title, a failing editor or a change to the
task made meanwhile leave the task as it was, and your text in
.strom/run/TASK_EDITMSG. Only a person edits tasks; the agent records instead.`, ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task edit"); err != nil {
				return err
			}
			if len(args) != 1 {
				return usagef("strom task edit takes one task id, e.g. strom task edit T-3 --title \"…\"")
			}
			var tp, bp *string
			set := map[string]bool{}
			fs.Visit(func(f *flagT) { set[f.Name] = true })
			if set["title"] {
				tp = title
			}
			if set["body"] && set["body-file"] {
				return usagef("give the text with --body or --body-file, not both")
			}
			if set["body"] {
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
				if t, err = r.SetNeeds(ctx, args[0], needs); err != nil {
					return err
				}
			}
			if tp != nil || bp != nil {
				if t, err = r.EditTask(ctx, args[0], tp, bp); err != nil {
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
	before := fs.String("before", "", "the task to put it before")
	return &ffcli.Command{
		Name:       "move",
		ShortUsage: "strom task move ID --before ID2",
		ShortHelp:  "reorder the queue",
		FlagSet:    fs,
		LongHelp:   withHelp("A run takes the first open task in queue order.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task move"); err != nil {
				return err
			}
			if len(args) != 1 || *before == "" {
				return usagef("strom task move takes a task id and --before ID2, e.g. strom task move T-5 --before T-2")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if err := r.MoveTask(ctx, args[0], *before); err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.moved", messages.Args{"Task": statefiles.NormalizeID(args[0]), "Before": statefiles.NormalizeID(*before)}))
			return nil
		}),
	}
}

func taskParkCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task park")
	why := fs.String("why", "", "why the task is set aside")
	return &ffcli.Command{
		Name:       "park",
		ShortUsage: "strom task park ID --why TEXT",
		ShortHelp:  "set a task aside; only a person unparks it",
		FlagSet:    fs,
		LongHelp:   withHelp("A parked task is not worked on until strom task unpark returns it where it was.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task park"); err != nil {
				return err
			}
			if len(args) != 1 {
				return usagef("strom task park takes one task id and --why, e.g. strom task park T-3 --why \"needs the 1850 register\"")
			}
			if strings.TrimSpace(*why) == "" {
				return usagef("say why the task is parked with --why \"…\"")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := r.ParkTask(ctx, args[0], *why)
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
		ShortHelp:  "return a parked task to where it was",
		FlagSet:    fs,
		LongHelp:   withHelp("The task returns to the queue, or to waiting for a person's answer.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task unpark"); err != nil {
				return err
			}
			if len(args) != 1 {
				return usagef("strom task unpark takes one task id, e.g. strom task unpark T-3")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := r.UnparkTask(ctx, args[0])
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
		ShortHelp:  "answer a waiting task's question; it returns to the queue",
		FlagSet:    fs,
		LongHelp:   withHelp("The answer is kept with the task, and the next session on it sees it.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom task answer"); err != nil {
				return err
			}
			if len(args) != 2 {
				return usagef("strom task answer takes a task id and the answer in quotes, e.g. strom task answer T-3 \"the one born 1850\"")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := r.AnswerTask(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("task.answered", messages.Args{"Task": t.ID}))
			return nil
		}),
	}
}

// parkReason is a parking reason as a person reads it: the archive's reason, kept
// in English in queue.json, in the person's language.
func (s *sys) parkReason(reason string) string {
	if reason == harness.ArchiveReason {
		return s.msg().Say("task.archive_reason")
	}
	return reason
}
