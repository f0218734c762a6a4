package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// reportOptions are the flags of strom report.
type reportOptions struct {
	Since string // --since: HH:MM, today, yesterday, YYYY-MM-DD or RFC 3339; "" = the last run
	JSON  bool   // --json
}

func reportCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom report")
	var o reportOptions
	fs.StringVar(&o.Since, "since", "", "help.report.flag.since")
	fs.BoolVar(&o.JSON, "json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "report",
		ShortUsage: "strom report [--since TIME] [--json]",
		ShortHelp:  "help.report.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.report.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = o.JSON
			if len(args) > 0 {
				return s.usage("usage.report.args")
			}
			return runReport(ctx, s, o)
		}),
	}
}

// parseSince reads --since in the person's local time: HH:MM is the last such
// moment (today's, or yesterday's when it has not come yet), today and yesterday
// their midnight, YYYY-MM-DD that day's midnight, or an RFC 3339 time.
func parseSince(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	now = now.Local()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.Local)
	switch v {
	case "today":
		return midnight, true
	case "yesterday":
		return midnight.AddDate(0, 0, -1), true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	if t, err := time.ParseInLocation("2006-01-02", v, time.Local); err == nil {
		return t, true
	}
	if t, err := time.Parse("15:04", v); err == nil && len(v) == 5 {
		at := midnight.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute)
		if at.After(now) {
			at = at.AddDate(0, 0, -1)
		}
		return at, true
	}
	return time.Time{}, false
}

// runReport is strom report: the last run, or everything since a time, on one
// page or as JSON.
func runReport(ctx context.Context, s *sys, o reportOptions) error {
	s.json = o.JSON
	r, err := s.research()
	if err != nil {
		return err
	}
	var since time.Time
	if o.Since != "" {
		var ok bool
		if since, ok = parseSince(o.Since, r.Now()); !ok {
			return s.usage("usage.report.since", messages.Args{"Value": termsafe.Excerpt(o.Since)})
		}
	}
	rep, err := harness.ReadReport(ctx, r, since)
	if err != nil {
		return err
	}
	if o.JSON {
		return s.printJSON(rep)
	}
	printReport(s.stdout, s.msg(), rep)
	return nil
}

// zoned is a moment in the person's local time with its zone: the report's
// header, where a reader in another zone would read it wrong.
func zoned(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") }

// local is a moment in the person's local time.
func local(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

// printReport writes the report as one page.
func printReport(w io.Writer, p *messages.Printer, rep harness.Report) {
	if !rep.Since.IsZero() {
		fmt.Fprintln(w, p.Say("report.since", messages.Args{"Since": zoned(rep.Since), "Count": len(rep.Sessions)}))
	}
	switch lr := rep.Run; {
	case lr == nil && rep.Since.IsZero():
		fmt.Fprintln(w, p.Say("report.no_run"))
	case lr != nil:
		when := p.Say("report.run_started", messages.Args{"Started": zoned(lr.Started)})
		if !lr.Ended.IsZero() {
			// One day is written once: 2026-11-30 22:00–23:40 CET.
			ended := zoned(lr.Ended)
			if local(lr.Ended)[:10] == local(lr.Started)[:10] {
				ended = lr.Ended.Local().Format("15:04 MST")
			}
			when = p.Say("report.run_times", messages.Args{"Started": local(lr.Started), "Ended": ended})
		}
		fmt.Fprintln(w, p.Say("report.run", messages.Args{"When": when}))
		fmt.Fprintln(w, "  "+lr.Line)
		fmt.Fprintln(w, "  "+p.Say("report.next_line", messages.Args{"Next": lr.Next}))
	}
	if len(rep.Sessions) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, p.Say("report.sessions", messages.Args{"Count": len(rep.Sessions)}))
		for _, e := range rep.Sessions {
			end := e.End
			if _, ok := ends.ParseEnd(end); ok {
				end = p.Say("end." + end)
			}
			fmt.Fprintf(w, "  %s  %s\n", e.Task, termsafe.Line(e.Title))
			line := p.Say("report.session", messages.Args{"Session": e.Session, "End": end, "When": local(e.When),
				"Minutes": e.Seconds / 60, "Records": p.Say("report.records", messages.Args{"Count": e.Records})})
			if e.CheckFailed != "" {
				line += " — " + p.Say("run.check_failed", messages.Args{"Why": termsafe.Line(e.CheckFailed)})
			}
			fmt.Fprintln(w, "    "+line)
			switch {
			case e.Summary != "":
				fmt.Fprintln(w, "    "+p.Say("report.summary"))
				for _, l := range strings.Split(strings.TrimRight(e.Summary, "\n"), "\n") {
					fmt.Fprintln(w, "      "+termsafe.Line(l))
				}
			case len(e.Found) == 0:
				fmt.Fprintln(w, "    "+p.Say("report.found_nothing"))
			default:
				for _, f := range e.Found {
					fmt.Fprintln(w, "    - "+termsafe.Line(f))
				}
			}
		}
	} else if rep.Run != nil || !rep.Since.IsZero() {
		fmt.Fprintln(w, p.Say("report.sessions_none"))
	}
	if len(rep.Questions) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, p.Say("report.questions", messages.Args{"Count": len(rep.Questions)}))
		for _, q := range rep.Questions {
			fmt.Fprintf(w, "  %s  %s\n", q.Task, termsafe.Line(q.Title))
			if q.Question != "" {
				fmt.Fprintln(w, "    "+p.Say("report.asked", messages.Args{"When": local(q.Asked), "Question": termsafe.Line(q.Question)}))
			}
			fmt.Fprintln(w, "    "+p.Say("report.answer_with", messages.Args{"Command": q.Command}))
		}
	}
	if len(rep.Parked) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, p.Say("report.parked", messages.Args{"Count": len(rep.Parked)}))
		for _, t := range rep.Parked {
			fmt.Fprintf(w, "  %s  %s\n", t.Task, termsafe.Line(t.Title))
			fmt.Fprintln(w, "    "+p.Say("report.parked_why", messages.Args{"Reason": termsafe.Line(t.Reason), "Command": t.Command}))
		}
	}
}
