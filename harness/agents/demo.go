package agents

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/shellword"
)

// Environment of the demo agent. STROM_SESSION, STROM_TASK and STROM_DEADLINE
// come from the harness; the STROM_DEMO_ ones tune the demo.
const (
	EnvSession  = "STROM_SESSION"
	EnvTask     = "STROM_TASK"
	EnvDeadline = "STROM_DEADLINE"
	// EnvDemoSeed picks the demo's outcomes (default 1): the same seed, task
	// and day give the same session.
	EnvDemoSeed = "STROM_DEMO_SEED"
	// EnvDemoStep is the length of one work step, a Go duration (default 1.5s).
	EnvDemoStep = "STROM_DEMO_STEP"
)

// DefaultDemoStep is how long one work step of the demo agent takes.
const DefaultDemoStep = 1500 * time.Millisecond

// DemoOptions are the demo agent's process: its words after "demo-agent",
// its terminal, its environment and clock, the strom binary it calls and the
// folder it works in.
type DemoOptions struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string // os.Getenv when nil
	Clock  clock.Clock         // clock.FromEnv(Getenv) when nil
	Strom  string              // path of the strom binary to call; "strom" (on PATH) when empty
	Dir    string              // the research repo; the current folder when empty
}

// Outcome is how the demo agent ends a session.
type Outcome int

const (
	OutcomeDone     Outcome = iota + 1 // strom done
	OutcomeAsk                         // strom ask "…"
	OutcomeFollowUp                    // strom task add "Follow up: …", then strom session close
	OutcomeClose                       // strom session close, the task stays open
)

var outcomeWords = map[Outcome]string{
	OutcomeDone: "done", OutcomeAsk: "ask", OutcomeFollowUp: "follow-up", OutcomeClose: "close",
}

