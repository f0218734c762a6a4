package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/buildinfo"
	"github.com/strom-research/strom/internal/notify"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Notifier calls the person who is not at the terminal: when a run ends, and when
// a session leaves its task waiting for an answer or parks it. It shows a desktop
// notification (notify.desktop) and POSTs to notify.url, both settings of the
// person's own (a research's tree cannot set them). Neither ever fails the run:
// a POST that fails is one line in the run's output, and a desktop with no
// notification service is one line, said once. Without notify.details a
// notification names the research, task ids and counts, never a task's title,
// question, park reason or records.
type Notifier struct {
	r       *research.Research
	out     io.Writer
	desktop bool
	url     string
	details bool
	// saidNoServer: the desktop with no notification service was said.
	saidNoServer bool
}

// NewNotifier reads the notify settings; the lines it says go to out.
func NewNotifier(r *research.Research, out io.Writer) (*Notifier, error) {
	s, err := r.Settings()
	if err != nil {
		return nil, err
	}
	n := &Notifier{r: r, out: out}
	for name, into := range map[string]*bool{"notify.desktop": &n.desktop, "notify.details": &n.details} {
		v, err := s.Resolve(name, "")
		if err != nil {
			return nil, err
		}
		*into = v.Value == "on"
	}
	u, err := s.Resolve("notify.url", "")
	if err != nil {
		return nil, err
	}
	n.url = u.Value
	return n, nil
}

// folder is the research's folder name, as a notification names it.
func (n *Notifier) folder() string { return termsafe.Line(filepath.Base(n.r.Tree.Root)) }

// RunEnded tells the person how the run ended: its reason, how many tasks need
// them, and the command to run next. With notify.details the whole end line.
func (n *Notifier) RunEnded(ctx context.Context, rr RunResult) {
	if n == nil {
		return
	}
	p := n.r.Messages()
	var end string
	if n.details {
		end = rr.Say(p)
	} else {
		// An error's or a screen's own words may quote anything; the reason alone.
		if rr.Stop == ends.StopError || rr.Stop == ends.StopNeedsPerson {
			rr.Detail = ""
		}
		end = p.Say("notify.stopped", messages.Args{"Reason": rr.Reason(p)})
		if need := rr.Parked + rr.Waiting; need > 0 {
			end += " · " + p.Say("notify.need_you", messages.Args{"Count": need})
		}
	}
	cmd := "strom status"
	switch {
	case rr.Waiting > 0:
		cmd = "strom task list --state waiting"
	case rr.Parked > 0:
		cmd = "strom task list --state parked"
	}
	n.send(ctx, notify.Note{
		Title:   p.Say("notify.title", messages.Args{"Research": n.folder()}),
		Body:    p.Say("notify.run_ended", messages.Args{"Research": n.folder(), "End": end}),
		Command: cmd,
	})
}

// sessionEnded tells the person that a session left its task waiting for an
// answer or parked it; other ends wait for the run's end.
func (n *Notifier) sessionEnded(ctx context.Context, res session.SessionResult) {
	if n == nil {
		return
	}
	p := n.r.Messages()
	args := messages.Args{"Research": n.folder(), "Task": res.Task}
	var body, cmd string
	switch {
	case res.End == ends.EndWaiting:
		body, cmd = p.Say("notify.waiting", args), "strom task answer "+res.Task+" \""+p.Say("notify.answer_word")+"\""
	case res.ParkReason != "":
		body, cmd = p.Say("notify.parked", args), "strom task unpark "+res.Task
	default:
		return
	}
	if n.details {
		if t, err := n.r.Tree.FindTask(ctx, res.Task); err == nil {
			body += "\n" + taskDetail(p, t)
		}
	}
	n.send(ctx, notify.Note{Title: p.Say("notify.title", messages.Args{"Research": n.folder()}), Body: body, Command: cmd})
}

// taskDetail is a task's title with its open question or its park reason, for
// notify.details.
func taskDetail(p *messages.Printer, t statefiles.Task) string {
	line := termsafe.Line(t.Title)
	switch {
	case t.State == statefiles.Waiting && len(t.Questions) > 0:
		line += " — " + p.Say("notify.asks", messages.Args{"Question": termsafe.Line(t.Questions[len(t.Questions)-1].Question)})
	case t.State == statefiles.Parked && t.Reason != "":
		line += " — " + termsafe.Line(t.Reason)
	}
	return line
}

// send shows the note on the desktop and POSTs it; what fails is a line in the
// run's output, never the run's error.
func (n *Notifier) send(ctx context.Context, note notify.Note) {
	// A run stopped by Ctrl-C still calls: each call is bounded by notify.Timeout.
	ctx = context.WithoutCancel(ctx)
	p := n.r.Messages()
	if n.desktop {
		err := notify.Desktop(ctx, note)
		switch {
		case err == nil, errors.Is(err, notify.ErrNoDesktop):
			// No desktop session (a server, ssh): nothing to say.
		case errors.Is(err, notify.ErrNoServer):
			if !n.saidNoServer {
				n.saidNoServer = true
				fmt.Fprintln(n.out, p.Say("notify.no_server"))
			}
		default:
			fmt.Fprintln(n.out, p.Say("notify.desktop_failed", messages.Args{"Error": termsafe.Line(err.Error())}))
		}
	}
	if n.url != "" {
		if err := pushNote(ctx, n.url, note); err != nil {
			fmt.Fprintln(n.out, p.Say("notify.push_failed", messages.Args{"Error": termsafe.Line(err.Error())}))
		}
	}
}

// pushNote POSTs the note to u through strom-app push, found beside strom (or on
// PATH): strom's own binary links no HTTP client. It takes at most notify.Timeout
// and a second.
func pushNote(ctx context.Context, u string, note notify.Note) error {
	program, dir := buildinfo.Sibling("strom-app")
	if program == "" {
		return fmt.Errorf("strom-app, which sends it, is neither beside strom (%s) nor on PATH", dir)
	}
	ctx, cancel := context.WithTimeout(ctx, notify.Timeout+time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, "push", "--title", note.Title, u)
	cmd.Stdin = strings.NewReader(note.Text())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if why := strings.TrimPrefix(strings.TrimSpace(stderr.String()), "strom: "); why != "" {
			return errors.New(why)
		}
		return fmt.Errorf("strom-app push: %w", err)
	}
	return nil
}
