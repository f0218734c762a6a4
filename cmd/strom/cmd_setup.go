package main

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/menu"
	"github.com/strom-research/strom/statefiles"
)

func setupCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom setup")
	newMode := fs.String("new", "", "what a new research on this computer is, without asking: research or archive")
	return &ffcli.Command{
		Name:       "setup",
		ShortUsage: "strom setup [--new research|archive]",
		ShortHelp:  "help.setup.short",
		LongHelp: withHelp(`Asks on the terminal "What should a new research on this computer be?": research
(the agent works on it) or only a Strom archive (it keeps the data, no agent works
on it). strom init follows the answer (the user setting init.mode). --new answers
without asking.`, ""),
		FlagSet: fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom setup"); err != nil {
				return err
			}
			if len(args) > 0 {
				return usagef("strom setup takes no words, not %q: strom setup --new research|archive answers without asking", args[0])
			}
			if *newMode != "" {
				if *newMode != statefiles.ModeResearch && *newMode != statefiles.ModeArchive {
					return usagef("--new takes research or archive, not %q", *newMode)
				}
				return s.setInitMode(ctx, *newMode)
			}
			tty := s.terminal()
			if tty == nil {
				return usagef("strom setup asks on a terminal: run it in one, or answer with strom setup --new research|archive")
			}
			return menu.Setup(ctx, menu.Env{Terminal: tty, Out: s.stdout, Accessible: s.getenv("ACCESSIBLE") != "",
				Getenv: s.getenv, Msg: s.msg(), Dir: s.cwd(), Interrupts: s.interrupts,
				Do: func(ctx context.Context, args ...string) int {
					return run(ctx, args, s.child())
				}})
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
