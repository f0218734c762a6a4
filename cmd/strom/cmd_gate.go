package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/gates"
	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

const gateExits = "help.gate.exits"

func gateCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom gate")
	return &ffcli.Command{
		Name:        "gate",
		ShortUsage:  "strom gate test [--gate \"<name> [args]\"] [--usage-file F] [--now TIME] [--json]",
		ShortHelp:   "help.gate.short",
		FlagSet:     fs,
		LongHelp:    withHelp("help.gate.long", gateExits),
		Subcommands: []*ffcli.Command{gateTestCommand(s)},
	}
}

// gateTestJSON is strom gate test --json.
type gateTestJSON struct {
	Gate        string       `json:"gate"`
	Verdict     string       `json:"verdict"`
	Reason      string       `json:"reason"`
	RetryAfterS float64      `json:"retry_after_s"`
	RetryAt     *time.Time   `json:"retry_at,omitempty"`
	Hard        bool         `json:"hard"`
	Watch       *gates.Watch `json:"watch,omitempty"`
	Exit        int          `json:"exit"`
}

func gateTestCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom gate test")
	gateWords := fs.String("gate", "", "help.gate.test.flag.gate")
	usageFile := fs.String("usage-file", "", "help.gate.test.flag.usage-file")
	nowFlag := fs.String("now", "", "help.gate.test.flag.now")
	asJSON := fs.Bool("json", false, "help.gate.test.flag.json")
	return &ffcli.Command{
		Name:       "test",
		ShortUsage: "strom gate test [--gate \"<name> [args]\"] [--usage-file F] [--now TIME] [--json]",
		ShortHelp:  "help.gate.test.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.gate.test.long", gateExits),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 0 {
				return s.usage("usage.gate.test")
			}
			// A bad --now is bad usage, whether or not a condition is set.
			var at time.Time
			if *nowFlag != "" {
				var err error
				if at, err = parseMoment(*nowFlag); err != nil {
					return err
				}
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			settings, err := r.Settings()
			if err != nil {
				return err
			}
			words := *gateWords
			if words == "" {
				res, err := settings.Resolve("run.gate", "")
				if err != nil {
					return err
				}
				words = res.Value
			}
			if words == "" {
				return s.fail("gate.none_set")
			}
			spec, err := gates.ParseSpec(words)
			if err != nil {
				return badUsage(err)
			}
			// Asking Claude Code in the tree's folder of its own starts what that
			// folder's settings name: only once a person allowed it.
			if err := allow.RequireAllowed(ctx, r, s.terminal() != nil, "agent.claudeConfigDir"); err != nil {
				return err
			}
			a := s.asker(r, settings, spec, "")
			a.DryRun, a.UsageFile, a.At = true, *usageFile, at
			rep := a.Ask(ctx)
			if rep.Err != nil {
				return messages.Errorf(rep.Err, "gate.test_failed", messages.Args{"Gate": termsafe.Excerpt(spec.String()), "Error": rep.Err})
			}
			now := a.At
			if now.IsZero() {
				now = r.Now()
			}
			out := gateTestJSON{Gate: spec.String(), Verdict: rep.Verdict, Reason: rep.Reason, RetryAfterS: rep.RetryAfterS,
				Hard: rep.Hard, Watch: rep.Watch, Exit: rep.Exit}
			if rep.Verdict == gates.Wait {
				d := max(rep.RetryAfter(), gates.MinRetry)
				if rep.RetryAfter() == 0 {
					d = gates.DefaultRetry
				}
				at := now.Add(d)
				out.RetryAt = &at
			}
			if *asJSON {
				return s.printJSON(out)
			}
			reason := out.Reason
			if rep.Said != nil {
				reason = s.msg().Text(rep.Said)
			}
			fmt.Fprintln(s.stdout, s.say("gate.test_answer", messages.Args{"Gate": out.Gate, "Verdict": s.say("gate.verdict." + out.Verdict), "Reason": termsafe.Line(reason)}))
			if out.RetryAt != nil {
				fmt.Fprintln(s.stdout, s.say("gate.test_retry", messages.Args{"At": out.RetryAt.Local().Format("2006-01-02 15:04 MST")}))
			}
			if out.Hard {
				fmt.Fprintln(s.stdout, s.say("gate.test_hard"))
			}
			if out.Watch != nil {
				fmt.Fprintln(s.stdout, s.say("gate.test_watch", messages.Args{"Percent": fmt.Sprintf("%g", out.Watch.WeekFinishAt)}))
			}
			return nil
		}),
	}
}

