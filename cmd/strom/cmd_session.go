package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

func sessionCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session")
	return &ffcli.Command{
		Name:       "session",
		ShortUsage: "strom session <list|finish|log|send|close> …",
		ShortHelp:  "the running session: list, ask to finish, read its transcript, type into it",
		FlagSet:    fs,
		LongHelp:   withHelp("Sessions are named by their id or by their number in strom session list.", ""),
		Subcommands: []*ffcli.Command{sessionListCommand(s), sessionFinishCommand(s), sessionLogCommand(s),
			sessionSendCommand(s), sessionCloseCommand(s)},
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
			// A run waiting for its condition has no session: the request ends the wait.
			if len(live) == 0 && len(args) == 1 && args[0] == "" {
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

func sessionLogCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session log")
	offset := fs.Int("offset", -1, "first line (0-based)")
	limit := fs.Int("limit", 0, "at most K lines")
	return &ffcli.Command{
		Name:       "log",
		ShortUsage: "strom session log [N|ID] [--offset L --limit K]",
		ShortHelp:  "a session's transcript (the last 200 lines by default)",
		FlagSet:    fs,
		LongHelp:   withHelp("Without a session: the running one, or the newest transcript.", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			r, err := s.research()
			if err != nil {
				return err
			}
			id := ""
			if len(args) > 0 {
				id = args[0]
			}
			_, live, _ := s.liveSessions()
			if l, err := pickSession(live, id); err == nil {
				id = l.Session
			}
			if id == "" {
				logs, _ := filepath.Glob(r.Tree.Path(statefiles.SessionsDir, "*.log"))
				if len(logs) == 0 {
					return fmt.Errorf("no session transcripts yet: strom run makes them")
				}
				id = strings.TrimSuffix(filepath.Base(logs[len(logs)-1]), ".log")
			}
			f, err := os.Open(r.Tree.Path(statefiles.SessionsDir, id+".log"))
			if err != nil {
				return fmt.Errorf("no transcript for session %s: strom log lists the sessions", id)
			}
			defer f.Close()
			var lines []string
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			from, to := 0, len(lines)
			switch {
			case *offset >= 0:
				from = min(*offset, len(lines))
				if *limit > 0 {
					to = min(from+*limit, len(lines))
				}
			default:
				n := 200
				if *limit > 0 {
					n = *limit
				}
				from = max(0, len(lines)-n)
			}
			for _, l := range lines[from:to] {
				fmt.Fprintln(s.stdout, l)
			}
			if from > 0 || to < len(lines) {
				fmt.Fprintf(s.stderr, "(lines %d–%d of %d; --offset and --limit page)\n", from, to, len(lines))
			}
			return nil
		}),
	}
}

func sessionSendCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session send")
	return &ffcli.Command{
		Name:       "send",
		ShortUsage: "strom session send N TEXT",
		ShortHelp:  "type text into a running agent",
		FlagSet:    fs,
		LongHelp:   withHelp("The text is typed as a paste, then Enter.", ""),
		Exec: func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom session send"); err != nil {
				return err
			}
			if len(args) != 2 {
				return usagef("strom session send takes a session and the text in quotes, e.g. strom session send 1 \"look at the 1852 register too\"")
			}
			r, live, err := s.liveSessions()
			if err != nil {
				return err
			}
			l, err := pickSession(live, args[0])
			if err != nil {
				return err
			}
			if err := r.RequestSend(l.Session, args[1]); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "Typed into session %s.\n", l.Session)
			return nil
		},
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
		ShortHelp:  "(run by strom) the built-in scripted agent of make demo and the tests",
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
