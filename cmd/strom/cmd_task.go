package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/machines"
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

func taskListCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task list")
	asJSON := fs.Bool("json", false, "help.flag.json")
	state := fs.String("state", "", "help.task.list.flag.state")
	page := fs.Int("page", 0, s.helpWith("help.task.list.flag.page", messages.Args{"Page": listPage}))
	all := fs.Bool("all", false, "help.task.list.flag.all")
	return &ffcli.Command{
		Name:       "list",
		ShortUsage: "strom task list [--state S] [--page N | --all] [--json]",
		ShortHelp:  "help.task.list.short",
		FlagSet:    fs,
		LongHelp:   withHelp(s.helpWith("help.task.list.long", messages.Args{"Page": listPage}), ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 0 {
				return s.usage("usage.task.list.args")
			}
			// Pages count from 1: --page 0 is no page, not the flag left out.
			if *page < 0 || (*page == 0 && given(fs, "page")) {
				return s.usage("usage.task.list.page", messages.Args{"Value": *page})
			}
			if *page > 0 && *all {
				return s.usage("usage.task.list.page_all")
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
			return badUsage(err)
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
	// Another machine's claim holds an open task on the remote: it is shown
	// started there.
	tasks = machines.ShowClaims(ctx, r, tasks)
	if o.json {
		return s.printJSON(tasks)
	}
	p := s.msg()
	if len(tasks) == 0 {
		switch {
		case total > 0:
			fmt.Fprintln(s.stdout, p.Say("task.past_last", messages.Args{"Page": page, "Count": total, "Size": listPage}))
		case want != "":
			fmt.Fprintln(s.stdout, p.Say("task.none_in_state", messages.Args{"State": p.Say("state." + string(want))}))
		default:
			fmt.Fprintln(s.stdout, p.Say("task.queue_empty"))
		}
		return nil
	}
	defer func() {
		first := (page-1)*listPage + 1
		if last := first + len(tasks) - 1; first > 1 || last < total {
			span := messages.Args{"First": first, "Last": last, "Total": total, "Next": page + 1}
			if last < total {
				fmt.Fprintln(s.stdout, p.Say("task.span_next", span))
			} else {
				fmt.Fprintln(s.stdout, p.Say("task.span", span))
			}
		}
	}()
	states := map[statefiles.State]string{}
	for _, t := range tasks {
		if _, ok := states[t.State]; !ok {
			states[t.State] = p.Say("state." + string(t.State))
		}
	}
	rows := make([][]string, 0, len(tasks))
	for _, t := range tasks {
		extra := ""
		switch t.State {
		case statefiles.Parked:
			extra = " — " + s.parkReason(t.Reason)
		case statefiles.Started:
			switch {
			case machines.ClaimedElsewhere(r, t):
				extra = " — " + p.Say("task.claimed_elsewhere", messages.Args{"Host": t.Host, "Session": t.Session,
					"Since": machines.ClaimTime(t).Local().Format("2006-01-02 15:04")})
			case t.Host != "":
				extra = " — " + p.Say("task.list_session_on", messages.Args{"Session": t.Session, "Host": t.Host})
			default:
				extra = " — " + p.Say("task.list_session", messages.Args{"Session": t.Session})
			}
		case statefiles.Waiting:
			if n := len(t.Questions); n > 0 {
				extra = " — " + p.Say("task.list_asks", messages.Args{"Question": termsafe.Line(t.Questions[n-1].Question)})
			}
		}
		if len(t.Needs) > 0 && (t.State == statefiles.Open || t.State == statefiles.Started) {
			extra += " — " + p.Say("task.list_needs", messages.Args{"Archives": strings.Join(t.Needs, ", ")})
		}
		rows = append(rows, []string{t.ID, states[t.State], oneLine(t.Title) + extra})
	}
	return writeColumns(s.stdout, rows)
}

func oneLine(s string) string {
	if singleSpaced(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// singleSpaced reports whether s is words each after one space, which oneLine
// leaves as they are (most titles): no other white space, none at either end. The
// white space past ASCII that strings.Fields knows (U+0085, U+00A0, U+1680,
// U+2000 to U+3000) begins with one of four bytes in UTF-8; a title with any of
// them takes the long way.
func singleSpaced(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0xc2, c == 0xe1, c == 0xe2, c == 0xe3, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' '):
			return false
		}
	}
	return true
}

func taskShowCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom task show")
	asJSON := fs.Bool("json", false, "help.flag.json")
	page := fs.Int("page", 0, s.helpWith("help.task.show.flag.page", messages.Args{"Page": recordsPage}))
	return &ffcli.Command{
		Name:       "show",
		ShortUsage: "strom task show ID [--page N] [--json]",
		ShortHelp:  "help.task.show.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.task.show.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) != 1 {
				return s.usage("usage.task.show.args")
			}
			if *page < 0 || (*page == 0 && given(fs, "page")) {
				return s.usage("usage.task.show.page", messages.Args{"Value": *page})
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			t, err := r.Tree.FindTask(ctx, args[0])
			if err != nil {
				return err
			}
			recs, err := queue.Records(ctx, r, t.ID)
			if err != nil {
				return err
			}
			older := 0
			if *page > 0 {
				recs, older = recordPage(recs, *page)
			}
			if *asJSON {
				if recs == nil {
					recs = []statefiles.Record{}
				}
				return s.printJSON(struct {
					statefiles.Task
					Records []statefiles.Record `json:"records"`
					Older   *int                `json:"older_records,omitempty"`
				}{t, recs, olderOf(*page, older)})
			}
			printTask(s, t, recs)
			printOlder(s, t.ID, *page, older)
			return nil
		}),
	}
}

