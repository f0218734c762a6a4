package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func rootCommand(s *sys, args []string) *ffcli.Command {
	root := commandTree(s, args)
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

// commands builds the subcommands, in the order the help lists them. When args
// name one, only that one is built: every command an agent runs pays for building
// the flag sets of all others otherwise.
func commands(s *sys, args []string) []*ffcli.Command {
	all := []struct {
		name  string
		build func(*sys) *ffcli.Command
	}{
		{"init", initCommand}, {"task", taskCommand}, {"record", recordCommand},
		{"done", doneCommand}, {"ask", askCommand}, {"config", configCommand},
		{"status", statusCommand}, {"log", logCommand}, {"hooks", hooksCommand},
		{"run", runCommand}, {"session", sessionCommand}, {"mode", modeCommand},
		{"chat", chatCommand}, {"gate", gateCommand}, {"usage", usageCommand},
		{"allow", allowCommand}, {"app", appCommand}, {"menu", menuCommand}, {"setup", setupCommand},
		{"demo-agent", demoAgentCommand},
	}
	if len(args) > 0 {
		for _, c := range all {
			if c.name == args[0] {
				return []*ffcli.Command{c.build(s)}
			}
		}
	}
	out := make([]*ffcli.Command, 0, len(all))
	for _, c := range all {
		out = append(out, c.build(s))
	}
	return out
}

func commandTree(s *sys, args []string) *ffcli.Command {
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
		FlagSet:     fs,
		Subcommands: commands(s, args),
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				fmt.Fprintln(s.stdout, "strom", buildVersion())
				return nil
			}
			if len(args) > 0 {
				return usagef("unknown command %q: strom --help lists the commands", args[0])
			}
			return openMenu(ctx, s)
		},
	}
}