// String returns the outcome's word: done, ask, follow-up or close.
func (o Outcome) String() string {
	if w, ok := outcomeWords[o]; ok {
		return w
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// DemoOutcome is the outcome the demo agent picks for a task: about 60 % done,
// 10 % ask, 20 % a follow-up task then close, 10 % close. It depends only on
// the seed, the task, the session's day (the date part of its id) and how many
// records earlier sessions made on the task, so a rerun of the same research
// repeats itself while a task closed open gets a different turn next time.
// A task with 3 or more earlier records is always done, and a follow-up task
// does not get a follow-up of its own, so a looping run always ends.
func DemoOutcome(seed, task, session, title string, earlierRecords int) Outcome {
	if earlierRecords >= 3 {
		return OutcomeDone
	}
	day, _, _ := strings.Cut(session, "T")
	n := demoHash(seed, task, day, strconv.Itoa(earlierRecords)) % 100
	switch {
	case n < 60:
		return OutcomeDone
	case n < 70:
		return OutcomeAsk
	case n < 90:
		if strings.HasPrefix(title, followUpPrefix) {
			return OutcomeDone
		}
		return OutcomeFollowUp
	default:
		return OutcomeClose
	}
}

const followUpPrefix = "Follow up: "

func demoHash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// demo is one run of the demo agent.
type demo struct {
	o        DemoOptions
	clk      clock.Clock
	env      []string // the strom commands' environment
	session  string
	task     string
	deadline time.Time
	step     time.Duration
	seed     string
	title    string
	earlier  int         // records of earlier sessions, read from the prompt
	lines    chan string // lines typed into the demo's terminal
}

// RunDemo runs the built-in scripted agent that the demo and the tests use.
// It behaves like a small agent: it shows its task (strom task), works a few
// steps, appends a dated section to notes/<task>.md, records a one-line
// finding, and ends the session as DemoOutcome says. A line typed into its
// terminal that mentions "finish", "time is up" or "5 more minutes", or a
// strom command's note asking it to finish or close, makes it record and
// close at once. It returns the exit status: 0, 1 when the session could not
// be closed, 2 outside a session or on a bad setting.
func RunDemo(ctx context.Context, o DemoOptions) int {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	fs := flag.NewFlagSet("strom demo-agent", flag.ContinueOnError)
	fs.SetOutput(o.Stderr)
	promptFile := fs.String("prompt-file", "", "read the session prompt from this file")
	if err := fs.Parse(o.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	d := &demo{o: o, session: o.Getenv(EnvSession), task: o.Getenv(EnvTask), step: DefaultDemoStep}
	if d.session == "" || d.task == "" || o.Getenv(EnvDeadline) == "" {
		fmt.Fprintln(o.Stderr, "The demo agent runs only inside a strom session: try strom run --agent demo in a research repo.")
		return 2
	}
	var err error
	if d.deadline, err = time.Parse(time.RFC3339, o.Getenv(EnvDeadline)); err != nil {
		fmt.Fprintf(o.Stderr, "%s=%q is not an RFC 3339 time: the demo agent runs only inside a strom session, which sets it.\n", EnvDeadline, o.Getenv(EnvDeadline))
		return 2
	}
	if s := o.Getenv(EnvDemoStep); s != "" {
		if d.step, err = time.ParseDuration(s); err != nil || d.step < 0 {
			fmt.Fprintf(o.Stderr, "%s=%q is not a duration: set it like %s=2s, or unset it for %s.\n", EnvDemoStep, s, EnvDemoStep, DefaultDemoStep)
			return 2
		}
	}
	if d.seed = o.Getenv(EnvDemoSeed); d.seed == "" {
		d.seed = "1"
	}
	d.clk = o.Clock
	if d.clk == nil {
		d.clk = clock.FromEnv(o.Getenv)
	}
	if d.o.Strom == "" {
		d.o.Strom = "strom"
	}
	d.env = append(os.Environ(), EnvSession+"="+d.session, EnvTask+"="+d.task, EnvDeadline+"="+o.Getenv(EnvDeadline))
	d.title = d.task
	if *promptFile != "" {
		b, err := os.ReadFile(*promptFile)
		if err != nil {
			fmt.Fprintf(o.Stderr, "Cannot read the prompt file: %v; check the path given to --prompt-file.\n", err)
			return 2
		}
		if t := promptTitle(string(b)); t != "" {
			d.title = t
		}
		d.earlier = promptRecords(string(b))
	}
	done := make(chan struct{})
	defer close(done)
	if o.Stdin != nil {
		d.lines = make(chan string, 16)
		go readLines(o.Stdin, d.lines, done)
	}
	return d.run(ctx)
}

// readLines passes the lines typed into the terminal on, until EOF or until
// the demo is over.
func readLines(r io.Reader, lines chan<- string, done <-chan struct{}) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		select {
		case lines <- sc.Text():
		case <-done:
			return
		}
	}
}

func (d *demo) printf(format string, a ...any) { fmt.Fprintf(d.o.Stdout, format, a...) }

func (d *demo) run(ctx context.Context) int {
	d.printf("strom demo agent: a scripted stand-in for an AI agent (seed %s).\n", d.seed)
	now := d.clk.Now()
	d.printf("Session %s, task %s: %s. It ends at %s (%s left).\n",
		d.session, d.task, d.title, d.deadline.UTC().Format(time.RFC3339), timeLeft(d.deadline.Sub(now)))

	finding := demoFinding(d.title)
	out, _ := d.strom(ctx, "task")
	if why := wrapRequest(out); why != "" {
		return d.wrapUp(ctx, why, finding, 0)
	}
	if !d.deadline.After(now) {
		return d.wrapUp(ctx, "the session's time is up", finding, 0)
	}

	steps := demoSteps(d.title, d.seed)
	step := d.step
	if left := d.deadline.Sub(now); step*time.Duration(len(steps)+1) > left {
		step = left / time.Duration(len(steps)+1)
	}
	for i, s := range steps {
		d.printf("· %s\n", s)
		why, err := d.wait(ctx, step)
		if err != nil {
			d.printf("Stopped: %v.\n", err)
			return 1
		}
		if why != "" {
			return d.wrapUp(ctx, why, finding, i)
		}
	}

	d.notes(fmt.Sprintf("the task text, the notes/ folder and %d sources", len(steps)), finding)
	if out, err := d.strom(ctx, "record", finding); err == nil {
		if why := wrapRequest(out); why != "" {
			return d.close(ctx)
		}
	}

	switch DemoOutcome(d.seed, d.task, d.session, d.title, d.earlier) {
	case OutcomeDone:
		if _, err := d.strom(ctx, "done"); err == nil {
			return 0
		}
		d.printf("strom done did not close the session; closing it without finishing the task.\n")
	case OutcomeAsk:
		q := fmt.Sprintf("Which archive should the next session search for “%s”: the parish registers or the civil records?", d.title)
		if _, err := d.strom(ctx, "ask", q); err == nil {
			return 0
		}
		d.printf("strom ask did not close the session; closing it instead.\n")
	case OutcomeFollowUp:
		title := followUpPrefix + shorten(d.title, 80)
		body := fmt.Sprintf("Found while working on %s: %s", d.task, finding)
		d.strom(ctx, "task", "add", title, "--body", body)
	}
	return d.close(ctx)
}

// wait lets one work step pass on the demo's clock. It returns why the demo
// must wrap up now when a typed line asks it to, and an error when ctx ends.
func (d *demo) wait(ctx context.Context, step time.Duration) (string, error) {
	timer := d.clk.After(step)
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-timer:
			return "", nil
		case line, ok := <-d.lines:
			if !ok {
				d.lines = nil // EOF: nothing more will be typed
				continue
			}
			line = strings.TrimSpace(clean(pasteMarks().ReplaceAllString(line, "")))
			if line == "" {
				continue
			}
			d.printf("(read: %s)\n", line)
			if typedWrapUp(line) {
				return "asked to wrap up: " + shorten(line, 60), nil
			}
		}
	}
}

