package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/term"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/buildinfo"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Exit statuses shared by every command. `strom run` adds its own (see cmd_run.go).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// sys is what a command gets from its process: streams, environment, signals.
type sys struct {
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	getenv     func(string) string
	interrupts <-chan os.Signal
	dir        string // working directory; "" = the process's

	// relayed is the run's Ctrl-C while relayInterrupts hands the process's
	// SIGINTs to it: a question asked meanwhile listens there.
	relayed <-chan struct{}

	clk     clock.Clock
	json    bool               // the running command was asked for --json
	res     *research.Research // the research repo, once found
	printer *messages.Printer  // the person's language, once asked for

	// helpArgs are the placeholders of help texts, by message id (helpWith).
	helpArgs map[string]messages.Args

	// flagsOf names the command whose flag set last spoke (its help or a flag
	// error): the flag package writes there, strom decides what a person sees.
	flagsOf string
	args    []string // the command line, for where a "--" stood

	// rawStdout and rawStderr are the streams before termsafe: for programs strom
	// starts on the person's terminal (the editor).
	rawStdout, rawStderr io.Writer
}

// msg is the printer of the person's language (messages.language, else the locale).
func (s *sys) msg() *messages.Printer {
	if s.printer == nil {
		if s.res != nil {
			s.printer = s.res.Messages()
		} else {
			s.printer = messages.For(research.Language(s.getenv))
		}
	}
	return s.printer
}

// child is the process state of a command the menu runs: the same streams,
// environment and signals, with the language and the research read again, as if
// the command were typed.
func (s *sys) child() *sys {
	return &sys{stdin: s.stdin, stdout: s.stdout, stderr: s.stderr, getenv: s.getenv, interrupts: s.interrupts, dir: s.dir, clk: s.clk}
}

func (s *sys) clock() clock.Clock {
	if s.clk == nil {
		s.clk = clock.FromEnv(s.getenv)
	}
	return s.clk
}

func (s *sys) env() research.Env {
	return research.Env{Clock: s.clock(), Getenv: s.getenv, Notice: s.stderr}
}

func (s *sys) cwd() string {
	if s.dir != "" {
		return s.dir
	}
	d, _ := os.Getwd()
	return d
}

// terminal returns the person's terminal when stdin is one.
func (s *sys) terminal() *os.File {
	if f, ok := s.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// inSession reports the session a command runs in, "" outside a session.
func (s *sys) inSession() string { return s.getenv("STROM_SESSION") }

// usageError is a mistake on the command line: exit status 2.
type usageError struct {
	msg string
	err error // a sentence from below, said when msg is empty (badUsage)
}

func (e usageError) Error() string {
	if e.msg == "" && e.err != nil {
		return e.err.Error()
	}
	return e.msg
}

func (e usageError) Unwrap() error { return e.err }

// exitError carries an exit status other than 1 with its message.
type exitErr struct {
	code int
	err  error
}

func (e exitErr) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e exitErr) Unwrap() error { return e.err }

// personOnly refuses a command inside a session: only a person may run it.
func (s *sys) personOnly(what string) error {
	if id := s.inSession(); id != "" {
		return errors.New(s.msg().Say("refuse.person_only", messages.Args{"What": what, "Session": id}))
	}
	return nil
}

// buildVersion is this strom's build as strom --version prints it after "strom ".
func buildVersion() string { return buildinfo.Current().String() }

// run parses args, runs the command and returns the exit status.
func run(ctx context.Context, args []string, s *sys) int {
	s.args = args
	// Titles, texts and records may come from an agent: nothing a command prints
	// drives the terminal, except what is the agent's own screen or meant for a
	// program (rawOutput).
	s.rawStdout, s.rawStderr = s.stdout, s.stderr
	if bufferedOutput(args) {
		out := bufio.NewWriterSize(s.stdout, 32<<10)
		defer out.Flush()
		s.stdout, s.stderr = out, flushFirst{out: out, w: s.stderr}
	}
	if !rawOutput(args) {
		s.stdout, s.stderr = termsafe.Writer(s.stdout), termsafe.Writer(s.stderr)
	}
	noteActivity(s, args)
	root := rootCommand(s, args)
	err := checkCommandLine(root, args)
	if err == nil {
		if err = root.Parse(args); err != nil && !errors.Is(err, flag.ErrHelp) {
			err = usageError{err: err} // a flag value of strom's own type refused
		}
	}
	if err == nil {
		err = root.Run(ctx)
	}
	err = s.flagOutcome(root, err)
	code := s.finish(err)
	// Inside a session every strom command carries the time left and a pending
	// finish request (R7.2, R7.3), so the agent learns of them at its next command.
	if !s.json {
		for _, n := range sessionNotes(s) {
			fmt.Fprintln(s.stdout, n)
		}
	}
	return code
}

