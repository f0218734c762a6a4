package main

import (
	"context"
	"fmt"
)

// menu is `strom` alone: what a person can do here, with the research's state.
func menu(ctx context.Context, s *sys) error {
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
  strom --help                every command`)
	return nil
}
