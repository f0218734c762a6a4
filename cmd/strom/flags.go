package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// newFlags returns a flag set that reports errors instead of exiting. What the flag
// package would print (its help) goes nowhere: flagOutcome prints the help on
// stdout when it was asked for. A mistake in the flags is found before the flag
// package parses them (checkFlags), as a flagError.
func newFlags(s *sys, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(flagSink{s: s, name: name})
	return fs
}

// flagSink is the output of a flag set: it only remembers which command's help
// was asked for.
type flagSink struct {
	s    *sys
	name string
}

func (f flagSink) Write(p []byte) (int, error) {
	f.s.flagsOf = f.name
	return len(p), nil
}

// flagOutcome turns a flag's outcome into what a person reads: the help asked
// for with -h or --help on stdout (exit 0), and for a flagError one sentence that
// names the help, not the whole help page (exit 2).
func (s *sys) flagOutcome(root *ffcli.Command, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		name := s.flagsOf
		if name == "" {
			name = "strom"
		}
		if c := findCommand(root, name); c != nil {
			fmt.Fprint(s.stdout, s.usageOf(c))
		}
		return err
	}
	var fe *flagError
	if !errors.As(err, &fe) {
		return err
	}
	return s.usage("usage.flag.see_help", messages.Args{"Problem": s.flagSentence(findCommand(root, fe.command), fe), "Command": fe.command})
}

// findCommand returns the command whose flag set is called name.
func findCommand(c *ffcli.Command, name string) *ffcli.Command {
	if c.FlagSet != nil && c.FlagSet.Name() == name {
		return c
	}
	for _, sub := range c.Subcommands {
		if f := findCommand(sub, name); f != nil {
			return f
		}
	}
	return nil
}

// flagProblem is what is wrong with a flag on the command line.
type flagProblem int

const (
	flagUnknown    flagProblem = iota + 1 // no flag of the command
	flagNeedsValue                        // given without its value
	flagBadValue                          // given a value its type does not take
	flagSyntax                            // a word that starts as a flag and is none (---x, -=x)
)

// flagError is a mistake in a command's flags, found before they are parsed.
type flagError struct {
	problem flagProblem
	command string // the flag set's name, "strom run"
	flag    string // the flag's name, without dashes
	value   string // the value given, or the word for flagSyntax
}

// Error says the mistake in English, for a developer.
func (e *flagError) Error() string {
	switch e.problem {
	case flagUnknown:
		return e.command + ": no flag -" + e.flag
	case flagNeedsValue:
		return e.command + ": flag -" + e.flag + " needs a value"
	case flagBadValue:
		return e.command + ": flag -" + e.flag + " does not take " + strconv.Quote(e.value)
	default:
		return e.command + ": bad flag syntax " + e.value
	}
}

// checkFlags reads args as fs.Parse will — flags up to the first word that is
// none, or "--" — without setting any, and returns the first mistake as a
// flagError, else the words after the flags. -h and -help, when the command has
// no such flag, end the check: fs.Parse answers them with the help.
func checkFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	for len(args) > 0 {
		a := args[0]
		if len(a) < 2 || a[0] != '-' {
			return args, nil
		}
		dashes := 1
		if a[1] == '-' {
			if dashes = 2; len(a) == 2 {
				return args[1:], nil
			}
		}
		name := a[dashes:]
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, &flagError{problem: flagSyntax, command: fs.Name(), value: a}
		}
		args = args[1:]
		name, value, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		switch {
		case f == nil && (name == "help" || name == "h"):
			return nil, nil
		case f == nil:
			return nil, &flagError{problem: flagUnknown, command: fs.Name(), flag: name}
		case isSwitch(f):
			if hasValue && !takes(f, value) {
				return nil, &flagError{problem: flagBadValue, command: fs.Name(), flag: name, value: value}
			}
			continue
		}
		if !hasValue && len(args) > 0 {
			value, hasValue, args = args[0], true, args[1:]
		}
		if !hasValue {
			return nil, &flagError{problem: flagNeedsValue, command: fs.Name(), flag: name}
		}
		if !takes(f, value) {
			return nil, &flagError{problem: flagBadValue, command: fs.Name(), flag: name, value: value}
		}
	}
	return nil, nil
}

// checkCommandLine checks the flags of the command args name and of each command
// above it, as ffcli parses them: the root's flags, then the words after them
// naming a subcommand, its flags, and so on.
func checkCommandLine(c *ffcli.Command, args []string) error {
	fs := c.FlagSet
	if fs == nil {
		fs = flag.NewFlagSet(c.Name, flag.ContinueOnError)
	}
	rest, err := checkFlags(fs, args)
	if err != nil || len(rest) == 0 {
		return err
	}
	for _, sub := range c.Subcommands {
		if strings.EqualFold(rest[0], sub.Name) {
			return checkCommandLine(sub, rest[1:])
		}
	}
	return nil
}

