package archives

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/procgroup"

	"github.com/strom-research/strom/messages"
)

// Timings of the probes (R7.1.1).
const (
	// ProbeTimeout is the longest a probe may take; one that takes longer does not
	// answer.
	ProbeTimeout = 30 * time.Second
	// ProbeEvery is how often at most a run asks one archive.
	ProbeEvery = time.Minute
	// WaitEvery is how long a run that waits for an archive waits between probes.
	WaitEvery = 5 * time.Minute
)

// Result is what one probe found.
type Result struct {
	Name    string
	Answers bool
	// Why says in a few words why the archive does not answer: "exit 7: Could not
	// resolve host", "no answer within 30s", "no probe is set".
	Why string
	// Said is Why as a sentence said in the person's language, when strom's words
	// make it (no probe, no answer in time, the probe could not run); nil when Why
	// is the probe's own exit and last line.
	Said *messages.Error
	At   time.Time
}

// saying sets Why and Said from one sentence.
func (r *Result) saying(said *messages.Error) {
	r.Why, r.Said = said.Error(), said
}

// Probe runs an archive's probe line with sh -c in dir and says whether the archive
// answers: exit 0 within ProbeTimeout on clock c. The probe sees STROM_ARCHIVE,
// the archive's name. It is the one place strom starts a probe.
func Probe(ctx context.Context, c clock.Clock, dir, name, line string) Result {
	res := Result{Name: name, At: c.Now()}
	if strings.TrimSpace(line) == "" {
		res.saying(messages.New("archives.no_probe", nil))
		return res
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timedOut := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-c.After(ProbeTimeout):
			close(timedOut)
			cancel()
		case <-done:
		}
	}()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STROM_ARCHIVE="+name)
	var stderr bytes.Buffer
	cmd.Stderr = &capped.Writer{B: &stderr, N: 1 << 12}
	// The probe and whatever it started end with its answer: the answer is its
	// exit, whatever a child it left behind still holds open.
	err := procgroup.Run(cmd)
	select {
	case <-timedOut:
		res.saying(messages.New("archives.timeout", messages.Args{"Timeout": ProbeTimeout}))
		return res
	default:
	}
	if err == nil {
		res.Answers = true
		return res
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		res.saying(messages.New("archives.not_run", messages.Args{"Error": err.Error()}))
		return res
	}
	res.Why = agentpty.StatusOf(cmd.ProcessState).String()
	if last := lastLine(stderr.String()); last != "" {
		res.Why += ": " + last
	}
	return res
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if r := []rune(last); len(r) > 100 {
		last = string(r[:99]) + "…"
	}
	return strings.ToValidUTF8(last, "?")
}

// Prober asks archives on behalf of one run and remembers each answer for
// ProbeEvery.
type Prober struct {
	Clock clock.Clock
	Dir   string // where probes run: the research's work tree
	// Line gives an archive's probe. It is asked before every probe, so a probe a
	// person sets or mends during a run counts at once. An empty line with a why
	// (no probe is set, it is not allowed) is an archive that does not answer.
	Line func(ctx context.Context, name string) (line, why string, err error)

	last map[string]Result
}

// Check says whether an archive answers, probing it unless it was probed less
// than ProbeEvery ago.
func (p *Prober) Check(ctx context.Context, name string) (Result, error) {
	now := p.Clock.Now()
	if r, ok := p.last[name]; ok && now.Sub(r.At) < ProbeEvery {
		return r, nil
	}
	line, why, err := p.Line(ctx, name)
	if err != nil {
		return Result{}, err
	}
	r := Result{Name: name, Why: why, At: now}
	if line != "" {
		r = Probe(ctx, p.Clock, p.Dir, name, line)
	}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	if p.last == nil {
		p.last = map[string]Result{}
	}
	p.last[name] = r
	return r, nil
}
