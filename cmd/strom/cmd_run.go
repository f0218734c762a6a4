package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// runOptions are the flags and words of strom run.
type runOptions struct {
	Max         int      // --max: at most this many sessions
	MaxGiven    bool     // --max was given (0 is refused, not taken for none)
	Loop        bool     // --loop
	Tasks       []string // --task, and the ids after it
	TaskGiven   bool     // --task was given
	Until       string   // --until HH:MM
	Minutes     string   // --minutes: run.minutes for this run
	Agent       string   // --agent
	Interactive bool     // --interactive
	Gate        string   // --gate "<name> [args]"
	NoGate      bool     // --no-gate
	Words       []string // the words before "--" that are not flags
	AgentArgs   []string // the words after "--": the command agent's program
}

func runCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom run")
	var o runOptions
	fs.IntVar(&o.Max, "max", 0, s.helpWith("help.run.flag.max", rangeOf(statefiles.RunSessions)))
	fs.BoolVar(&o.Loop, "loop", false, "help.run.flag.loop")
	fs.Var((*stringList)(&o.Tasks), "task", "help.run.flag.task")
	fs.StringVar(&o.Until, "until", "", "help.run.flag.until")
	fs.StringVar(&o.Minutes, "minutes", "", s.helpWith("help.run.flag.minutes", rangeOf(settingKey("run.minutes"))))
	fs.StringVar(&o.Agent, "agent", "", "help.run.flag.agent")
	fs.BoolVar(&o.Interactive, "interactive", false, "help.run.flag.interactive")
	fs.StringVar(&o.Gate, "gate", "", "help.run.flag.gate")
	fs.BoolVar(&o.NoGate, "no-gate", false, "help.run.flag.no-gate")
	return &ffcli.Command{
		Name:       "run",
		ShortUsage: "strom run [--max N | --loop | --task T…] [--until HH:MM] [--minutes N] [--agent NAME] [--gate \"<name> [args]\" | --no-gate] [-- AGENT ARGS]",
		ShortHelp:  "help.run.short",
		LongHelp:   withHelp("help.run.long", runExits),
		FlagSet:    fs,
		Exec: func(ctx context.Context, args []string) error {
			var err error
			if o.Words, o.AgentArgs, err = s.agentWords(fs, args); err != nil {
				return err
			}
			o.MaxGiven, o.TaskGiven = given(fs, "max"), given(fs, "task")
			return runRun(ctx, s, o)
		},
	}
}

// runRun is strom run: the options checked, the research's run started with them,
// its outcome said, and its stop as the exit status.
func runRun(ctx context.Context, s *sys, o runOptions) error {
	harnessMemory(s)
	if err := s.personOnly("strom run"); err != nil {
		return err
	}
	if k := statefiles.RunSessions; o.MaxGiven && (o.Max < k.Min || o.Max > k.Max) {
		return s.usage("usage.max", messages.Args{"Value": o.Max, "Min": k.Min, "Max": k.Max})
	}
	n := 0
	for _, given := range []bool{o.MaxGiven, o.Loop, o.TaskGiven} {
		if given {
			n++
		}
	}
	if n > 1 {
		return s.usage("usage.one_of")
	}
	tasks := slices.Clone(o.Tasks)
	// The seed's form, --task T-4 T-1: the words after --task are more ids.
	for _, w := range o.Words {
		if !o.TaskGiven || !looksLikeTaskID(w) {
			return s.usage("usage.run.word", messages.Args{"Word": termsafe.Excerpt(w)})
		}
		_ = (*stringList)(&tasks).Set(w)
	}
	if o.TaskGiven && len(tasks) == 0 {
		return s.usage("usage.task_ids")
	}
	if o.Interactive && s.terminal() == nil {
		return s.usage("usage.interactive")
	}
	r, err := s.research()
	if err != nil {
		return err
	}
	for i, id := range tasks {
		t, err := r.Tree.FindTask(ctx, id)
		if errors.Is(err, statefiles.ErrUnknownTask) {
			return s.usage("usage.no_task", messages.Args{"Given": termsafe.Excerpt(id), "Task": termsafe.Excerpt(statefiles.NormalizeID(id))})
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
	loopOn := o.Loop || (o.Until != "" && !o.MaxGiven && !o.TaskGiven)
	ro := harness.RunOptions{Max: o.Max, Loop: loopOn, Tasks: tasks, Minutes: o.Minutes, Agent: o.Agent,
		AgentArgs: o.AgentArgs, Interactive: o.Interactive, Out: s.stdout}
	if ro.Agent, err = s.agentFor("strom run", o.Agent, o.AgentArgs); err != nil {
		return err
	}
	if err := s.checkMinutes(o.Minutes); err != nil {
		return err
	}
	if o.Until != "" {
		at, err := harness.ResolveUntil(o.Until, r.Now())
		if err != nil {
			return badUsage(err)
		}
		ro.Until = at
	}
	ro.Terminal = s.terminal()
	ints, stopRelay := s.relayInterrupts()
	defer stopRelay()
	ro.Interrupts = ints
	if ro.Gate, err = s.runGate(r, ro, o.Gate != "", o.Gate, o.NoGate); err != nil {
		return err
	}
	if ro.Notify, err = harness.NewNotifier(r, s.stdout); err != nil {
		return err
	}
	defer agentpty.RestoreTerminals()
	rr, err := harness.Run(ctx, r, ro)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.stdout, rr.Say(s.msg()))
	// The person is called where the end is said: on the desktop and at notify.url.
	ro.Notify.RunEnded(ctx, rr)
	if code := rr.Stop.ExitCode(); code != 0 {
		return exitErr{code: code}
	}
	return nil
}

// agentFor is the agent a run or chat uses: --agent checked, and the command agent
// when only the words after "--" name a program. Words after "--" for another
// agent are refused.
func (s *sys) agentFor(command, agent string, agentArgs []string) (string, error) {
	if agent != "" {
		if err := checkAgentName(s, agent); err != nil {
			return "", err
		}
	}
	if len(agentArgs) > 0 && agent != "command" && agent != "" {
		return "", s.usage("usage.agent_words", messages.Args{"Command": command})
	}
	if len(agentArgs) > 0 && agent == "" {
		return "command", nil
	}
	return agent, nil
}

// settingKey is a setting of the settings table, which holds every range and
// default of a setting: the flags that set one for a run take them from there.
func settingKey(name string) statefiles.Key {
	k, err := statefiles.LookupKey(name)
	if err != nil {
		panic("strom has no setting " + name)
	}
	return k
}

// rangeOf is an int setting's range as the placeholders Min and Max.
func rangeOf(k statefiles.Key) messages.Args { return messages.Args{"Min": k.Min, "Max": k.Max} }

// checkMinutes refuses a --minutes that run.minutes does not allow: a whole
// number in its range.
func (s *sys) checkMinutes(v string) error {
	if v == "" {
		return nil
	}
	k := settingKey("run.minutes")
	if m, err := strconv.Atoi(v); err != nil || m < k.Min || m > k.Max {
		return s.usage("usage.minutes", messages.Args{"Value": `"` + termsafe.Excerpt(v) + `"`, "Min": k.Min, "Max": k.Max})
	}
	return nil
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
