package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

func chatCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom chat")
	minutes := fs.String("minutes", "", "help.chat.flag.minutes")
	agent := fs.String("agent", "", "help.chat.flag.agent")
	task := fs.String("task", "", "help.chat.flag.task")
	return &ffcli.Command{
		Name:       "chat",
		ShortUsage: "strom chat [--task T] [--minutes N] [--agent NAME] [-- AGENT ARGS]",
		ShortHelp:  "help.chat.short",
		LongHelp:   withHelp("help.chat.long", runExits),
		FlagSet:    fs,
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
				return s.usage("usage.agent_words", messages.Args{"Command": "strom chat"})
			}
			o.AgentArgs = args
			if len(args) > 0 && *agent == "" {
				o.Agent = "command"
			}
			if *minutes != "" {
				if m, err := strconv.Atoi(*minutes); err != nil || m < 5 || m > 600 {
					return s.usage("usage.minutes", messages.Args{"Value": `"` + termsafe.Excerpt(*minutes) + `"`})
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
			rr, err := harness.Chat(ctx, r, o)
			if err != nil {
				return err
			}
			if rr.Stop == ends.StopSubscriptionLimit || rr.Stop == ends.StopNotLoggedIn {
				fmt.Fprintln(s.stdout, rr.Say(s.msg()))
			}
			if code := rr.Stop.ExitCode(); code != 0 {
				return exitErr{code: code}
			}
			return nil
		}),
	}
}
