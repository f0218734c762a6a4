package main

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"

	"github.com/strom-research/strom/statefiles"
)

func setupCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom setup")
	newMode := fs.String("new", "", "help.setup.flag.new")
	return &ffcli.Command{
		Name:       "setup",
		ShortUsage: "strom setup [--new research|archive]",
		ShortHelp:  "help.setup.short",
		LongHelp:   withHelp("help.setup.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom setup"); err != nil {
				return err
			}
			if len(args) > 0 {
				return s.usage("usage.setup.words", messages.Args{"Word": termsafe.Excerpt(args[0])})
			}
			if *newMode != "" {
				if *newMode != statefiles.ModeResearch && *newMode != statefiles.ModeArchive {
					return s.usage("usage.setup.new", messages.Args{"Value": termsafe.Excerpt(*newMode)})
				}
				return s.setInitMode(ctx, *newMode)
			}
			if s.terminal() == nil {
				return s.usage("usage.setup.terminal")
			}
			return s.execFace("strom-menu", []string{"setup"})
		}),
	}
}

// setInitMode sets init.mode as strom config set does.
func (s *sys) setInitMode(ctx context.Context, mode string) error {
	if code := run(ctx, []string{"config", "set", "init.mode", mode}, s.child()); code != 0 {
		return exitErr{code: code}
	}
	return nil
}
