package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/merge"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/views"
	"github.com/strom-research/strom/hooks"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

func initCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom init")
	agent := fs.String("agent", "", "help.init.flag.agent")
	return &ffcli.Command{
		Name:       "init",
		ShortUsage: "strom init [--agent NAME] [DIR]",
		ShortHelp:  "help.init.short",
		LongHelp:   withHelp("help.init.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom init"); err != nil {
				return err
			}
			if len(args) > 1 {
				return s.usage("usage.init.args", messages.Args{"Count": len(args)})
			}
			dir := s.cwd()
			if len(args) == 1 {
				dir = args[0]
			}
			if *agent != "" {
				if err := checkAgentName(s, *agent); err != nil {
					return err
				}
			}
			// strom setup chose what a new research is (R7.8).
			newMode := ""
			if us, err := statefiles.LoadSettings(s.getenv, nil); err == nil {
				if v, err := us.Resolve("init.mode", ""); err == nil {
					newMode = v.Value
				}
			}
			r, err := mode.Init(ctx, dir, mode.InitOptions{Agent: *agent, Mode: newMode}, s.env(), func(ctx context.Context, g *gitrepo.Repo) error {
				dir, err := g.HooksDir(ctx)
				if err != nil {
					return err
				}
				if _, err = hooks.Install(dir, hooks.Options{}); err != nil {
					return err
				}
				self, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find strom itself: %w", err)
				}
				_, err = merge.Install(ctx, g, statefiles.At(g.Root), self)
				return err
			})
			if errors.Is(err, mode.ErrAlreadyInitialised) {
				fmt.Fprintln(s.stdout, "strom: "+s.msg().Text(err))
				return nil
			}
			if err != nil {
				return err
			}
			_ = views.Remember(ctx, r)
			settings, err := r.Settings()
			if err != nil {
				return err
			}
			a, _ := settings.Resolve("agent.name", "")
			if newMode == statefiles.ModeArchive {
				fmt.Fprintln(s.stdout, s.msg().Say("init.done_archive", messages.Args{"Root": r.Tree.Root, "Agent": a.Value}))
				return nil
			}
			fmt.Fprintln(s.stdout, s.msg().Say("init.done", messages.Args{"Root": r.Tree.Root, "Agent": a.Value}))
			return nil
		}),
	}
}

// checkAgentName refuses, as bad usage, an agent no profile knows: neither shipped
// nor defined in the settings (agents.NAME).
func checkAgentName(s *sys, name string) error {
	settings, err := s.settings()
	if err != nil {
		return err
	}
	if _, err := agents.LookupAgent(settings, name); errors.Is(err, agents.ErrUnknownAgent) {
		return badUsage(err)
	}
	return nil
}
