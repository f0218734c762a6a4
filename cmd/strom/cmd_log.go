package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// logOptions are the flags of strom log.
type logOptions struct {
	N    int  // -n: the newest N sessions; 0 = all
	JSON bool // --json
}

func logCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom log")
	var o logOptions
	fs.IntVar(&o.N, "n", 20, "help.log.flag.n")
	fs.BoolVar(&o.JSON, "json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "log",
		ShortUsage: "strom log [-n N] [--json]",
		ShortHelp:  "help.log.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.log.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = o.JSON
			if len(args) > 0 {
				return s.usage("usage.log.args")
			}
			return runLog(ctx, s, o)
		}),
	}
}

// runLog is strom log: the research's sessions, newest first, a line each or JSON.
func runLog(ctx context.Context, s *sys, o logOptions) error {
	s.json = o.JSON
	if o.N < 0 {
		return s.usage("usage.log.n", messages.Args{"Value": o.N})
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	entries, err := harness.Sessions(ctx, r, o.N)
	if err != nil {
		return err
	}
	if o.JSON {
		return s.printJSON(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(s.stdout, s.msg().Say("log.none"))
		return nil
	}
	for _, e := range entries {
		subject := termsafe.Line(e.Subject)
		if e.Host != "" {
			subject += "  @" + e.Host
		}
		fmt.Fprintf(s.stdout, "%s  %s  %-5s %-18s %s\n", e.When.Local().Format("2006-01-02 15:04"), e.Session, e.Task, e.End, subject)
	}
	return nil
}
