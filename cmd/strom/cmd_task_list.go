package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/machines"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

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
	fmt.Fprintln(s.stdout, p.Say("task.show_times", messages.Args{"Created": zoned(t.Created), "Updated": zoned(t.Updated)}))
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
		fmt.Fprintf(s.stdout, "\n%s\n", p.Say("task.show_asked", messages.Args{"When": local(q.Asked), "Question": termsafe.Line(q.Question)}))
		if q.Answered != nil {
			fmt.Fprintln(s.stdout, p.Say("task.show_answered", messages.Args{"When": local(*q.Answered), "Answer": termsafe.Line(q.Answer)}))
		}
	}
	if t.Summary != nil {
		fmt.Fprintf(s.stdout, "\n%s\n%s\n", p.Say("summary.head", writtenArgs(s, t.ID, t.Summary.Updated, t.Summary.Session)), strings.TrimRight(t.Summary.Text, "\n"))
	}
	if len(recs) > 0 {
		fmt.Fprintf(s.stdout, "\n%s\n", p.Say("task.show_records"))
		for _, r := range recs {
			fmt.Fprintf(s.stdout, "  %s  %s\n", local(r.Time), termsafe.Line(r.Text))
		}
	}
}
