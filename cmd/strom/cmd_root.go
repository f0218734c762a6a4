package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

func rootCommand(s *sys, args []string) *ffcli.Command {
	root := commandTree(s, args)
	s.setUsage(root)
	return root
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
		{"done", doneCommand}, {"ask", askCommand}, {"note", noteCommand}, {"config", configCommand},
		{"status", statusCommand}, {"log", logCommand}, {"report", reportCommand}, {"hooks", hooksCommand},
		{"run", runCommand}, {"session", sessionCommand}, {"mode", modeCommand},
		{"chat", chatCommand}, {"gate", gateCommand}, {"usage", usageCommand},
		{"allow", allowCommand}, {"app", appCommand}, {"menu", menuCommand}, {"setup", setupCommand},
		{"help", helpCommand}, {"completion", completionCommand}, {"version", versionCommand}, {"demo-agent", demoAgentCommand},
		{"man", manCommand},
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
	showVersion := fs.Bool("version", false, "help.root.flag.version")
	var root *ffcli.Command
	root = &ffcli.Command{
		Name:        "strom",
		ShortUsage:  "help.root.usage",
		ShortHelp:   "help.root.short",
		LongHelp:    withHelp("help.root.long", ""),
		FlagSet:     fs,
		Subcommands: commands(s, args),
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				return printVersion(s)
			}
			if len(args) > 0 {
				return s.usage(s.noSuchCommand(root, args[0]))
			}
			return openMenu(ctx, s)
		},
	}
	return root
}

// hiddenCommands are commands for building strom, not for its users: no help,
// completion or suggestion lists them.
var hiddenCommands = map[string]bool{"man": true}

// versionCommand is strom version, which prints what strom --version does.
func versionCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom version")
	return &ffcli.Command{
		Name:       "version",
		ShortUsage: "strom version",
		ShortHelp:  "help.version.short",
		LongHelp:   withHelp("help.version.long", ""),
		FlagSet:    fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return s.usage("usage.version.words", messages.Args{"Word": termsafe.Excerpt(args[0])})
			}
			return printVersion(s)
		},
	}
}

// printVersion prints "strom 0.1.2 (1a2b3c4, 2026-12-02)": the release, the
// commit and its date (buildinfo.Build).
func printVersion(s *sys) error {
	_, err := fmt.Fprintln(s.stdout, "strom", buildVersion())
	return err
}
