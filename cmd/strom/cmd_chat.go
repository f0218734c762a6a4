package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/ends"
)

// chatOptions are the flags and words of strom chat.
type chatOptions struct {
	Task      string   // --task: the task the chat is about
	Minutes   string   // --minutes: run.minutes for this chat
	Agent     string   // --agent
	AgentArgs []string // the words after "--": the command agent's program
}

func chatCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom chat")
	var o chatOptions
	fs.StringVar(&o.Minutes, "minutes", "", s.helpWith("help.chat.flag.minutes", rangeOf(settingKey("run.minutes"))))
	fs.StringVar(&o.Agent, "agent", "", "help.chat.flag.agent")
	fs.StringVar(&o.Task, "task", "", "help.chat.flag.task")
	return &ffcli.Command{
		Name:       "chat",
		ShortUsage: "strom chat [--task T] [--minutes N] [--agent NAME] [-- AGENT ARGS]",
		ShortHelp:  "help.chat.short",
		LongHelp:   withHelp("help.chat.long", runExits),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			o.AgentArgs = args
			return runChat(ctx, s, o)
		}),
	}
}

// runChat is strom chat: the options checked, one session with the person on the
// terminal, and its stop as the exit status.
func runChat(ctx context.Context, s *sys, o chatOptions) error {
	harnessMemory(s)
	if err := s.personOnly("strom chat"); err != nil {
		return err
	}
	co := harness.ChatOptions{Task: o.Task, Minutes: o.Minutes, Out: s.stdout, Terminal: s.terminal(), AgentArgs: o.AgentArgs}
	var err error
	if co.Agent, err = s.agentFor("strom chat", o.Agent, o.AgentArgs); err != nil {
		return err
	}
	if err := s.checkMinutes(o.Minutes); err != nil {
		return err
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	ints, stopRelay := s.relayInterrupts()
	defer stopRelay()
	co.Interrupts = ints
	defer agentpty.RestoreTerminals()
	rr, err := harness.Chat(ctx, r, co)
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
}
