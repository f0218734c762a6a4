package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
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
				return s.usage("usage.menu.words", messages.Args{"Word": termsafe.Excerpt(args[0])})
			}
			return openMenu(ctx, s)
		},
	}
}

// openMenu is `strom` alone: the menu on a terminal (the program strom-menu, run
// in strom's place), the list of commands elsewhere.
func openMenu(ctx context.Context, s *sys) error {
	if s.terminal() == nil {
		return helpList(s)
	}
	if err := s.personOnly(s.msg().Say("refuse.the_menu")); err != nil {
		return err
	}
	return s.execFace("strom-menu", []string{"menu"})
}

// helpList is what a person can do here, without a terminal to show the menu on.
func helpList(s *sys) error {
	fmt.Fprintln(s.stdout, s.sayHelp("help.root.list"))
	return nil
}
