package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

type modeJSON struct {
	Mode    string `json:"mode"`  // research, archive or waiting
	Saved   string `json:"saved"` // what .strom/mode.json says
	Agent   string `json:"agent"`
	Working bool   `json:"working"`
	Text    string `json:"text"`
}

func modeCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom mode")
	asJSON := fs.Bool("json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "mode",
		ShortUsage: "strom mode [archive | research] [--json]",
		ShortHelp:  "help.mode.short",
		LongHelp:   withHelp("help.mode.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 1 {
				return s.usage("usage.mode.args")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				ms, err := mode.Mode(ctx, r)
				if err != nil {
					return err
				}
				if *asJSON {
					return s.printJSON(modeJSON{Mode: ms.Shown, Saved: ms.Saved, Agent: ms.Agent, Working: ms.Working, Text: ms.Text()})
				}
				fmt.Fprintln(s.stdout, modeText(s.msg(), ms))
				return nil
			}
			to := args[0]
			if to != statefiles.ModeArchive && to != statefiles.ModeResearch {
				return s.usage("usage.mode.unknown", messages.Args{"Mode": termsafe.Excerpt(to)})
			}
			if err := s.personOnly("strom mode " + to); err != nil {
				return err
			}
			sw, err := mode.Switch(ctx, r, to, s.confirm, s.offerInstall(ctx, r), func(line string) { fmt.Fprintln(s.stdout, line) }, session.RecoverCrash)
			if err != nil {
				return err
			}
			p := s.msg()
			if sw.Commit == "" {
				text := p.Say("mode.shown_" + to)
				if ms, err := mode.Mode(ctx, r); err == nil {
					text = modeText(p, ms)
				}
				fmt.Fprintln(s.stdout, p.Say("mode.nothing", messages.Args{"Mode": text}))
				return nil
			}
			said := messages.Args{"Count": len(sw.Tasks), "Commit": sw.Commit[:min(7, len(sw.Commit))]}
			if to == statefiles.ModeArchive {
				fmt.Fprintln(s.stdout, p.Say("mode.now_archive", said))
			} else {
				fmt.Fprintln(s.stdout, p.Say("mode.now_research", said))
			}
			return nil
		}),
	}
}

// offerInstall asks the person on the terminal whether to install the research's
// agent with its install line, and runs the line on a yes with its output shown
// (R7.8). Without a terminal, or on no, it returns harness.ErrDeclined.
func (s *sys) offerInstall(ctx context.Context, r *research.Research) func(binary, line string) error {
	return func(binary, line string) error {
		tty := s.terminal()
		if tty == nil {
			return mode.ErrDeclined
		}
		if !s.yes(tty, s.msg().Say("mode.install_offer", messages.Args{"Binary": binary, "Install": line})) {
			return mode.ErrDeclined
		}
		fmt.Fprintf(s.stderr, "$ %s\n", line)
		out, errOut := s.rawStdout, s.rawStderr
		if out == nil {
			out, errOut = s.stdout, s.stderr
		}
		return mode.RunInstall(ctx, r, line, tty, out, errOut)
	}
}

// modeText is the mode in the person's words: research, archive, or research
// waiting for an agent (with how to install it).
func modeText(p *messages.Printer, ms mode.State) string {
	if ms.Shown == mode.ModeWaiting {
		return p.Say("mode.shown_waiting", messages.Args{"Binary": ms.Binary, "Advice": ms.SayAdvice(p)})
	}
	if ms.Shown == statefiles.ModeArchive {
		return p.Say("mode.shown_archive")
	}
	return p.Say("mode.shown_research")
}
