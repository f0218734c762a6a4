package main

import (
	"context"
	"fmt"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/merge"
	"github.com/strom-research/strom/harness/precommit"
	"github.com/strom-research/strom/hooks"

	"github.com/strom-research/strom/messages"
)

func hooksCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks")
	return &ffcli.Command{
		Name:        "hooks",
		ShortUsage:  "strom hooks <install>",
		ShortHelp:   "help.hooks.short",
		FlagSet:     fs,
		LongHelp:    withHelp("help.hooks.long", ""),
		Subcommands: []*ffcli.Command{hooksInstallCommand(s), hooksPreCommitCommand(s), hooksMergeDriverCommand(s), hooksClaudeStopCommand(s), hooksClaudeEventCommand(s)},
	}
}

func hooksInstallCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks install")
	return &ffcli.Command{
		Name:       "install",
		ShortUsage: "strom hooks install",
		ShortHelp:  "help.hooks.install.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.hooks.install.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom hooks install"); err != nil {
				return err
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			g, err := r.Git(ctx)
			if err != nil {
				return err
			}
			dir, err := g.HooksDir(ctx)
			if err != nil {
				return err
			}
			res, err := hooks.Install(dir, hooks.Options{})
			if err != nil {
				return err
			}
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find strom itself: %w", err)
			}
			if merged, err := merge.Install(ctx, g, r.Tree, self); err != nil {
				return err
			} else if merged {
				fmt.Fprintln(s.stdout, s.say("hooks.merge_drivers"))
			}
			switch {
			case !res.Changed:
				fmt.Fprintln(s.stdout, s.say("hooks.in_place", messages.Args{"Path": res.Path}))
			case res.Chained != "":
				fmt.Fprintln(s.stdout, s.say("hooks.installed_chained", messages.Args{"Path": res.Path, "Chained": res.Chained}))
			default:
				fmt.Fprintln(s.stdout, s.say("hooks.installed", messages.Args{"Path": res.Path}))
			}
			return nil
		},
	}
}

func hooksMergeDriverCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks merge-driver")
	return &ffcli.Command{
		Name:       "merge-driver",
		ShortUsage: "strom hooks merge-driver queue|task|progress|park|note BASE OURS THEIRS [PATH]",
		ShortHelp:  "help.hooks.merge-driver.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.hooks.merge-driver.long", "help.hooks.merge-driver.exits"),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) < 4 || len(args) > 5 {
				return s.usage("usage.hooks.merge_args", messages.Args{"Count": len(args)})
			}
			var sides [3][]byte
			for i, f := range args[1:4] {
				data, err := os.ReadFile(f)
				if err != nil {
					return fmt.Errorf("read %s: %w", f, err)
				}
				sides[i] = data
			}
			shown := s.say("hooks.strom_file")
			if len(args) == 5 {
				shown = args[4]
			}
			out, notes, err := merge.Files(args[0], sides[0], sides[1], sides[2])
			if err != nil {
				return messages.Errorf(err, "hooks.merge_failed", messages.Args{"File": shown, "Error": err})
			}
			for _, n := range notes {
				fmt.Fprintf(s.stderr, "strom: %s: %s\n", shown, n)
			}
			if err := os.WriteFile(args[2], out, 0o644); err != nil {
				return fmt.Errorf("write the merged %s: %w", shown, err)
			}
			return nil
		},
	}
}

func hooksPreCommitCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks pre-commit")
	return &ffcli.Command{
		Name:       "pre-commit",
		ShortUsage: "strom hooks pre-commit",
		ShortHelp:  "help.hooks.pre-commit.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.hooks.pre-commit.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			r, err := s.research()
			if err != nil {
				// Not a research repo: nothing of strom's to check.
				return nil
			}
			return precommit.CheckStaged(ctx, r, s.inSession() != "")
		},
	}
}