// pasteMarks are the bracketed-paste markers a harness types around text.
var pasteMarks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[20[01]~`) })

// typedWrapUp reports whether a typed line asks the agent to finish now.
func typedWrapUp(line string) bool {
	l := strings.ToLower(line)
	for _, w := range []string{"finish", "time is up", "5 more minutes"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// wrapRequest reports a strom command's note asking the session to finish
// (⏹) or to record and close (⏱ … close …), or "" when there is none.
func wrapRequest(out string) string {
	for l := range strings.SplitSeq(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "⏹") || (strings.HasPrefix(l, "⏱") && strings.Contains(l, "close")) {
			return "strom says: " + shorten(l, 60)
		}
	}
	return ""
}

// wrapUp records what the demo has so far and closes the session.
func (d *demo) wrapUp(ctx context.Context, why, finding string, stepsDone int) int {
	d.printf("Wrapping up (%s).\n", why)
	partial := "Partial, stopped early: " + finding
	d.notes(fmt.Sprintf("the task text and %d sources before stopping early", stepsDone), partial)
	d.strom(ctx, "record", partial)
	return d.close(ctx)
}

func (d *demo) close(ctx context.Context) int {
	if _, err := d.strom(ctx, "session", "close"); err != nil {
		d.printf("strom session close failed; the harness ends the session.\n")
		return 1
	}
	return 0
}

// strom runs one strom command in the research repo and shows it and its
// output, as an agent's terminal would.
func (d *demo) strom(ctx context.Context, args ...string) (string, error) {
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = shellword.Quote(a)
	}
	d.printf("$ strom %s\n", strings.Join(shown, " "))
	cmd := exec.CommandContext(ctx, d.o.Strom, args...)
	cmd.Dir = d.o.Dir
	cmd.Env = d.env
	out, err := cmd.CombinedOutput()
	d.o.Stdout.Write(out)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		d.printf("\n")
	}
	if err != nil {
		d.printf("(strom %s: %v)\n", args[0], err)
	}
	return string(out), err
}

// notes appends a dated section to notes/<task>.md. A failure is shown and
// otherwise ignored: the record still says what was found.
func (d *demo) notes(lookedAt, finding string) {
	dir := filepath.Join(d.o.Dir, "notes")
	path := filepath.Join(dir, safeName(d.task)+".md")
	var b strings.Builder
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(&b, "# %s: %s\n\nNotes the strom demo agent wrote, one section a session.\n", d.task, d.title)
	}
	fmt.Fprintf(&b, "\n## %s, session %s\n\n- Looked at: %s.\n- Finding: %s\n",
		d.clk.Now().UTC().Format("2006-01-02 15:04 UTC"), d.session, lookedAt, finding)
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, err = f.WriteString(b.String())
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		d.printf("(could not write notes: %v)\n", err)
		return
	}
	rel, _ := filepath.Rel(d.o.Dir, path)
	if d.o.Dir == "" {
		rel = path
	}
	d.printf("Wrote %s.\n", filepath.ToSlash(rel))
}

// safeName keeps a task id usable as a file name.
func safeName(id string) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, id)
	if s == "" {
		return "task"
	}
	return s
}

// demoSteps are the 2 to 4 steps the demo "works", chosen from the title and
// the seed.
func demoSteps(title, seed string) []string {
	subject := "“" + shorten(title, 60) + "”"
	steps := []string{"Reading the task and what earlier sessions recorded"}
	n := 2 + int(demoHash("steps", seed, title)%3)
	if n >= 3 {
		steps = append(steps, "Searching the repository's notes for "+subject)
	}
	if n >= 4 {
		steps = append(steps, "Comparing names and dates across the sources")
	}
	return append(steps, "Drafting the notes for "+subject)
}

var findingTemplates = []string{
	"Two candidate entries fit “%s”; the older register is the likelier one and should be read next.",
	"The sources on “%s” agree on the main date; one register spells the name differently.",
	"Nothing on “%s” in the indexes checked so far; the neighbouring parish is the next place to look.",
	"A direct mention of “%s” turned up in the second source; its date fits the task's timeline.",
}

// demoFinding is a made-up but plausible one-line finding, the same for the
// same title.
func demoFinding(title string) string {
	t := findingTemplates[demoHash("finding", title)%uint64(len(findingTemplates))]
	return fmt.Sprintf(t, shorten(title, 80))
}

// timeLeft writes a duration the way a person says it, rounded down as strom's
// own notes say it: "59 minutes", "45 seconds", "no time".
func timeLeft(d time.Duration) string {
	switch {
	case d < time.Second:
		return "no time"
	case d < 2*time.Second:
		return "1 second"
	case d < time.Minute:
		return fmt.Sprintf("%d seconds", int(d/time.Second))
	case d < 2*time.Minute:
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", int(d/time.Minute))
}

func shorten(s string, n int) string {
	s = oneLineText(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// promptTitle reads the task title back from a prompt Prompt wrote: the
// "Title: " line that opens the data block.
func promptTitle(prompt string) string {
	inData := false
	for l := range strings.SplitSeq(prompt, "\n") {
		if strings.HasPrefix(l, "`````") && strings.HasSuffix(l, "task-data") {
			inData = true
			continue
		}
		if inData {
			t, _ := strings.CutPrefix(l, "Title: ")
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// earlierRe matches the heading of the earlier records in a prompt.
var earlierRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^Earlier records \((?:the newest )?(\d+)(?: of \d+)?, oldest first\):$`)
})

// promptRecords reads how many earlier records a prompt quotes. Were a task
// body to contain a line like the heading, the last match, the real one that
// Prompt writes after the body, wins.
func promptRecords(prompt string) int {
	m := earlierRe().FindAllStringSubmatch(prompt, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}
