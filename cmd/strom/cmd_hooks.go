package main

import (
	"context"
	"fmt"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/merge"
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
		LongHelp:    withHelp("strom hooks install puts the pre-commit hook in place, chained after yours.", ""),
		Subcommands: []*ffcli.Command{hooksInstallCommand(s), hooksPreCommitCommand(s), hooksMergeDriverCommand(s), hooksClaudeStopCommand(s), hooksClaudeEventCommand(s)},
	}
}

func hooksInstallCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks install")
	return &ffcli.Command{
		Name:       "install",
		ShortUsage: "strom hooks install",
		ShortHelp:  "install the pre-commit hook that keeps a broken queue out of the history",
		FlagSet:    fs,
		LongHelp: withHelp(`A pre-commit hook you already have is kept as pre-commit.strom-chained and
runs first. Running this twice changes nothing.`, ""),
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
		ShortUsage: "strom hooks merge-driver queue|progress|park BASE OURS THEIRS [PATH]",
		ShortHelp:  "(run by git) merge one of strom's files where two lines of history meet",
		FlagSet:    fs,
		LongHelp: withHelp(`git runs it for the files .strom/.gitattributes names: the queue task by task
(a field both sides changed takes the later change; no task is deleted or reworded;
ids stay unique), the records as the union of both sides, the park counters counter
by counter. The result replaces OURS. A side strom cannot read leaves the file to
you as a conflict.`, "  0  merged\n  1  a conflict for a person (the message says why)\n  2  bad usage"),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) < 4 || len(args) > 5 {
				return s.usage("hooks.merge_args", messages.Args{"Count": len(args)})
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
		ShortHelp:  "(run by the git hook) check the staged .strom/ files",
		FlagSet:    fs,
		LongHelp:   withHelp("Refuses a commit with an invalid state file, a deleted task, or (inside a session) a reworded task.", ""),
		Exec: func(ctx context.Context, args []string) error {
			r, err := s.research()
			if err != nil {
				// Not a research repo: nothing of strom's to check.
				return nil
			}
			return harness.CheckStaged(ctx, r, s.inSession() != "")
		},
	}
}
