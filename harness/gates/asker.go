package gates

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/procgroup"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Asker asks one gate for its answer.
type Asker struct {
	Tree   *statefiles.Tree
	Clock  clock.Clock
	Getenv func(string) string
	Spec   Spec
	// Agent is the run's agent profile name: claude-usage paces only Claude Code.
	Agent string
	// ClaudeConfigDir is agent.claudeConfigDir: Claude Code's own folder, "" for ~/.claude.
	ClaudeConfigDir string
	// DryRun asks without changing anything: no hold.json, no gate folder
	// (strom gate test). A gate program sees STROM_GATE_TEST=1.
	DryRun bool
	// UsageFile, when set, is a Claude Code statusLine JSON read instead of the usage
	// sources (strom gate test --usage-file).
	UsageFile string
	// At, when set, is the moment the answer is for instead of now (strom gate test --now).
	At time.Time
	// Since is the run's start: the agent's own report counts only from then on.
	// Zero: any report at most 15 minutes old.
	Since time.Time
	// CapOnly asks claude-usage for its cap alone (R7.5.4): a run under --no-gate or
	// another condition still stops at the cap of run.gate, and its sessions are
	// watched for it; the pace is not asked, and a usage that cannot be read lets
	// the run go on.
	CapOnly bool
}

// Reply is a gate's answer with how it came about.
type Reply struct {
	Answer
	Exit int   // the program's exit status; 0 for the built-in; -1 when it did not end
	Err  error // the gate failed (crash, exit, bad JSON, time): the run ends

	// hold is what claude-usage remembers after this answer, nil when it is
	// unchanged: Keep saves it once the run did what the answer said.
	hold *claudeusage.Hold
}

// Dir is the gate's own folder in the research: .strom/gates/<name>/.
func (a *Asker) Dir() string { return a.Tree.Path(statefiles.GatesDir, a.Spec.Name) }

// Program is where the gate's program is installed.
func Program(getenv func(string) string, name string) string {
	return filepath.Join(statefiles.UserConfigDir(getenv), "plugins", "gates", name, "gate")
}

func (a *Asker) now() time.Time {
	if !a.At.IsZero() {
		return a.At
	}
	return a.Clock.Now()
}

// Ask runs the gate and returns its answer, within the gate's time on the
// research's clock.
func (a *Asker) Ask(ctx context.Context) Reply {
	timeout := a.Spec.Timeout()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timedOut := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-a.Clock.After(timeout):
			close(timedOut)
			cancel()
		case <-done:
		}
	}()
	var rep Reply
	if a.Spec.Builtin() {
		rep = a.claudeUsage(ctx)
	} else {
		rep = a.program(ctx)
	}
	select {
	case <-timedOut:
		return Reply{Exit: -1, Err: messages.Errorf(ErrTimeout, "gates.timeout", messages.Args{"Gate": a.Spec.Name, "Timeout": timeout})}
	default:
	}
	return rep
}

// program runs plugins/gates/<name>/gate with the words after the name.
func (a *Asker) program(ctx context.Context) Reply {
	path := Program(a.Getenv, a.Spec.Name)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Reply{Exit: -1, Err: messages.Errorf(ErrNoGate, "gates.not_found", messages.Args{"Gate": termsafe.Excerpt(a.Spec.Name), "Path": termsafe.Excerpt(path)})}
	}
	if err != nil {
		return Reply{Exit: -1, Err: fmt.Errorf("find %s: %w", a.Spec.Name, err)}
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return Reply{Exit: -1, Err: messages.New("gates.not_executable", messages.Args{"Gate": a.Spec.Name, "Path": path})}
	}
	dir := a.Dir()
	if !a.DryRun {
		if err := statefiles.MkdirAll(dir, 0o755); err != nil {
			return Reply{Exit: -1, Err: fmt.Errorf("make the gate folder: %w", err)}
		}
	}
	cmd := exec.CommandContext(ctx, path, a.Spec.Args...)
	cmd.Dir = a.Tree.Root
	cmd.Env = append(os.Environ(), "STROM_GATE_DIR="+dir+string(filepath.Separator), "STROM_GATE_NAME="+a.Spec.Name)
	if a.DryRun {
		cmd.Env = append(cmd.Env, "STROM_GATE_TEST=1")
		if a.UsageFile != "" {
			cmd.Env = append(cmd.Env, "STROM_GATE_USAGE_FILE="+a.UsageFile)
		}
	}
	if !a.At.IsZero() {
		cmd.Env = append(cmd.Env, "STROM_GATE_NOW="+a.At.Format(time.RFC3339))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &capped.Writer{B: &stdout, N: 1 << 16}, &capped.Writer{B: &stderr, N: 1 << 16}
	// The gate and whatever it started end with its answer: the answer is what it
	// printed and its exit, whatever a child it left behind still holds open.
	err = procgroup.Run(cmd)
	exit := -1
	if cmd.ProcessState != nil {
		exit = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		return Reply{Exit: exit, Err: ctx.Err()}
	}
	if err != nil {
		// The program's last line on stderr says why; without one, say so rather
		// than repeat the exit ("failed with exit 1: exit status 1").
		if why := lastLine(stderr.String()); why != "" {
			return Reply{Exit: exit, Err: messages.Errorf(ErrExit, "gates.failed", messages.Args{"Gate": a.Spec.Name, "Exit": describeExit(cmd.ProcessState, err), "Why": why})}
		}
		return Reply{Exit: exit, Err: messages.Errorf(ErrExit, "gates.failed_silent", messages.Args{"Gate": a.Spec.Name, "Exit": describeExit(cmd.ProcessState, err)})}
	}
	ans, err := decodeAnswer(stdout.Bytes())
	if err != nil {
		return Reply{Exit: exit, Err: messages.Errorf(err, "gates.bad_answer", messages.Args{"Gate": a.Spec.Name, "Error": err})}
	}
	return Reply{Answer: ans, Exit: exit}
}

