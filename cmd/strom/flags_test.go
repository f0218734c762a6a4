package main

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

// TestCheckFlags: a mistake in a command's flags is a flagError that says what and
// where, found as the flag package would find it and before any flag is set; the
// words after the flags are returned.
func TestCheckFlags(t *testing.T) {
	t.Parallel()
	newSet := func() (*flag.FlagSet, *int, *stringList) {
		fs := flag.NewFlagSet("strom run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		max := fs.Int("max", 0, "")
		fs.Bool("loop", false, "")
		fs.String("agent", "", "")
		fs.Duration("wait", 0, "")
		var tasks stringList
		fs.Var(&tasks, "task", "")
		return fs, max, &tasks
	}
	for _, tc := range []struct {
		args    []string
		problem flagProblem
		flag    string
		value   string
		rest    []string
	}{
		{args: []string{"--max", "3", "--loop", "T-1"}, rest: []string{"T-1"}},
		{args: []string{"--max=0x10", "--loop=false", "--", "--max"}, rest: []string{"--max"}},
		{args: []string{"-task", "T-1,T-2", "--wait", "5m"}},
		{args: []string{"-h", "--nope"}},
		{args: []string{"--nope"}, problem: flagUnknown, flag: "nope"},
		{args: []string{"--max"}, problem: flagNeedsValue, flag: "max"},
		{args: []string{"--max", "x"}, problem: flagBadValue, flag: "max", value: "x"},
		{args: []string{"--max=1.5"}, problem: flagBadValue, flag: "max", value: "1.5"},
		{args: []string{"--loop=maybe"}, problem: flagBadValue, flag: "loop", value: "maybe"},
		{args: []string{"--wait", "5"}, problem: flagBadValue, flag: "wait", value: "5"},
		{args: []string{"---max", "3"}, problem: flagSyntax, value: "---max"},
		{args: []string{"-=3"}, problem: flagSyntax, value: "-=3"},
	} {
		fs, max, tasks := newSet()
		rest, err := checkFlags(fs, tc.args)
		if *max != 0 || len(*tasks) != 0 {
			t.Errorf("%q: the check set a flag (--max %d, --task %v)", tc.args, *max, *tasks)
		}
		var fe *flagError
		switch {
		case tc.problem == 0 && err != nil:
			t.Errorf("%q: %v, want no mistake", tc.args, err)
		case tc.problem == 0 && !slices.Equal(rest, tc.rest):
			t.Errorf("%q: the words after the flags %q, want %q", tc.args, rest, tc.rest)
		case tc.problem == 0:
			// What the check passes, the flag package parses.
			if err := fs.Parse(tc.args); err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%q: passed the check, the flag package refuses it: %v", tc.args, err)
			}
		case !errors.As(err, &fe):
			t.Errorf("%q: %v, want a flagError", tc.args, err)
		case *fe != (flagError{problem: tc.problem, command: "strom run", flag: tc.flag, value: tc.value}):
			t.Errorf("%q: %+v, want problem %d, flag %q, value %q", tc.args, *fe, tc.problem, tc.flag, tc.value)
		default:
			// What the check refuses, the flag package refuses too.
			if err := fs.Parse(tc.args); err == nil {
				t.Errorf("%q: refused by the check, parsed by the flag package", tc.args)
			}
		}
	}
}
