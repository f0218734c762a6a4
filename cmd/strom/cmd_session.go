package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

func sessionCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session")
	return &ffcli.Command{
		Name:       "session",
		ShortUsage: "strom session <list|finish|stop|log|send|close> …",
		ShortHelp:  "help.session.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.session.long", ""),
		Subcommands: []*ffcli.Command{sessionListCommand(s), sessionFinishCommand(s), sessionLogCommand(s),
			sessionSendCommand(s), sessionStopCommand(s), sessionCloseCommand(s)},
	}
}

type liveSession struct {
	N        int       `json:"n"`
	Name     string    `json:"name"` // derived: the agent and the task
	Session  string    `json:"session"`
	Task     string    `json:"task"`
	Agent    string    `json:"agent"`
	Started  time.Time `json:"started"`
	Deadline time.Time `json:"deadline"`
	PID      int       `json:"pid"`
	// LeftSeconds is the time left, rounded down.
	LeftSeconds     int64                   `json:"left_seconds"`
	FinishRequested bool                    `json:"finish_requested"`
	Finish          *runfiles.FinishRequest `json:"finish,omitempty"`
	// WaitingForInput: the agent has been quiet longer than the input-wait
	// threshold (15 s, STROM_INPUT_WAIT_IDLE_MS).
	WaitingForInput bool `json:"waiting_for_input"`
	oldKeys
}

// oldKeys are the camelCase keys strom session list --json printed before every
// --json output took snake_case: printed beside the new ones for one release, so
// that a script that reads them has time to move. Removed in the release after.
type oldKeys struct {
	LeftSeconds     int64 `json:"leftSeconds"`
	FinishRequested bool  `json:"finishRequested"`
	WaitingForInput bool  `json:"waitingForInput"`
}

// withOldKeys fills the old keys from the new ones.
func (l liveSession) withOldKeys() liveSession {
	l.oldKeys = oldKeys{LeftSeconds: l.LeftSeconds, FinishRequested: l.FinishRequested, WaitingForInput: l.WaitingForInput}
	return l
}

// inputWaitIdle is how long an agent must be quiet to be shown waiting for input.
const inputWaitIdle = 15 * time.Second

// liveSessions finds the research and the sessions running in it.
func (s *sys) liveSessions() (*research.Research, []liveSession, error) {
	r, err := s.research()
	if err != nil {
		return nil, nil, err
	}
	ri, err := runfiles.LiveRun(r)
	if err != nil || ri == nil || ri.Session == "" {
		return r, nil, err
	}
	l := liveSession{N: 1, Session: ri.Session, Task: ri.Task, Agent: ri.Agent, Started: ri.SessionAt, Deadline: ri.Deadline, PID: ri.PID}
	l.Name = ri.Agent + " · " + ri.Task
	if t, err := r.Tree.FindTask(context.Background(), ri.Task); err == nil {
		l.Name += " " + shortTitle(t.Title)
	}
	l.LeftSeconds = max(0, int64(ri.Deadline.Sub(r.Now())/time.Second))
	if f, ok := runfiles.FinishRequested(r, ri.Session); ok {
		l.FinishRequested, l.Finish = true, &f
	}
	// The transcript's change and the agent's strom commands are stamped by the
	// file system, on the real clock.
	if last := runfiles.LastActivity(r, ri.Session); !last.IsZero() {
		l.WaitingForInput = clock.Real{}.Now().Sub(last) > s.inputWaitIdle()
	}
	return r, []liveSession{l}, nil
}

// inputWaitIdle reads STROM_INPUT_WAIT_IDLE_MS; the default is 15 s.
func (s *sys) inputWaitIdle() time.Duration {
	if ms, err := strconv.Atoi(s.getenv("STROM_INPUT_WAIT_IDLE_MS")); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return inputWaitIdle
}

// shortTitle is a task title on one line of at most 40 characters, with no
// control characters.
func shortTitle(title string) string {
	title = strings.Join(strings.Fields(strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return ' '
		}
		return c
	}, title)), " ")
	if r := []rune(title); len(r) > 40 {
		title = string(r[:39]) + "…"
	}
	return title
}