func describeExit(ps *os.ProcessState, err error) string {
	if ps == nil {
		return err.Error()
	}
	return agentpty.StatusOf(ps).String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// claudeUsage is the built-in gate: the steps of R7.5 in their order.
func (a *Asker) claudeUsage(ctx context.Context) Reply {
	p, err := claudeusage.ParseArgs(a.Spec.Args)
	if err != nil {
		return Reply{Answer: fromDecision(claudeusage.InvalidParams(err), nil)}
	}
	if a.Agent != "claude" {
		return Reply{Answer: fromDecision(claudeusage.NotClaude(), nil)}
	}
	if k := APIKeyEnv(a.Getenv); k != "" {
		ans := claudeusage.NotClaude().Saying(messages.New("claudeusage.api_key_env", messages.Args{"Env": k}))
		return Reply{Answer: fromDecision(ans, nil)}
	}
	rd := a.ReadUsage(ctx)
	if ctx.Err() != nil {
		return Reply{Exit: -1, Err: ctx.Err()}
	}
	if rd.Err != nil {
		return Reply{Exit: -1, Err: rd.Err}
	}
	if a.CapOnly {
		return a.capOnly(p, rd)
	}
	if rd.Answer != nil {
		ans := *rd.Answer
		if ans.Verdict != claudeusage.VerdictGo {
			ans.Watch = p.Watch()
		}
		return Reply{Answer: fromDecision(ans, nil)}
	}
	var hold claudeusage.Hold
	if _, err := a.Tree.LoadHold(ClaudeUsage, &hold); err != nil {
		return Reply{Exit: -1, Err: err}
	}
	ans, next := claudeusage.Decide(a.now(), p, rd.Usage, hold)
	rep := Reply{Answer: fromDecision(ans, &rd.Usage)}
	if !a.DryRun && next != hold {
		rep.hold = &next
	}
	return rep
}

// Keep saves what claude-usage remembers after rep (R7.5.2's hold.json), once the
// run did what the answer said: it waited, or a session goes. An answer a person
// overruled, or one that ended the run, changes nothing: a "no" at "Start anyway?"
// is no wait, and leaves hold.json as it was. The session's commit takes the
// change along.
func (a *Asker) Keep(ctx context.Context, rep Reply) error {
	if rep.hold == nil || a.DryRun {
		return nil
	}
	return a.Tree.Locked(ctx, func() error {
		if err := statefiles.MkdirAll(a.Dir(), 0o755); err != nil {
			return fmt.Errorf("save the hold: %w", err)
		}
		return a.Tree.SaveHold(ClaudeUsage, rep.hold)
	})
}

// capOnly answers for the cap alone: stop, hard, at the cap; go otherwise, with the
// session watched for the cap.
func (a *Asker) capOnly(p claudeusage.Params, rd Reading) Reply {
	if rd.Answer != nil {
		said := rd.Answer.Said
		if said == nil {
			said = messages.New("claudeusage.as_said", messages.Args{"Reason": rd.Answer.Reason})
		}
		return Reply{Answer: fromDecision(claudeusage.Answer{Verdict: Go, Watch: p.Watch()}.Saying(
			messages.New("claudeusage.cap_unchecked", messages.Args{"Reason": said})), nil)}
	}
	ans, _ := claudeusage.Decide(a.now(), claudeusage.Params{Cap: p.Cap}, rd.Usage, claudeusage.Hold{})
	if !ans.Hard {
		ans = claudeusage.Answer{Verdict: Go, Watch: p.Watch()}.Saying(messages.New("claudeusage.under_cap",
			messages.Args{"Used": strconv.FormatFloat(math.Round(rd.Usage.WeekUsed*10)/10, 'f', -1, 64), "Cap": p.Cap}))
	}
	return Reply{Answer: fromDecision(ans, &rd.Usage)}
}

// CapOf is the cap in the words of run.gate: claude-usage's --cap, 0 for none.
func CapOf(words string) int {
	spec, err := ParseSpec(words)
	if err != nil || !spec.Builtin() {
		return 0
	}
	p, err := claudeusage.ParseArgs(spec.Args)
	if err != nil {
		return 0
	}
	return p.Cap
}

// Chain asks its gates in order before each session; the first that does not say go
// decides.
type Chain []Gate

// Gate is one condition of a Chain: a Runner, or the cap of a condition asked
// beside another.
type Gate interface {
	Before(ctx context.Context, n int) (*ends.GateStop, error)
}

// Before asks each gate.
func (c Chain) Before(ctx context.Context, n int) (*ends.GateStop, error) {
	for _, g := range c {
		if g == nil {
			continue
		}
		if gs, err := g.Before(ctx, n); err != nil || gs != nil {
			return gs, err
		}
	}
	return nil, nil
}

// APIKeyEnv names the variable that makes Claude Code use an API key or a cloud
// provider instead of the subscription, "" when none is set.
func APIKeyEnv(getenv func(string) string) string {
	for _, k := range []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY"} {
		if v := getenv(k); v != "" && v != "0" {
			return k
		}
	}
	return ""
}
