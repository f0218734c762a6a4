package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/strom-research/strom/harness/gates"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/desktop"
	"github.com/strom-research/strom/messages"
)

// awayPoll is how often, in real time, a question asked away from the terminal
// looks for the app's answer.
const awayPoll = 250 * time.Millisecond

// startAnyway is how a run asks "Start anyway?" (R7.4.1): on its terminal, where
// Enter means no; a run with no terminal — an agent started it, or a program — asks
// in a window on the person's desktop and in strom app's overview while a page of
// it is open, until the condition's time (gates.ProgramTimeout) has passed. No
// one to ask, or no answer in time: the run keeps to its condition.
func (s *sys) startAnyway(r *research.Research, out io.Writer) func(question string) (yes, asked bool) {
	return func(question string) (bool, bool) {
		if tty := s.terminal(); tty != nil {
			return s.yes(tty, question), true
		}
		return s.askAway(r, out, question)
	}
}

// askAway asks question in a window on the desktop and in the app, whichever
// answers first.
func (s *sys) askAway(r *research.Research, out io.Writer, question string) (yes, asked bool) {
	p := s.msg()
	window := desktop.Dialog(s.getenv, runtime.GOOS) != ""
	app := runfiles.Watched(r)
	if !window && !app {
		return false, false
	}
	until := r.Now().Add(gates.ProgramTimeout)
	if app && runfiles.AskStart(r, question, until) != nil {
		app = false
	}
	defer runfiles.EndQuestion(r)
	say := func(id string, args messages.Args) { fmt.Fprintln(out, p.Say(id, args)) }
	where := map[[2]bool]string{{true, false}: "gate.asked_window", {false, true}: "gate.asked_app", {true, true}: "gate.asked_both"}
	say(where[[2]bool{window, app}], messages.Args{"Until": runfiles.ClockAt(until.Local())})
	said := func(yes bool) string {
		if yes {
			return p.Say("gate.said_yes")
		}
		return p.Say("gate.said_no")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type reply struct {
		yes bool
		err error
	}
	replies := make(chan reply, 1)
	if window {
		go func() {
			yes, err := desktop.Ask(ctx, s.getenv, desktop.Question{
				Title: p.Say("gate.window_title", messages.Args{"Research": filepath.Base(r.Tree.Root)}),
				Text:  question, Yes: p.Say("gate.window_yes"), No: p.Say("gate.window_no"),
			})
			replies <- reply{yes, err}
		}()
	}
	poll := time.NewTicker(awayPoll)
	defer poll.Stop()
	timeout := r.Clock.After(gates.ProgramTimeout)
	stop := make(chan struct{})
	defer close(stop)
	interrupted := s.interrupted(stop)
	for {
		select {
		case rep := <-replies:
			if rep.err == nil {
				say("gate.answered_window", messages.Args{"Answer": said(rep.yes)})
				return rep.yes, true
			}
			if !errors.Is(rep.err, desktop.ErrNoAnswer) || !app {
				// The window could not be shown, and no page asks: no one is asked.
				say("gate.unanswered", messages.Args{"Until": runfiles.ClockAt(r.Now().Local())})
				return false, false
			}
		case <-poll.C:
			if yes, ok := runfiles.StartAnswer(r); ok {
				say("gate.answered_app", messages.Args{"Answer": said(yes)})
				return yes, true
			}
		case <-timeout:
			say("gate.unanswered", messages.Args{"Until": runfiles.ClockAt(until.Local())})
			return false, false
		case <-interrupted:
			// Ctrl-C or a signal while it asks answers no, as on the terminal.
			return false, true
		}
	}
}