// line is how strom session list shows a live session.
func (l liveSession) line(p *messages.Printer, now time.Time) string {
	out := fmt.Sprintf("%d  %s  %s  %s", l.N, l.Name, l.Session, p.Say("session.left_until",
		messages.Args{"Left": session.SayTimeLeft(p, now, l.Deadline), "Until": runfiles.ClockAt(l.Deadline.Local())}))
	if l.Finish != nil {
		if l.Finish.Person() {
			out += "  " + p.Say("session.finish_requested")
		} else {
			out += "  " + p.Say("session.finish_"+l.Finish.Limit(), messages.Args{"Gate": l.Finish.Gate})
		}
	}
	if l.WaitingForInput {
		out += "  " + p.Say("session.waiting_input")
	}
	return out
}

// namedSessions refuses an empty word where a session is named: "" would
// otherwise be taken for no word, which means the only session.
func (s *sys) namedSessions(words []string) error {
	for _, w := range words {
		if strings.TrimSpace(w) == "" {
			return s.usage("usage.session.blank")
		}
	}
	return nil
}

// pickSession resolves "N" or an id among the live sessions; "" = the only one.
func (s *sys) pickSession(live []liveSession, which string) (liveSession, error) {
	if len(live) == 0 {
		return liveSession{}, errors.New(s.msg().Say("session.none_here"))
	}
	if which == "" {
		if len(live) > 1 {
			return liveSession{}, s.usage("usage.session.which", messages.Args{"Count": len(live)})
		}
		return live[0], nil
	}
	for _, l := range live {
		if fmt.Sprint(l.N) == which || l.Session == which {
			return l, nil
		}
	}
	return liveSession{}, errors.New(s.msg().Say("session.no_such", messages.Args{"Session": termsafe.Excerpt(which)}))
}

func sessionListCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session list")
	asJSON := fs.Bool("json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "list",
		ShortUsage: "strom session list [--json]",
		ShortHelp:  "help.session.list.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.session.list.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			s.json = *asJSON
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			if *asJSON {
				out := make([]liveSession, 0, len(live))
				for _, l := range live {
					out = append(out, l.withOldKeys())
				}
				return s.printJSON(out)
			}
			if len(live) == 0 {
				fmt.Fprintln(s.stdout, s.msg().Say("session.none"))
				return nil
			}
			for _, l := range live {
				fmt.Fprintln(s.stdout, l.line(s.msg(), r.Now()))
			}
			return nil
		},
	}
}

func sessionFinishCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session finish")
	return &ffcli.Command{
		Name:       "finish",
		ShortUsage: "strom session finish [N…]",
		ShortHelp:  "help.session.finish.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.session.finish.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session finish"); err != nil {
				return err
			}
			if err := s.namedSessions(args); err != nil {
				return err
			}
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{""}
			}
			// A run that waits (for its condition or an archive) has no session at
			// work: the request ends the wait.
			if len(live) == 0 {
				if ri, _ := runfiles.LiveRun(r); ri != nil {
					if err := runfiles.RequestRunFinish(r, "strom session finish"); err != nil {
						return err
					}
					fmt.Fprintln(s.stdout, s.msg().Say("session.asked_run", messages.Args{"PID": ri.PID}))
					return nil
				}
			}
			asked := map[string]bool{}
			for _, a := range args {
				l, err := s.pickSession(live, a)
				if err != nil {
					return err
				}
				// A session named twice (1 1, or its number and its id) is asked once.
				if asked[l.Session] {
					continue
				}
				asked[l.Session] = true
				if err := runfiles.RequestFinish(r, l.Session, "strom session finish"); err != nil {
					return err
				}
				fmt.Fprintln(s.stdout, s.msg().Say("session.asked_finish", messages.Args{"Session": l.Session, "Task": l.Task}))
			}
			return nil
		},
	}
}

func sessionSendCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session send")
	keys := fs.Bool("keys", false, "help.session.send.flag.keys")
	noEnter := fs.Bool("no-enter", false, "help.session.send.flag.no-enter")
	paste := fs.Bool("paste", false, "help.session.send.flag.paste")
	return &ffcli.Command{
		Name:       "send",
		ShortUsage: "strom session send N TEXT [--no-enter] [--paste] | strom session send N --keys KEY…",
		ShortHelp:  "help.session.send.short",
		FlagSet:    fs,
		LongHelp:   withHelp(s.helpWith("help.session.send.long", messages.Args{"Keys": strings.Join(agentpty.KeyNames(), ", ")}), ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session send"); err != nil {
				return err
			}
			var snd session.Send
			switch {
			case *keys:
				if *noEnter || *paste {
					return s.usage("usage.session.send.keys_only")
				}
				if len(args) < 2 {
					return s.usage("usage.session.send.keys")
				}
				for _, k := range args[1:] {
					if !agentpty.KnownKey(k) {
						return s.usage("usage.session.send.no_key", messages.Args{"Key": termsafe.Excerpt(k), "Keys": strings.Join(agentpty.KeyNames(), ", ")})
					}
				}
				snd.Keys = args[1:]
			default:
				if len(args) != 2 {
					return s.usage("usage.session.send.text")
				}
				snd = session.Send{Text: args[1], NoEnter: *noEnter, Paste: *paste}
			}
			if err := s.namedSessions(args[:1]); err != nil {
				return err
			}
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			l, err := s.pickSession(live, args[0])
			if err != nil {
				return err
			}
			if err := session.RequestSend(r, l.Session, snd); err != nil {
				return err
			}
			if *keys {
				fmt.Fprintln(s.stdout, s.msg().Say("session.sent", messages.Args{"Keys": strings.Join(snd.Keys, " "), "Session": l.Session}))
			} else {
				fmt.Fprintln(s.stdout, s.msg().Say("session.typed", messages.Args{"Session": l.Session}))
			}
			return nil
		}),
	}
}

func sessionStopCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session stop")
	return &ffcli.Command{
		Name:       "stop",
		ShortUsage: "strom session stop [N|ID]",
		ShortHelp:  "help.session.stop.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.session.stop.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session stop"); err != nil {
				return err
			}
			if len(args) > 1 {
				return s.usage("usage.session.stop.args")
			}
			if err := s.namedSessions(args); err != nil {
				return err
			}
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			which := ""
			if len(args) == 1 {
				which = args[0]
			}
			if len(live) == 0 {
				if ri, _ := runfiles.LiveRun(r); ri != nil {
					return errors.New(s.msg().Say("session.stop_between", messages.Args{"PID": ri.PID}))
				}
			}
			l, err := s.pickSession(live, which)
			if err != nil {
				return err
			}
			if err := runfiles.RequestStop(r, l.Session, "strom session stop"); err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("session.stopping", messages.Args{"Session": l.Session, "Task": l.Task}))
			return nil
		}),
	}
}

func sessionCloseCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session close")
	return &ffcli.Command{
		Name:       "close",
		ShortUsage: "strom session close",
		ShortHelp:  "help.session.close.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.session.close.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			ref := s.sessionRef()
			if ref.Session == "" {
				return errors.New(s.msg().Say("session.close_outside"))
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if why := session.CheckNow(ctx, r, ref.Session, ref.Task); why != "" {
				return errors.New(s.msg().Say("session.close_not_yet", messages.Args{"Why": why}))
			}
			if err := runfiles.RequestClose(r, ref.Session, "close"); err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("session.closing"))
			return nil
		},
	}
}

func demoAgentCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom demo-agent")
	promptFile := fs.String("prompt-file", "", "help.demo-agent.flag.prompt-file")
	return &ffcli.Command{
		Name:       "demo-agent",
		ShortUsage: "strom demo-agent --prompt-file F",
		ShortHelp:  "help.demo-agent.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.demo-agent.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			strom, _ := os.Executable()
			if *promptFile != "" {
				args = append([]string{"--prompt-file", *promptFile}, args...)
			}
			code := agents.RunDemo(ctx, agents.DemoOptions{Args: args, Stdin: s.stdin, Stdout: s.stdout, Stderr: s.stderr,
				Getenv: s.getenv, Clock: s.clock(), Strom: strom, Dir: s.cwd()})
			if code != 0 {
				return exitErr{code: code}
			}
			return nil
		},
	}
}
