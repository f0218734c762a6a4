package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/menu"
	"github.com/strom-research/strom/statefiles"
)

func menuCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom menu")
	return &ffcli.Command{
		Name:       "menu",
		ShortUsage: "strom menu",
		ShortHelp:  "the research's menu in the terminal (strom alone on a terminal opens it too)",
		LongHelp: withHelp(`The research's menu: the mode first, then letting the agent work on its own,
the daily work on the queue, and the settings. Every choice runs the strom command
that does the same, so a run from the menu is a strom run with those options.
Esc goes back one level, Ctrl-C leaves. ACCESSIBLE=1 asks with numbered options
and plain lines, for a screen reader or a script. Without a terminal it prints
the list of commands.`, ""),
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
		Do: func(ctx context.Context, args ...string) int {
			return run(ctx, args, s.child())
		},
	})
}

// helpList is what a person can do here, without a terminal to show the menu on.
func helpList(s *sys) error {
	fmt.Fprintln(s.stdout, `strom — an agent works alone through a queue of research tasks

  strom init                  make this git repo a research repo
  strom task add "title"      add a task to the queue
  strom task list             the queue
  strom run [--max N|--loop]  let the agent work alone
  strom chat                  work on a task together with the agent
  strom mode                  research, archive, or waiting for an agent
  strom status                what is happening now
  strom log                   the sessions, newest first
  strom config get|set|unset  settings
  strom menu                  the research's menu (on a terminal)
  strom --help                every command`)
	return nil
}
