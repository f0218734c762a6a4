package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness"
)

func chatCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom chat")
	minutes := fs.String("minutes", "", "time limit of the chat in minutes (5–600)")
	agent := fs.String("agent", "", "the agent: claude, codex, opencode, grok, command or demo")
	task := fs.String("task", "", "the open task to work on (default: the first open task)")
	return &ffcli.Command{
		Name:       "chat",
		ShortUsage: "strom chat [--task T] [--minutes N] [--agent NAME] [-- AGENT ARGS]",
		ShortHelp:  "help.chat.short",
		LongHelp: withHelp(`A session you attend: the agent starts on the task (--task, or the first open
one) under the same pty as strom run, and what you type goes to it.
When the agent exits, or at your Ctrl-C, the session ends in one commit with
Strom-End: closed-by-person. A chat never counts toward parking its task.

Refused in a Strom archive (strom mode research switches research on) and while
the research waits for its agent.`, runExits),
		FlagSet: fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			harnessMemory(s)
			if err := s.personOnly("strom chat"); err != nil {
				return err
			}
			o := harness.ChatOptions{Task: *task, Minutes: *minutes, Agent: *agent, Out: s.stdout, Terminal: s.terminal()}
			if *agent != "" {
				if err := checkAgentName(s, *agent); err != nil {
					return err
				}
			}
			if len(args) > 0 && *agent != "command" && *agent != "" {
				return usagef("words after -- are for the command agent: strom chat --agent command -- ./my-agent.sh")
			}
			o.AgentArgs = args
			if len(args) > 0 && *agent == "" {
				o.Agent = "command"
			}
			if *minutes != "" {
				if m, err := strconv.Atoi(*minutes); err != nil || m < 5 || m > 600 {
					return usagef("--minutes takes a whole number 5–600, not %q", *minutes)
				}
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			ints, stopRelay := s.relayInterrupts()
			defer stopRelay()
			o.Interrupts = ints
			defer agentpty.RestoreTerminals()
			rr, err := r.Chat(ctx, o)
			if err != nil {
				return err
			}
			if rr.Stop == harness.StopSubscriptionLimit || rr.Stop == harness.StopNotLoggedIn {
				fmt.Fprintln(s.stdout, rr.Say(s.msg()))
			}
			if code := rr.Stop.ExitCode(); code != 0 {
				return exitErr{code: code}
			}
			return nil
		}),
	}
}
