package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/hooks"
)

func hooksCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks")
	return &ffcli.Command{
		Name:        "hooks",
		ShortUsage:  "strom hooks <install>",
		ShortHelp:   "the git hook strom puts in place",
		FlagSet:     fs,
		LongHelp:    withHelp("strom hooks install puts the pre-commit hook in place, chained after yours.", ""),
		Subcommands: []*ffcli.Command{hooksInstallCommand(s), hooksPreCommitCommand(s), hooksClaudeStopCommand(s), hooksClaudeEventCommand(s)},
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
			switch {
			case !res.Changed:
				fmt.Fprintf(s.stdout, "The pre-commit hook is already in place (%s): nothing changed.\n", res.Path)
			case res.Chained != "":
				fmt.Fprintf(s.stdout, "Installed %s; your own hook is kept as %s and runs first.\n", res.Path, res.Chained)
			default:
				fmt.Fprintf(s.stdout, "Installed %s.\n", res.Path)
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