// missingCommand is the sentence for a command group called without one of its
// commands, or with a word none of them is.
func (s *sys) missingCommand(c *ffcli.Command) string {
	if c.FlagSet != nil && c.FlagSet.NArg() > 0 {
		return s.msg().Say(s.noSuchCommand(c, c.FlagSet.Arg(0)))
	}
	var subs []string
	for _, sub := range c.Subcommands {
		subs = append(subs, sub.Name)
	}
	return s.msg().Say("usage.group.needs", messages.Args{"Command": commandName(c), "Commands": strings.Join(subs, ", ")})
}

// commandWords returns the first two words of args that are not flags: the
// command and its subcommand, as far as the output's kind needs them.
func commandWords(args []string) []string {
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
		if len(words) == 2 {
			break
		}
	}
	return words
}

// takesNoSignal reports the commands that end at a signal as the signal's default
// does, without a handler of their own: those that read, print and end
// (bufferedOutput), and strom record, the agent's write. A record ended anywhere,
// by a signal or by the machine, loses nothing: its line is one append to its
// segment, and the records' index, appended after it, is checked against the
// segments' stamps at every read.
func takesNoSignal(args []string) bool {
	if bufferedOutput(args) {
		return true
	}
	words := commandWords(args)
	return len(words) > 0 && words[0] == "record"
}

// bufferedOutput reports the commands that read, print and end, which the agent
// runs many times a session: the agent's strom task, strom task list and show,
// strom status and strom log. Their standard output is written in one piece at
// their end, not in a system call for each line (a task's records, a page of
// tasks); anything on standard error comes after what was printed before it.
func bufferedOutput(args []string) bool {
	words := commandWords(args)
	switch {
	case len(words) == 0:
		return false
	case words[0] == "status" || words[0] == "log":
		return true
	case words[0] == "task":
		return len(words) == 1 || words[1] == "list" || words[1] == "show"
	}
	return false
}

// flushFirst is standard error behind a buffered standard output: what was
// printed before goes out first.
type flushFirst struct {
	out *bufio.Writer
	w   io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	_ = f.out.Flush()
	return f.w.Write(p)
}

// rawOutput reports the commands whose output is not for a person to read as text:
// the demo agent's own screen, a transcript (strom session log), the answers to
// Claude Code's hooks and statusLine.
func rawOutput(args []string) bool {
	words := commandWords(args)
	cmd := strings.Join(words, " ")
	return cmd == "demo-agent" || strings.HasPrefix(cmd, "hooks ") || cmd == "session log" || cmd == "usage report"
}

// finish prints an error the way the command was asked to (text or JSON) and turns
// it into an exit status.
func (s *sys) finish(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	code := exitError
	var ue usageError
	var ee exitErr
	var nx ffcli.NoExecError
	switch {
	case errors.As(err, &nx):
		// A command that only groups others: one sentence naming them, not the
		// whole help page.
		err = usageError{msg: s.missingCommand(nx.Command)}
		code = exitUsage
	case errors.As(err, &ee):
		code = ee.code
		if ee.err == nil {
			return code
		}
	case errors.As(err, &ue):
		code = exitUsage
	case statefiles.BadInput(err):
		// A text over its bound or not UTF-8, a name or an id not written as one:
		// input to mend, however deep it was refused.
		code = exitUsage
	case errors.As(err, new(*flagError)):
		code = exitUsage
	}
	msg := err.Error()
	if s.json {
		// JSON keeps a sentence from below in English, as it keeps every value.
		// The part of a message after " — " says what to do: that is the hint.
		text, hint, _ := strings.Cut(msg, " — ")
		b, _ := json.Marshal(map[string]string{"error": text, "hint": hint})
		fmt.Fprintln(s.stdout, string(b))
		return code
	}
	fmt.Fprintln(s.stderr, "strom: "+s.msg().Text(err))
	return code
}

// printJSON writes v as indented JSON.
func (s *sys) printJSON(v any) error {
	enc := json.NewEncoder(s.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// relayInterrupts hands the process's SIGINTs to a run as plain events until the
// returned stop is called.
func (s *sys) relayInterrupts() (<-chan struct{}, func()) {
	ints := make(chan struct{}, 4)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-s.interrupts:
				select {
				case ints <- struct{}{}:
				default: // a burst of Ctrl-C: the run has enough of them queued
				}
			case <-done:
				return
			}
		}
	}()
	s.relayed = ints
	return ints, func() { s.relayed = nil; close(done) }
}

// interrupted is a channel that yields at the person's next Ctrl-C until stop is
// closed: the run's while one relays them, else the process's own. Nil (never)
// when there is neither.
func (s *sys) interrupted(stop <-chan struct{}) <-chan struct{} {
	if s.relayed != nil {
		return s.relayed
	}
	if s.interrupts == nil {
		return nil
	}
	c := make(chan struct{})
	go func() {
		select {
		case <-s.interrupts:
			close(c)
		case <-stop:
		}
	}()
	return c
}

// uniqueWords returns words without repeats, each where it first stood.
func uniqueWords(words []string) []string {
	seen := make(map[string]bool, len(words))
	out := words[:0:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
