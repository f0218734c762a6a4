package session

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
)

// AppAsk is the run's side of the app's "Finish and stop" (R7.3): the request is
// confirmed in the research's terminal before it becomes a finish request. While
// the question is open, the person's next keys answer it and do not reach the agent.
type AppAsk struct {
	pending atomic.Bool
	// Keys are the keys a person typed while the question was asked.
	Keys chan byte
}

// NewAppAsk is the question of the app's request to finish, not asked yet.
func NewAppAsk() *AppAsk { return &AppAsk{Keys: make(chan byte, 8)} }

// OnKeys is the session's key hook: while a question is open it takes the keys.
func (a *AppAsk) OnKeys(p []byte) bool {
	if !a.pending.Load() {
		return false
	}
	for _, k := range p {
		select {
		case a.Keys <- k:
		default: // enough keys queued to answer
		}
	}
	return true
}

// AppFinishQuestion is what the run's terminal asks when the app asks to finish.
const AppFinishQuestion = "The app asks this session to finish — finish it? [Y/n] "

// AppFinishSeen looks for the app's request. Without a terminal to ask, the request
// is a finish request at once; with one, the question is put.
func AppFinishSeen(r *research.Research, a *AppAsk, id string, onTerminal bool, out io.Writer) {
	if a.pending.Load() {
		return
	}
	if _, ok := runfiles.Requested(r, runfiles.AppFinishRequest, id); !ok {
		return
	}
	if !onTerminal {
		appFinishAnswered(r, a, id, true, out)
		return
	}
	fmt.Fprint(out, "\r\n"+AppFinishQuestion)
	a.pending.Store(true)
}

// AppFinishKey takes one key of the answer: Enter or y is yes, n or Esc is no;
// other keys are ignored and the question stays open.
func AppFinishKey(r *research.Research, a *AppAsk, id string, k byte, out io.Writer) {
	if !a.pending.Load() {
		return
	}
	switch k {
	case 'y', 'Y', '\r', '\n':
		fmt.Fprint(out, "yes\r\n")
		appFinishAnswered(r, a, id, true, out)
	case 'n', 'N', 0x1b:
		fmt.Fprint(out, "no\r\n")
		appFinishAnswered(r, a, id, false, out)
	}
}

// AppFinishDropped closes an open question without an answer: the session is being
// asked to finish (or stopped) another way.
func AppFinishDropped(r *research.Research, a *AppAsk, id string) {
	a.pending.Store(false)
	os.Remove(runfiles.RequestFile(r, runfiles.AppFinishRequest, id))
}

func appFinishAnswered(r *research.Research, a *AppAsk, id string, yes bool, out io.Writer) {
	AppFinishDropped(r, a, id)
	if !yes {
		fmt.Fprint(out, "The session works on; the app's request is dropped.\r\n")
		return
	}
	if err := runfiles.RequestFinish(r, id, "the app"); err != nil {
		fmt.Fprintf(out, "The app's request could not be passed on: %v\r\n", err)
		return
	}
	fmt.Fprint(out, r.Messages().Say("watch.asked_finish")+"\r\n")
}