// takes reports whether the flag's type takes value, as the flag package's Set
// of that type reads it. A value of strom's own type (a list of words) takes any.
func takes(f *flag.Flag, value string) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return true
	}
	var err error
	switch g.Get().(type) {
	case bool:
		_, err = strconv.ParseBool(value)
	case int:
		_, err = strconv.ParseInt(value, 0, strconv.IntSize)
	case int64:
		_, err = strconv.ParseInt(value, 0, 64)
	case uint:
		_, err = strconv.ParseUint(value, 0, strconv.IntSize)
	case uint64:
		_, err = strconv.ParseUint(value, 0, 64)
	case float64:
		_, err = strconv.ParseFloat(value, 64)
	case time.Duration:
		_, err = time.ParseDuration(value)
	}
	return err == nil
}

// flagSentence says in words what is wrong with a flag.
func (s *sys) flagSentence(c *ffcli.Command, e *flagError) string {
	p := s.msg()
	flagName := "-" + termsafe.Excerpt(e.flag)
	if len(e.flag) > 1 {
		flagName = "-" + flagName
	}
	switch e.problem {
	case flagUnknown:
		return p.Say("usage.flag.unknown", messages.Args{"Command": e.command, "Flag": flagName})
	case flagNeedsValue:
		return p.Say("usage.flag.needs_value", messages.Args{"Flag": flagName})
	case flagBadValue:
		kind := "usage.kind.some"
		if c != nil {
			if f := c.FlagSet.Lookup(e.flag); f != nil {
				kind = valueKind(f.Value)
			}
		}
		return p.Say("usage.flag.takes", messages.Args{"Flag": flagName, "Kind": p.Say(kind), "Value": termsafe.Excerpt(e.value)})
	default:
		return p.Say("usage.flag.syntax", messages.Args{"Word": termsafe.Excerpt(e.value)})
	}
}

// valueKind is the message id naming what a flag's value must be.
func valueKind(v flag.Value) string {
	if g, ok := v.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			return "usage.kind.whole"
		case bool:
			return "usage.kind.bool"
		case float64:
			return "usage.kind.number"
		case time.Duration:
			return "usage.kind.duration"
		}
	}
	return "usage.kind.some"
}

// positionals parses flags that follow positional arguments too (ffcli stops at the
// first positional), so `strom task add "x" --body y` works like
// `strom task add --body y "x"`. Everything after "--" stays positional.
func positionals(fs *flag.FlagSet, args []string) ([]string, error) {
	var out []string
	for {
		if _, err := checkFlags(fs, args); err != nil {
			return nil, err
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err: err}
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(out, rest...), emptyFlag(fs)
		}
		if len(rest) == 0 {
			return out, emptyFlag(fs)
		}
		out = append(out, rest[0])
		args = rest[1:]
	}
}

// emptyMeans are the flags whose empty value says something: --body "" is a
// task without a text.
var emptyMeans = map[string]bool{"strom task add --body": true, "strom task edit --body": true}

// emptyFlag refuses a text flag given an empty value (or only white space), which
// would otherwise be taken for the flag not given at all: --agent "" is no agent,
// not the default one. It says so as the flag package says a missing value.
func emptyFlag(fs *flag.FlagSet) error {
	var empty string
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || empty != "" || emptyMeans[fs.Name()+" --"+f.Name] {
			return
		}
		if v, ok := g.Get().(string); ok && strings.TrimSpace(v) == "" {
			empty = f.Name
		}
	})
	if empty == "" {
		return nil
	}
	return &flagError{problem: flagNeedsValue, command: fs.Name(), flag: empty}
}

// agentWords splits the words a command got into its own (flags parsed, as
// positionals does) and those after "--", which belong to the agent. ffcli drops a
// "--" that comes before the first word, so the raw arguments tell where it stood.
func (s *sys) agentWords(fs *flag.FlagSet, args []string) (own, agent []string, err error) {
	if i := slices.Index(s.args, "--"); i >= 0 {
		if tail := s.args[i+1:]; len(tail) <= len(args) {
			agent = tail
			args = args[:len(args)-len(tail)]
			if n := len(args); n > 0 && args[n-1] == "--" {
				args = args[:n-1]
			}
		}
	}
	own, err = positionals(fs, args)
	return own, agent, err
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

// given reports whether the flag called name was on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