// parseMoment reads --now: RFC 3339, or a local date and time to the minute.
func parseMoment(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, f := range []string{"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(f, v, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, badUsage(messages.New("usage.gate.now", messages.Args{"Value": termsafe.Excerpt(v)}))
}

// asker prepares a question to the gate for the research's agent (or agent, when
// given).
func (s *sys) asker(r *research.Research, settings statefiles.Settings, spec gates.Spec, agent string) *gates.Asker {
	if agent == "" {
		if res, err := settings.Resolve("agent.name", ""); err == nil {
			agent = res.Value
		}
	}
	return &gates.Asker{Tree: r.Tree, Clock: r.Clock, Getenv: s.getenv, Spec: spec, Agent: agent, ClaudeConfigDir: agents.ClaudeConfigDir(r, settings)}
}

// runGate is the condition of a strom run: run.gate, or --gate / --no-gate with a
// person's yes on the terminal (R7.4). nil: no condition, the run goes on while
// there is work.
func (s *sys) runGate(r *research.Research, o harness.RunOptions, gateSet bool, gateWords string, noGate bool) (harness.Gate, error) {
	if gateSet && noGate {
		return nil, s.usage("usage.gate.gate_or_none")
	}
	settings, err := r.Settings()
	if err != nil {
		return nil, err
	}
	res, err := settings.Resolve("run.gate", "")
	if err != nil {
		return nil, err
	}
	words := strings.TrimSpace(res.Value)
	// The cap of run.gate is a person's hard limit for the whole computer (R7.5.4):
	// it holds under --no-gate and --gate too, and the question says so.
	capped := gates.CapOf(words)
	capNote := ""
	if capped > 0 {
		capNote = " " + s.say("gate.cap_holds", messages.Args{"Cap": capped})
	}
	switch {
	case noGate:
		if words == "" {
			return nil, nil
		}
		if err := s.confirm(s.say("gate.ask_without", messages.Args{"Gate": words}) + capNote); err != nil {
			return nil, err
		}
		return s.capGate(r, settings, o, words, nil)
	case gateSet:
		spec, err := gates.ParseSpec(gateWords)
		if err != nil {
			return nil, badUsage(err)
		}
		if err := checkGate(s.getenv, spec); err != nil {
			return nil, err
		}
		if spec.String() != words {
			q := s.say("gate.ask_under", messages.Args{"Gate": spec.String()})
			if words != "" {
				q = s.say("gate.ask_instead", messages.Args{"Gate": spec.String(), "Set": words})
			}
			if err := s.confirm(q + capNote); err != nil {
				return nil, err
			}
		}
		if spec.String() != words && capped > 0 {
			inner, err := s.gateRunner(r, settings, o, spec)
			if err != nil {
				return nil, err
			}
			return s.capGate(r, settings, o, words, inner)
		}
		words = gateWords
	}
	if words == "" {
		return nil, nil
	}
	spec, err := gates.ParseSpec(words)
	if err != nil {
		return nil, messages.Errorf(err, "gate.bad_setting", messages.Args{"Error": err})
	}
	return s.gateRunner(r, settings, o, spec)
}

// gateRunner is the condition spec asked as R7.4 says.
func (s *sys) gateRunner(r *research.Research, settings statefiles.Settings, o harness.RunOptions, spec gates.Spec) (*gates.Runner, error) {
	a := s.asker(r, settings, spec, o.Agent)
	a.Since = r.Now().Add(-time.Second)
	return &gates.Runner{
		Asker:       a,
		Research:    r,
		Out:         o.Out,
		EachSession: o.Loop || !o.Until.IsZero(),
		Until:       o.Until,
		Interrupts:  o.Interrupts,
		Confirm:     s.startAnyway(r, o.Out),
	}, nil
}

// capGate asks the cap of run.gate (words) before every session, then inner (nil:
// nothing more). Without a cap it is inner alone.
func (s *sys) capGate(r *research.Research, settings statefiles.Settings, o harness.RunOptions, words string, inner harness.Gate) (harness.Gate, error) {
	if gates.CapOf(words) == 0 {
		return inner, nil
	}
	spec, err := gates.ParseSpec(words)
	if err != nil {
		return nil, messages.Errorf(err, "gate.bad_setting", messages.Args{"Error": err})
	}
	a := s.asker(r, settings, spec, o.Agent)
	a.Since = r.Now().Add(-time.Second)
	a.CapOnly = true
	capRunner := &gates.Runner{Asker: a, Research: r, Out: o.Out, EachSession: true, Until: o.Until, Interrupts: o.Interrupts}
	if inner == nil {
		return capRunner, nil
	}
	return gates.Chain{capRunner, inner}, nil
}

// yes asks a question on the terminal in the person's language ("[y/N]", "[j/N]",
// "[a/N]") and reads the answer: only a yes of that language (or English) is yes.
// Ctrl-C answers no at once.
func (s *sys) yes(tty io.Reader, question string) bool {
	p := s.msg()
	fmt.Fprintf(s.stderr, "%s %s ", question, p.Say("confirm.suffix"))
	in := tty
	if f, ok := tty.(*os.File); ok {
		if own := ownTerminal(f); own != nil {
			defer own.Close() // ends the reader when Ctrl-C answered first
			in = own
		}
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(in).ReadString('\n')
		lines <- line
	}()
	answered := make(chan struct{})
	defer close(answered)
	var line string
	select {
	case line = <-lines:
	case <-s.interrupted(answered):
		fmt.Fprintln(s.stderr)
		return false
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	for _, w := range strings.Fields(p.Say("confirm.yes")) {
		if answer == w {
			return true
		}
	}
	return false
}

// checkGateSetting holds the rules of run.gate beyond a string: a gate name that is
// installed (or claude-usage), and for claude-usage a whole n 0–99 and a cap 1–100
// (research 1.26.0).
func checkGateSetting(k statefiles.Key, value string) error {
	if k.Name != "run.gate" {
		return nil
	}
	spec, err := gates.ParseSpec(value)
	if err != nil {
		return badUsage(err)
	}
	return checkGate(os.Getenv, spec)
}

func checkGate(getenv func(string) string, spec gates.Spec) error {
	if spec.Builtin() {
		if _, err := claudeusage.ParseArgs(spec.Args); err != nil {
			ex := "claude-usage 10"
			if errors.Is(err, claudeusage.ErrBadCap) {
				ex = "claude-usage 10 --cap 95"
			}
			return badUsage(messages.Errorf(err, "usage.gate.write_as", messages.Args{"Error": err, "Example": ex}))
		}
		return nil
	}
	path := gates.Program(getenv, spec.Name)
	if fi, err := os.Stat(path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return messages.Errorf(gates.ErrNoGate, "gate.not_installed", messages.Args{"Gate": termsafe.Excerpt(spec.Name), "Path": termsafe.Excerpt(path)})
	}
	return nil
}
