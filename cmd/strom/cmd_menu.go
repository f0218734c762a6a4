package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/messages"

	"github.com/strom-research/strom/menu"
	"github.com/strom-research/strom/statefiles"
)

// menuExits are the exit statuses of strom menu.
const menuExits = "help.menu.exits"

func menuCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom menu")
	return &ffcli.Command{
		Name:       "menu",
		ShortUsage: "strom menu",
		ShortHelp:  "help.menu.short",
		LongHelp:   withHelp("help.menu.long", menuExits),
		FlagSet:    fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return s.usage("usage.menu.words", messages.Args{"Word": args[0]})
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
	if err := s.personOnly(s.msg().Say("refuse.the_menu")); err != nil {
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
