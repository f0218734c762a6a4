package harness

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// appAsk is the run's side of the app's "Finish and stop" (R7.3): the request is
// confirmed in the research's terminal before it becomes a finish request. While
// the question is open, the person's next keys answer it and do not reach the agent.
type appAsk struct {
	pending atomic.Bool
	keys    chan byte
}

func newAppAsk() *appAsk { return &appAsk{keys: make(chan byte, 8)} }

// onKeys is the session's key hook: while a question is open it takes the keys.
func (a *appAsk) onKeys(p []byte) bool {
	if !a.pending.Load() {
		return false
	}
	for _, k := range p {
		select {
		case a.keys <- k:
		default: // enough keys queued to answer
		}
	}
	return true
}

// AppFinishQuestion is what the run's terminal asks when the app asks to finish.
const AppFinishQuestion = "The app asks this session to finish — finish it? [Y/n] "

// appFinishSeen looks for the app's request. Without a terminal to ask, the request
// is a finish request at once; with one, the question is put.
func (r *Research) appFinishSeen(a *appAsk, id string, onTerminal bool, out io.Writer) {
	if a.pending.Load() {
		return
	}
	if _, ok := r.Requested(appFinishRequest, id); !ok {
		return
	}
	if !onTerminal {
		r.appFinishAnswered(a, id, true, out)
		return
	}
	fmt.Fprint(out, "\r\n"+AppFinishQuestion)
	a.pending.Store(true)
}

// appFinishKey takes one key of the answer: Enter or y is yes, n or Esc is no;
// other keys are ignored and the question stays open.
func (r *Research) appFinishKey(a *appAsk, id string, k byte, out io.Writer) {
	if !a.pending.Load() {
		return
	}
	switch k {
	case 'y', 'Y', '\r', '\n':
		fmt.Fprint(out, "yes\r\n")
		r.appFinishAnswered(a, id, true, out)
	case 'n', 'N', 0x1b:
		fmt.Fprint(out, "no\r\n")
		r.appFinishAnswered(a, id, false, out)
	}
}

// appFinishDropped closes an open question without an answer: the session is being
// asked to finish (or stopped) another way.
func (r *Research) appFinishDropped(a *appAsk, id string) {
	a.pending.Store(false)
	os.Remove(r.requestFile(appFinishRequest, id))
}

func (r *Research) appFinishAnswered(a *appAsk, id string, yes bool, out io.Writer) {
	r.appFinishDropped(a, id)
	if !yes {
		fmt.Fprint(out, "The session works on; the app's request is dropped.\r\n")
		return
	}
	if err := r.RequestFinish(id, "the app"); err != nil {
		fmt.Fprintf(out, "The app's request could not be passed on: %v\r\n", err)
		return
	}
	fmt.Fprint(out, r.Messages().Say("watch.asked_finish")+"\r\n")
}