// recordsPage is how many records a page of strom task show holds, and how many
// the agent's strom task shows: the newest in full, as the session's prompt
// quotes them, and a line saying how many older ones there are and how to read
// them. An agent's context is not flooded by a task of a thousand records.
const recordsPage = agents.MaxPromptRecords

// recordPage returns page n (1: the newest recordsPage records) of a task's
// records, oldest first, and how many records are older than it.
func recordPage(recs []statefiles.Record, n int) ([]statefiles.Record, int) {
	end := max(0, len(recs)-(n-1)*recordsPage)
	start := max(0, end-recordsPage)
	return recs[start:end], start
}

// olderOf is the count of older records for --json: only where a page was asked.
func olderOf(page, older int) *int {
	if page == 0 {
		return nil
	}
	return &older
}

// printOlder says how many records are older than the page shown, and the
// command that shows the page before it.
func printOlder(s *sys, id string, page, older int) {
	if page == 0 || older == 0 {
		return
	}
	fmt.Fprintf(s.stdout, "\n%s\n", s.msg().Say("task.show_older", messages.Args{"Count": older, "Page": recordsPage,
		"Command": fmt.Sprintf("strom task show %s --page %d", id, page+1)}))
}

func printTask(s *sys, t statefiles.Task, recs []statefiles.Record) {
	p := s.msg()
	state := p.Say("state." + string(t.State))
	switch t.State {
	case statefiles.Parked:
		state = p.Say("task.show_parked", messages.Args{"State": state, "Reason": s.parkReason(t.Reason), "From": p.Say("state." + string(t.ParkedFrom))})
	case statefiles.Started:
		if t.Host != "" {
			state = p.Say("task.show_started_on", messages.Args{"State": state, "Session": t.Session, "Host": t.Host})
		} else {
			state = p.Say("task.show_started", messages.Args{"State": state, "Session": t.Session})
		}
	}
	fmt.Fprintf(s.stdout, "%s  %s\n%s\n", t.ID, termsafe.Line(t.Title), p.Say("task.show_state", messages.Args{"State": state}))
	fmt.Fprintln(s.stdout, p.Say("task.show_times", messages.Args{"Created": t.Created.Format("2006-01-02 15:04 MST"), "Updated": t.Updated.Format("2006-01-02 15:04 MST")}))
	if t.AddedBy != "" {
		fmt.Fprintln(s.stdout, p.Say("task.show_added_by", messages.Args{"Session": t.AddedBy}))
	}
	if len(t.Needs) > 0 {
		fmt.Fprintln(s.stdout, p.Say("task.show_needs", messages.Args{"Archives": strings.Join(t.Needs, ", ")}))
	}
	if strings.TrimSpace(t.Body) != "" {
		fmt.Fprintf(s.stdout, "\n%s\n", strings.TrimRight(t.Body, "\n"))
	}
	for _, q := range t.Questions {
		fmt.Fprintf(s.stdout, "\n%s\n", p.Say("task.show_asked", messages.Args{"When": q.Asked.Format("2006-01-02 15:04"), "Question": termsafe.Line(q.Question)}))
		if q.Answered != nil {
			fmt.Fprintln(s.stdout, p.Say("task.show_answered", messages.Args{"When": q.Answered.Format("2006-01-02 15:04"), "Answer": termsafe.Line(q.Answer)}))
		}
	}
	if t.Summary != nil {
		fmt.Fprintf(s.stdout, "\n%s\n%s\n", p.Say("summary.head", writtenArgs(s, t.ID, t.Summary.Updated, t.Summary.Session)), strings.TrimRight(t.Summary.Text, "\n"))
	}
	if len(recs) > 0 {
		fmt.Fprintf(s.stdout, "\n%s\n", p.Say("task.show_records"))
		for _, r := range recs {
			fmt.Fprintf(s.stdout, "  %s  %s\n", r.Time.Format("2006-01-02 15:04"), termsafe.Line(r.Text))
		}
	}
}

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
