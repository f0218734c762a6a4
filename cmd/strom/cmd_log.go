package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func logCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom log")
	n := fs.Int("n", 20, "show at most N sessions (0 = all)")
	asJSON := fs.Bool("json", false, "print JSON")
	return &ffcli.Command{
		Name:       "log",
		ShortUsage: "strom log [-n N] [--json]",
		ShortHelp:  "the sessions, newest first, read from the commits' trailers",
		FlagSet:    fs,
		LongHelp:   withHelp("Each line: when, session, task, why it ended, the commit's subject.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 0 {
				return usagef("strom log takes no arguments; -n N limits the count")
			}
			if *n < 0 {
				return usagef("-n must be 0 (all) or more, not %d", *n)
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			entries, err := r.Sessions(ctx, *n)
			if err != nil {
				return err
			}
			if *asJSON {
				return s.printJSON(entries)
			}
			if len(entries) == 0 {
				fmt.Fprintln(s.stdout, "No sessions yet: strom run starts one.")
				return nil
			}
			for _, e := range entries {
				subject := e.Subject
				if e.Host != "" {
					subject += "  @" + e.Host
				}
				fmt.Fprintf(s.stdout, "%s  %s  %-5s %-18s %s\n", e.When.Local().Format("2006-01-02 15:04"), e.Session, e.Task, e.End, subject)
			}
			return nil
		}),
	}
}
