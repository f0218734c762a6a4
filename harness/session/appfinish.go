package session

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/messages"
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

// appFinishQuestion is what the run's terminal asks when the app asks to finish,
// in the person's language with the yes that Enter gives ("[Y/n]", "[J/n]", "[A/n]").
func appFinishQuestion(p *messages.Printer) string {
	return p.Say("watch.app_asks") + " " + p.Say("confirm.suffix_yes") + " "
}

// answerKey reads one key as an answer in p's language: a key is yes when a word
// of confirm.yes starts with it (y, j, a), no when a word of confirm.no does (n);
// Enter is yes and Esc no. Other keys answer nothing.
func answerKey(p *messages.Printer, k byte) (yes, answered bool) {
	switch k {
	case '\r', '\n':
		return true, true
	case 0x1b:
		return false, true
	}
	key := strings.ToLower(string(rune(k)))
	starts := func(id string) bool {
		for _, w := range strings.Fields(p.Say(id)) {
			if strings.HasPrefix(strings.ToLower(w), key) {
				return true
			}
		}
		return false
	}
	if starts("confirm.yes") {
		return true, true
	}
	if starts("confirm.no") {
		return false, true
	}
	return false, false
}

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
	fmt.Fprint(out, "\r\n"+appFinishQuestion(r.Messages()))
	a.pending.Store(true)
}

// AppFinishKey takes one key of the answer (see answerKey); other keys are ignored
// and the question stays open.
func AppFinishKey(r *research.Research, a *AppAsk, id string, k byte, out io.Writer) {
	if !a.pending.Load() {
		return
	}
	p := r.Messages()
	yes, answered := answerKey(p, k)
	if !answered {
		return
	}
	said := p.Say("confirm.said_no")
	if yes {
		said = p.Say("confirm.said_yes")
	}
	fmt.Fprint(out, said+"\r\n")
	appFinishAnswered(r, a, id, yes, out)
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
		fmt.Fprint(out, r.Messages().Say("watch.app_declined")+"\r\n")
		return
	}
	if err := runfiles.RequestFinish(r, id, "the app"); err != nil {
		fmt.Fprint(out, r.Messages().Say("watch.app_not_passed", messages.Args{"Error": err})+"\r\n")
		return
	}
	fmt.Fprint(out, r.Messages().Say("watch.asked_finish")+"\r\n")
}
