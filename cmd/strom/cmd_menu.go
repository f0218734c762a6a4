package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/menu"
	"github.com/strom-research/strom/statefiles"
)

const menuExits = `  0  the menu was left: Leave the menu, Esc on the first level, Ctrl-C, or the
     end of the input (a command chosen in it says its own outcome on the way)
  1  error (the message says what to do)
  2  bad usage`

func menuCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom menu")
	return &ffcli.Command{
		Name:       "menu",
		ShortUsage: "strom menu",
		ShortHelp:  "help.menu.short",
		LongHelp: withHelp(`The research's menu: the mode first, then letting the agent work on its own,
the daily work on the queue, and the settings. Every choice runs the strom command
that does the same, so a run from the menu is a strom run with those options.
Esc goes back one level, Ctrl-C leaves at once and changes nothing. ACCESSIBLE=1
asks with numbered options and plain lines, for a screen reader or a script.
Without a terminal it prints the list of commands.`, menuExits),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usagef("strom menu takes no words, not %q", args[0])
			}
			return openMenu(ctx, s)
		},
	}
}

// openMenu is `strom` alone: the menu on a terminal, the list of commands elsewhere.
func openMenu(ctx context.Context, s *sys) error {
	tty := s.terminal()
	if tty == nil {
		return helpList(s)
	}
	if err := s.personOnly("the menu"); err != nil {
		return err
	}
	r, err := s.research()
	if errors.Is(err, statefiles.ErrNotResearch) {
		r, err = nil, nil
	}
	if err != nil {
		return err
	}
	return menu.Run(ctx, menu.Env{
		Terminal:   tty,
		Out:        s.stdout,
		Accessible: s.getenv("ACCESSIBLE") != "",
		Research:   r,
		Dir:        s.cwd(),
		Getenv:     s.getenv,
		Msg:        s.msg(),
		Interrupts: s.interrupts,
		Do: func(ctx context.Context, args ...string) int {
			return run(ctx, args, s.child())
		},
	})
}

// helpList is what a person can do here, without a terminal to show the menu on.
func helpList(s *sys) error {
	fmt.Fprintln(s.stdout, s.sayHelp("help.root.list"))
	return nil
}
