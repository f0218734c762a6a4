package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func rootCommand(s *sys) *ffcli.Command {
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
