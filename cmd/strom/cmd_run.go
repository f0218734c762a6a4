package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness"
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

const runExits = `  0  the run ended as planned: the sessions asked for, no open tasks left,
     the --until time, stopped by hand, the condition said stop, or the
     archive the tasks left need does not answer
  1  error (the message says what to do), the agent failing among them
  2  bad usage
  3  needs a person: the subscription limit, the agent is not logged in, a
     screen of the agent that only a person may answer, or the condition's cap`

func runCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom run")
	max := fs.Int("max", 0, "at most N sessions (1–100)")
	loop := fs.Bool("loop", false, "session after session while there is work")
	var tasks stringList
	fs.Var(&tasks, "task", "work on these tasks in this order, one session each (repeat or comma-separate)")
	until := fs.String("until", "", "start no session after HH:MM (a time already past today means tomorrow)")
	minutes := fs.String("minutes", "", "time limit of one session in minutes (5–600)")
	agent := fs.String("agent", "", "the agent for this run: claude, codex, opencode, grok, command or demo")
	interactive := fs.Bool("interactive", false, "type into the agent yourself; the first Ctrl-C stops at once")
	gateWords := fs.String("gate", "", `this run asks this condition instead of run.gate: "<name> [args]" (a person confirms)`)
	noGate := fs.Bool("no-gate", false, "this run asks no condition (a person confirms)")
	return &ffcli.Command{
		Name:       "run",
		ShortUsage: "strom run [--max N | --loop | --task T…] [--until HH:MM] [--minutes N] [--agent NAME] [--gate \"<name> [args]\" | --no-gate] [-- AGENT ARGS]",
		ShortHelp:  "help.run.short",
		LongHelp: withHelp(`Without an option one session. Each session takes the first open task, starts
the agent under a pty with a time limit, and ends with one commit whose trailers
say why it ended. Every run ends when no open task is left, and prints
"N sessions · stopped: <reason>".

Ctrl-C asks the running session to finish (the agent records and closes); a
second Ctrl-C stops it at once and returns its task to the queue. With
--interactive the first Ctrl-C stops at once.

A run that finds a session left by a crashed strom commits what it left
(Strom-End: crashed), returns its task, and goes on.

Programs the research's own settings name (check.command, agent.command, an
agent profile's command, …) start only once a person on this computer allowed
them with strom allow.

Words after -- go to the agent: strom run --agent command -- ./my-agent.sh`, runExits),
		FlagSet: fs,
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
					return usagef("strom run takes no word %q: the agent's own words go after --, as in strom run --agent command -- ./my-agent.sh", w)
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
			if len(tasks) > 0 {
				q, err := r.Tree.LoadQueue()
				if err != nil {
					return err
				}
				for i, id := range tasks {
					t, err := q.Find(id)
					if err != nil {
						return usageError{msg: s.msg().Say("usage.no_task", messages.Args{"Given": id, "Task": statefiles.NormalizeID(id)})}
					}
					tasks[i] = t.ID
				}
			}
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
				return usagef("words after -- are for the command agent: strom run --agent command -- ./my-agent.sh")
			}
			if len(args) > 0 && *agent == "" {
				o.Agent = "command"
			}
			if *minutes != "" {
				if m, err := strconv.Atoi(*minutes); err != nil || m < 5 || m > 600 {
					return usageError{msg: s.msg().Say("usage.minutes", messages.Args{"Value": strconv.Quote(*minutes)})}
				}
			}
			if *until != "" {
				at, err := harness.ResolveUntil(*until, r.Now())
				if err != nil {
					return usageError{msg: err.Error()}
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
			rr, err := r.Run(ctx, o)
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
