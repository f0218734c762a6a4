package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func rootCommand(s *sys) *ffcli.Command {
	root := commandTree(s)
	setUsage(root)
	return root
}

// setUsage gives every command a help that ends with its EXIT STATUS, after the flags.
func setUsage(c *ffcli.Command) {
	c.UsageFunc = usageWithExits
	for _, sub := range c.Subcommands {
		setUsage(sub)
	}
}

func usageWithExits(c *ffcli.Command) string {
	long, exits, found := strings.Cut(c.LongHelp, "\n\nEXIT STATUS\n")
	cp := *c
	cp.LongHelp = long
	out := ffcli.DefaultUsageFunc(&cp)
	if found {
		out = strings.TrimRight(out, "\n") + "\n\nEXIT STATUS\n" + exits + "\n"
	}
	return out
}

func commandTree(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom")
	showVersion := fs.Bool("version", false, "print the version and exit")
	return &ffcli.Command{
		Name:       "strom",
		ShortUsage: "strom <command> [flags] [args]",
		ShortHelp:  "a git-native harness that lets an AI agent work alone through a queue of research tasks",
		LongHelp: withHelp(`strom runs an agent CLI (Claude Code, Codex, OpenCode, Grok, or any command)
through the tasks in .strom/queue.json, one task per session, one commit per
session. Review the work with git log or strom log.

Start: strom init, strom task add "…", strom run.`, ""),
		FlagSet: fs,
		Subcommands: []*ffcli.Command{
			initCommand(s),
			taskCommand(s),
			recordCommand(s),
			doneCommand(s),
			askCommand(s),
			configCommand(s),
			statusCommand(s),
			logCommand(s),
			hooksCommand(s),
			runCommand(s),
			sessionCommand(s),
			modeCommand(s),
			chatCommand(s),
			gateCommand(s),
			usageCommand(s),
			demoAgentCommand(s),
		},
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				fmt.Fprintln(s.stdout, "strom", buildVersion())
				return nil
			}
			if len(args) > 0 {
				return usagef("unknown command %q: strom --help lists the commands", args[0])
			}
			return menu(ctx, s)
		},
	}
}
