package harness

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// ErrNoTerminal means a chat was started without a person at a terminal.
var ErrNoTerminal = errors.New("strom chat needs a person at a terminal")

// ChatOptions are the choices of strom chat.
type ChatOptions struct {
	Task      string   // the task to talk about; "" = the first open task
	Minutes   string   // --minutes; "" = the settings
	Agent     string   // --agent; "" = the settings
	AgentArgs []string // words after --

	Out        io.Writer
	Terminal   *os.File // the person's terminal; a chat needs one
	Interrupts <-chan struct{}
}

// Chat is a session a person attends: the agent works on one task under the same
// pty as a run, with the person's keys typed into it, and the session ends in the
// same one commit with Strom-End: closed-by-person. A chat never counts toward
// parking its task. It is agent work: refused in an archive and while the research
// waits for its agent.
func Chat(ctx context.Context, r *research.Research, o ChatOptions) (rr RunResult, err error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	ro := RunOptions{Agent: o.Agent, Minutes: o.Minutes, AgentArgs: o.AgentArgs, Interactive: true, Out: o.Out, Terminal: o.Terminal}
	plan, stopped, done, err := startAgentWork(ctx, r, ro, func() error {
		if o.Terminal == nil {
			return messages.Errorf(ErrNoTerminal, "chat.no_terminal", nil)
		}
		return nil
	})
	if err != nil {
		return rr, err
	}
	if stopped != nil {
		return *stopped, nil
	}
	defer func() { done(endOf(r, rr, err)) }()
	task, err := chatTask(r, o.Task)
	if err != nil {
		return rr, err
	}

	// The person is there: no nudges typed into their conversation.
	plan.Task, plan.Idle, plan.Chat = task, 0, true
	res, err := session.RunSession(ctx, r, plan, session.Events{Interrupts: o.Interrupts, Out: o.Out, Terminal: o.Terminal})
	if err != nil {
		return rr, err
	}
	rr.sessionEnded(res)
	printEnd(r, o.Out, res)
	rr.Stop = ends.StopByHand
	if s, detail, ok := stopForAgent(r, res, plan); ok {
		rr.Stop, rr.Detail = s, detail
	}
	return rr, nil
}

// chatTask is the open task a chat works on.
func chatTask(r *research.Research, id string) (statefiles.Task, error) {
	q, err := r.Tree.LoadQueue()
	if err != nil {
		return statefiles.Task{}, err
	}
	if id == "" {
		t := q.FirstOpen()
		if t == nil {
			return statefiles.Task{}, messages.New("chat.no_open_task", nil)
		}
		return *t, nil
	}
	t, err := q.Find(id)
	if err != nil {
		return statefiles.Task{}, err
	}
	if t.State != statefiles.Open {
		return statefiles.Task{}, messages.New("chat.not_open", messages.Args{"Task": t.ID, "State": messages.New("state."+string(t.State), nil)})
	}
	return *t, nil
}
