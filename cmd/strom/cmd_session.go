package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/internal/clock"
)

func sessionCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session")
	return &ffcli.Command{
		Name:       "session",
		ShortUsage: "strom session <list|finish|stop|log|send|close> …",
		ShortHelp:  "help.session.short",
		FlagSet:    fs,
		LongHelp:   withHelp("Sessions are named by their id or by their number in strom session list.", ""),
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
	LeftSeconds     int64                  `json:"leftSeconds"`
	FinishRequested bool                   `json:"finishRequested"`
	Finish          *harness.FinishRequest `json:"finish,omitempty"`
	// WaitingForInput: the agent has been quiet longer than the input-wait
	// threshold (15 s, STROM_INPUT_WAIT_IDLE_MS).
	WaitingForInput bool `json:"waitingForInput"`
}

// inputWaitIdle is how long an agent must be quiet to be shown waiting for input.
const inputWaitIdle = 15 * time.Second

// liveSessions finds the research and the sessions running in it.
func (s *sys) liveSessions() (*harness.Research, []liveSession, error) {
	r, err := s.research()
	if err != nil {
		return nil, nil, err
	}
	ri, err := r.LiveRun()
	if err != nil || ri == nil || ri.Session == "" {
		return r, nil, err
	}
	l := liveSession{N: 1, Session: ri.Session, Task: ri.Task, Agent: ri.Agent, Started: ri.SessionAt, Deadline: ri.Deadline, PID: ri.PID}
	l.Name = ri.Agent + " · " + ri.Task
	if q, err := r.Tree.LoadQueue(); err == nil {
		if t, err := q.Find(ri.Task); err == nil {
			l.Name += " " + shortTitle(t.Title)
		}
	}
	l.LeftSeconds = max(0, int64(ri.Deadline.Sub(r.Now())/time.Second))
	if f, ok := r.FinishRequested(ri.Session); ok {
		l.FinishRequested, l.Finish = true, &f
	}
	// The transcript's change and the agent's strom commands are stamped by the
	// file system, on the real clock.
	if last := r.LastActivity(ri.Session); !last.IsZero() {
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
func (l liveSession) line(now time.Time) string {
	out := fmt.Sprintf("%d  %s  %s  %s (until %s)", l.N, l.Name, l.Session, harness.TimeLeft(now, l.Deadline), harness.ClockAt(l.Deadline.Local()))
	if l.Finish != nil {
		if l.Finish.Person() {
			out += "  finish requested"
		} else {
			out += "  finish requested: the cap of the condition “" + l.Finish.Gate + "”"
		}
	}
	if l.WaitingForInput {
		out += "  waiting for input"
	}
	return out
}

// pickSession resolves "N" or an id among the live sessions; "" = the only one.
func pickSession(live []liveSession, which string) (liveSession, error) {
	if len(live) == 0 {
		return liveSession{}, fmt.Errorf("no session is running here: strom run starts one")
	}
	if which == "" {
		if len(live) > 1 {
			return liveSession{}, usagef("%d sessions run: name which (strom session list)", len(live))
		}
		return live[0], nil
	}
	for _, l := range live {
		if fmt.Sprint(l.N) == which || l.Session == which {
			return l, nil
		}
	}
	return liveSession{}, fmt.Errorf("no running session %q: strom session list shows them", which)
}

func sessionListCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session list")
	asJSON := fs.Bool("json", false, "print JSON")
	return &ffcli.Command{
		Name:       "list",
		ShortUsage: "strom session list [--json]",
		ShortHelp:  "the running sessions",
		FlagSet:    fs,
		LongHelp: withHelp(`One line per running session: its number, its name (the agent and the task),
its id, the time left and the deadline, "finish requested" while a request to
finish is pending, and "waiting for input" once the agent has been quiet longer
than 15 s (STROM_INPUT_WAIT_IDLE_MS sets it in milliseconds). --json has the same,
with waitingForInput and finishRequested.`, ""),
		Exec: func(ctx context.Context, args []string) error {
			s.json = *asJSON
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			if *asJSON {
				if live == nil {
					live = []liveSession{}
				}
				return s.printJSON(live)
			}
			if len(live) == 0 {
				fmt.Fprintln(s.stdout, "No session is running.")
				return nil
			}
			for _, l := range live {
				fmt.Fprintln(s.stdout, l.line(r.Now()))
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
		ShortHelp:  "ask a running session to finish: the agent records and closes, then the run ends",
		FlagSet:    fs,
		LongHelp:   withHelp("Nothing is stopped by force: the agent sees the request at its next strom command.", ""),
		Exec: func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session finish"); err != nil {
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
				if ri, _ := r.LiveRun(); ri != nil {
					if err := r.RequestRunFinish("strom session finish"); err != nil {
						return err
					}
					fmt.Fprintf(s.stdout, "Asked the run (pid %d) to end: no session is at work, so it ends now.\n", ri.PID)
					return nil
				}
			}
			for _, a := range args {
				l, err := pickSession(live, a)
				if err != nil {
					return err
				}
				if err := r.RequestFinish(l.Session, "strom session finish"); err != nil {
					return err
				}
				fmt.Fprintf(s.stdout, "Asked session %s (%s) to finish; the run ends after it.\n", l.Session, l.Task)
			}
			return nil
		},
	}
}

func sessionSendCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session send")
	keys := fs.Bool("keys", false, "the words after N are key names: C-c Enter Up Tab Escape … (C-x: Ctrl with a letter)")
	noEnter := fs.Bool("no-enter", false, "write the text only, without Enter")
	paste := fs.Bool("paste", false, "enter the text as a bracketed paste")
	return &ffcli.Command{
		Name:       "send",
		ShortUsage: "strom session send N TEXT [--no-enter] [--paste] | strom session send N --keys KEY…",
		ShortHelp:  "type text or keys into a running agent",
		FlagSet:    fs,
		LongHelp: withHelp(`TEXT is typed as a person would: as a paste when the agent asked for bracketed
paste, then Enter. --no-enter writes the text as it is, nothing after it;
--paste always wraps it in a bracketed paste (ESC[200~ … ESC[201~), then Enter
unless --no-enter. --keys sends the named keys, exactly and nothing else:
strom session send 1 --keys C-c, strom session send 1 --keys Up Enter.
Key names: `+strings.Join(agentpty.KeyNames(), ", ")+`, C-a … C-z, and any single character.`, ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session send"); err != nil {
				return err
			}
			var snd harness.Send
			switch {
			case *keys:
				if *noEnter || *paste {
					return usagef("--keys sends exactly the keys named: leave out --no-enter and --paste, or add Enter as a key")
				}
				if len(args) < 2 {
					return usagef("strom session send --keys takes a session and key names, e.g. strom session send 1 --keys C-c")
				}
				for _, k := range args[1:] {
					if !agentpty.KnownKey(k) {
						return usagef("%q is no key name: use one of %s, C-a … C-z, or a single character", k, strings.Join(agentpty.KeyNames(), ", "))
					}
				}
				snd.Keys = args[1:]
			default:
				if len(args) != 2 {
					return usagef("strom session send takes a session and the text in quotes, e.g. strom session send 1 \"look at the 1852 register too\"")
				}
				snd = harness.Send{Text: args[1], NoEnter: *noEnter, Paste: *paste}
			}
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			l, err := pickSession(live, args[0])
			if err != nil {
				return err
			}
			if err := r.RequestSend(l.Session, snd); err != nil {
				return err
			}
			if *keys {
				fmt.Fprintf(s.stdout, "Sent %s to session %s.\n", strings.Join(snd.Keys, " "), l.Session)
			} else {
				fmt.Fprintf(s.stdout, "Typed into session %s.\n", l.Session)
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
		ShortHelp:  "stop a running session at once: its work is committed, its task back in the queue, the run ends",
		FlagSet:    fs,
		LongHelp: withHelp(`As the second Ctrl-C in the run's terminal: the agent is stopped now
(SIGTERM, then SIGKILL), what it wrote is committed (Strom-End: stopped-by-hand),
its task returns to the queue, and the run ends by hand. strom session finish
asks instead, and lets the agent record and close.`, ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session stop"); err != nil {
				return err
			}
			if len(args) > 1 {
				return usagef("strom session stop takes one session (N or its id)")
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
				if ri, _ := r.LiveRun(); ri != nil {
					return fmt.Errorf("no session is at work: the run (pid %d) waits between sessions — end it with strom session finish", ri.PID)
				}
			}
			l, err := pickSession(live, which)
			if err != nil {
				return err
			}
			if err := r.RequestStop(l.Session, "strom session stop"); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "Stopping session %s (%s) now: its work is committed, %s goes back to the queue, and the run ends.\n", l.Session, l.Task, l.Task)
			return nil
		}),
	}
}

func sessionCloseCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session close")
	return &ffcli.Command{
		Name:       "close",
		ShortUsage: "strom session close",
		ShortHelp:  "(the agent) end this session; the task stays in the queue unless done or waiting",
		FlagSet:    fs,
		LongHelp:   withHelp("Refused while the clean-state check fails: the message says what to fix.", ""),
		Exec: func(ctx context.Context, args []string) error {
			ref := s.sessionRef()
			if ref.Session == "" {
				return fmt.Errorf("strom session close is for the agent inside a session: a person asks a session to finish with strom session finish")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			if why := r.CheckNow(ctx); why != "" {
				return fmt.Errorf("the session cannot close yet: %s; fix it and run strom session close again", why)
			}
			if err := r.RequestClose(ref.Session, "close"); err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, "The session closes now: exit when you have finished writing.")
			return nil
		},
	}
}

func demoAgentCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom demo-agent")
	promptFile := fs.String("prompt-file", "", "the session prompt")
	return &ffcli.Command{
		Name:       "demo-agent",
		ShortUsage: "strom demo-agent --prompt-file F",
		ShortHelp:  "help.demo-agent.short",
		FlagSet:    fs,
		LongHelp:   withHelp("It reads its task, works a few seconds, records, and sometimes finishes, deterministic from STROM_DEMO_SEED.", ""),
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
