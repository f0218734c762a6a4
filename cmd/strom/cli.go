package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/term"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/internal/clock"
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

	clk  clock.Clock
	json bool              // the running command was asked for --json
	res  *harness.Research // the research repo, once found
}

func (s *sys) clock() clock.Clock {
	if s.clk == nil {
		s.clk = clock.FromEnv(s.getenv)
	}
	return s.clk
}

func (s *sys) env() harness.Env { return harness.Env{Clock: s.clock(), Getenv: s.getenv} }

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
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

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
		return fmt.Errorf("%s is for a person, not for the agent in session %s: record what you would change with strom record, and a person will decide", what, id)
	}
	return nil
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// run parses args, runs the command and returns the exit status.
func run(ctx context.Context, args []string, s *sys) int {
	root := rootCommand(s, args)
	err := root.Parse(args)
	if err == nil {
		err = root.Run(ctx)
	}
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
		fmt.Fprintln(s.stderr, usageWithExits(nx.Command))
		return exitUsage
	case errors.As(err, &ee):
		code = ee.code
		if ee.err == nil {
			return code
		}
	case errors.As(err, &ue):
		code = exitUsage
	case isFlagError(err):
		code = exitUsage
	}
	msg := err.Error()
	if s.json {
		// The part of a message after " — " says what to do: that is the hint.
		text, hint, _ := strings.Cut(msg, " — ")
		b, _ := json.Marshal(map[string]string{"error": text, "hint": hint})
		fmt.Fprintln(s.stdout, string(b))
		return code
	}
	fmt.Fprintln(s.stderr, "strom: "+msg)
	return code
}

func isFlagError(err error) bool {
	m := err.Error()
	return strings.HasPrefix(m, "flag provided but not defined") || strings.HasPrefix(m, "invalid value") ||
		strings.HasPrefix(m, "invalid boolean") || strings.HasPrefix(m, "flag needs an argument") ||
		strings.HasPrefix(m, "error parsing")
}

// newFlags returns a flag set that reports errors instead of exiting, and writes its
// usage to stderr.
func newFlags(s *sys, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(s.stderr)
	return fs
}

// positionals parses flags that follow positional arguments too (ffcli stops at the
// first positional), so `strom task add "x" --body y` works like
// `strom task add --body y "x"`. Everything after "--" stays positional.
func positionals(fs *flag.FlagSet, args []string) ([]string, error) {
	var out []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(out, rest...), nil
		}
		if len(rest) == 0 {
			return out, nil
		}
		out = append(out, rest[0])
		args = rest[1:]
	}
}

// withHelp appends the exit status table to a command's long help.
func withHelp(long, exits string) string {
	if exits == "" {
		exits = "  0  done\n  1  error (the message says what to do)\n  2  bad usage"
	}
	return strings.TrimSpace(long) + "\n\nEXIT STATUS\n" + exits
}

// printJSON writes v as indented JSON.
func (s *sys) printJSON(v any) error {
	enc := json.NewEncoder(s.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// withArgs wraps a command's Exec so that its flags may also follow its arguments
// (see positionals).
func withArgs(fs *flag.FlagSet, run func(ctx context.Context, args []string) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		args, err := positionals(fs, args)
		if err != nil {
			return err
		}
		return run(ctx, args)
	}
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
	return ints, func() { close(done) }
}
