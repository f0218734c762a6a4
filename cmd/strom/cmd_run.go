package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error {
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		*l = append(*l, p)
	}
	return nil
}

// runExits are the exit statuses of strom run and strom chat.
const runExits = "help.run.exits"

func runCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom run")
	max := fs.Int("max", 0, "help.run.flag.max")
	loop := fs.Bool("loop", false, "help.run.flag.loop")
	var tasks stringList
	fs.Var(&tasks, "task", "help.run.flag.task")
	until := fs.String("until", "", "help.run.flag.until")
	minutes := fs.String("minutes", "", "help.run.flag.minutes")
	agent := fs.String("agent", "", "help.run.flag.agent")
	interactive := fs.Bool("interactive", false, "help.run.flag.interactive")
	gateWords := fs.String("gate", "", "help.run.flag.gate")
	noGate := fs.Bool("no-gate", false, "help.run.flag.no-gate")
	return &ffcli.Command{
		Name:       "run",
		ShortUsage: "strom run [--max N | --loop | --task T…] [--until HH:MM] [--minutes N] [--agent NAME] [--gate \"<name> [args]\" | --no-gate] [-- AGENT ARGS]",
		ShortHelp:  "help.run.short",
		LongHelp:   withHelp("help.run.long", runExits),
		FlagSet:    fs,
		Exec: func(ctx context.Context, args []string) error {
			harnessMemory(s)
			words, args, err := s.agentWords(fs, args)
			if err != nil {
				return err
			}
			if err := s.personOnly("strom run"); err != nil {
				return err
			}
			set := map[string]bool{}
			fs.Visit(func(f *flagT) { set[f.Name] = true })
			if set["max"] && (*max < 1 || *max > 100) {
				return usageError{msg: s.msg().Say("usage.max", messages.Args{"Value": *max})}
			}
			n := 0
			for _, k := range []string{"max", "loop", "task"} {
				if set[k] {
					n++
				}
			}
			if n > 1 {
				return usageError{msg: s.msg().Say("usage.one_of")}
			}
			// The seed's form, --task T-4 T-1: the words after --task are more ids.
			for _, w := range words {
				if !set["task"] || !looksLikeTaskID(w) {
					return s.usage("usage.run.word", messages.Args{"Word": termsafe.Excerpt(w)})
				}
				_ = tasks.Set(w)
			}
			if set["task"] && len(tasks) == 0 {
				return usageError{msg: s.msg().Say("usage.task_ids")}
			}
			if *interactive && s.terminal() == nil {
				return usageError{msg: s.msg().Say("usage.interactive")}
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			for i, id := range tasks {
				t, err := r.Tree.FindTask(ctx, id)
				if errors.Is(err, statefiles.ErrUnknownTask) {
					return usageError{msg: s.msg().Say("usage.no_task", messages.Args{"Given": termsafe.Excerpt(id), "Task": termsafe.Excerpt(statefiles.NormalizeID(id))})}
				}
				if err != nil {
					return err
				}
				tasks[i] = t.ID
			}
			// A task named twice (T-2 T-2, T-2,2) gets its session once, where it
			// was first named.
			tasks = uniqueWords(tasks)
			// --until alone is an unattended run up to that time (R7.4): like --loop.
			loopOn := *loop || (set["until"] && !set["max"] && !set["task"])
			o := harness.RunOptions{Max: *max, Loop: loopOn, Tasks: tasks, Minutes: *minutes, Agent: *agent,
				AgentArgs: args, Interactive: *interactive, Out: s.stdout}
			if *agent != "" {
				if err := checkAgentName(s, *agent); err != nil {
					return err
				}
			}
			if len(args) > 0 && *agent != "command" && *agent != "" {
				return s.usage("usage.agent_words", messages.Args{"Command": "strom run"})
			}
			if len(args) > 0 && *agent == "" {
				o.Agent = "command"
			}
			if *minutes != "" {
				if m, err := strconv.Atoi(*minutes); err != nil || m < 5 || m > 600 {
					return usageError{msg: s.msg().Say("usage.minutes", messages.Args{"Value": `"` + termsafe.Excerpt(*minutes) + `"`})}
				}
			}
			if *until != "" {
				at, err := harness.ResolveUntil(*until, r.Now())
				if err != nil {
					return badUsage(err)
				}
				o.Until = at
			}
			o.Terminal = s.terminal()
			ints, stopRelay := s.relayInterrupts()
			defer stopRelay()
			o.Interrupts = ints
			if o.Gate, err = s.runGate(r, o, set["gate"], *gateWords, *noGate); err != nil {
				return err
			}
			defer agentpty.RestoreTerminals()
			rr, err := harness.Run(ctx, r, o)
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, rr.Say(s.msg()))
			if code := rr.Stop.ExitCode(); code != 0 {
				return exitErr{code: code}
			}
			return nil
		},
	}
}

// looksLikeTaskID reports whether w is a task id as people write them: T-4, t-4 or 4.
func looksLikeTaskID(w string) bool {
	for _, part := range strings.Split(w, ",") {
		id := statefiles.NormalizeID(part)
		if part == "" {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimPrefix(id, "T-")); err != nil || !strings.HasPrefix(id, "T-") {
			return false
		}
	}
	return true
}
