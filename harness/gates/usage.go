package gates

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/procgroup"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// Reading the usage (R7.5 step 3).
const (
	// ReportFresh is how old the agent's own report may be.
	ReportFresh = 15 * time.Minute
	// readTries attempts, readPause apart, before the gate waits.
	readTries = 3
	readPause = 30 * time.Second
	// claudeCallTimeout bounds one call of Claude Code on the research's clock. A
	// try makes at most 3 calls (claude -p /usage, get_usage, claude auth status),
	// so the 3 tries and the 2 pauses between them take at most 3·3·45 s + 2·30 s =
	// 465 s: well within the 660 s of BuiltinTimeout, whatever hangs.
	claudeCallTimeout = 45 * time.Second
)

// withCallLimit is ctx ended after claudeCallTimeout on the research's clock.
func (a *Asker) withCallLimit(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-a.Clock.After(claudeCallTimeout):
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// ReportFile and WatchFile live in .strom/run/: the agent's last usage report in
// this run, and the watched limit of the run's gate.
const (
	ReportFile = "usage.json"
	WatchFile  = "watch.json"
)

// Reading is what reading the usage found: a usage, or an answer that settles the
// gate without one (not logged in, an API key, unreadable), or an error.
type Reading struct {
	Usage  claudeusage.Usage
	Answer *claudeusage.Answer
	Err    error
}

// ReadUsage reads the Claude subscription's usage from the first source that has
// it: the UsageFile, the agent's own report in this run (at most 15 minutes old),
// `claude -p /usage`, the get_usage control request. Unreadable: 3 tries 30 s
// apart, then the answer to wait 15 minutes.
func (a *Asker) ReadUsage(ctx context.Context) Reading {
	now := a.now()
	if a.UsageFile != "" {
		data, err := os.ReadFile(a.UsageFile)
		if err != nil {
			return Reading{Err: fmt.Errorf("read usage file: %w", err)}
		}
		u, err := claudeusage.ParseStatusLine(data, now)
		if err != nil {
			return Reading{Err: fmt.Errorf("read usage file %s: %w: give a Claude Code statusLine JSON with rate_limits", a.UsageFile, err)}
		}
		u.Source = "file " + a.UsageFile
		return Reading{Usage: u}
	}
	if u, ok := LoadReport(a.Tree); ok && !u.At.After(now.Add(time.Minute)) && now.Sub(u.At) <= ReportFresh && !u.At.Before(a.Since) {
		return Reading{Usage: u}
	}
	for try := 1; ; try++ {
		rd, done := a.askClaude(ctx, now)
		if done {
			return rd
		}
		if try == readTries {
			ans := claudeusage.Unreadable()
			return Reading{Answer: &ans}
		}
		select {
		case <-a.Clock.After(readPause):
		case <-ctx.Done():
			return Reading{Err: ctx.Err()}
		}
		now = a.now()
	}
}

// askClaude is one try at Claude Code itself; done is false when nothing could be
// read and the caller may try again.
func (a *Asker) askClaude(ctx context.Context, now time.Time) (Reading, bool) {
	login := limits.Defaults("claude")
	notLoggedIn := func() (Reading, bool) {
		ans := claudeusage.NotLoggedIn(a.ClaudeConfigDir)
		return Reading{Answer: &ans}, true
	}
	apiKey := func() (Reading, bool) {
		ans := claudeusage.NotClaude().Saying(messages.New("claudeusage.api_key", nil))
		return Reading{Answer: &ans}, true
	}

	out, err := a.claude(ctx, nil, "-p", "/usage")
	if errors.Is(err, exec.ErrNotFound) {
		ans := claudeusage.Answer{Verdict: claudeusage.VerdictStop}.Saying(messages.New("claudeusage.not_installed", nil))
		return Reading{Answer: &ans}, true
	}
	if sig, ok := login.Match(out); ok && sig.Kind == limits.Login {
		return notLoggedIn()
	}
	if u, err := claudeusage.ParseUsageText(out, now); err == nil {
		return Reading{Usage: u}, true
	}

	// /usage shows no limits: ask over stream-json.
	if line, key, err := a.getUsage(ctx); err == nil {
		if key {
			return apiKey()
		}
		u, err := claudeusage.ParseGetUsage(line, now)
		switch {
		case err == nil:
			return Reading{Usage: u}, true
		case errors.Is(err, claudeusage.ErrAPIKey):
			return apiKey()
		}
	}

	// Still nothing: tell "not logged in" and "API key" apart.
	st, _ := a.claude(ctx, nil, "auth", "status")
	var auth struct {
		LoggedIn     *bool  `json:"loggedIn"`
		AuthMethod   string `json:"authMethod"`
		APIKeySource string `json:"apiKeySource"`
	}
	if i := strings.IndexByte(st, '{'); i >= 0 && json.Unmarshal([]byte(st[i:]), &auth) == nil {
		switch {
		case auth.LoggedIn != nil && !*auth.LoggedIn:
			return notLoggedIn()
		case auth.AuthMethod == "api_key" || auth.APIKeySource != "" && auth.APIKeySource != "none":
			return apiKey()
		}
	}
	if sig, ok := login.Match(st); ok && sig.Kind == limits.Login {
		return notLoggedIn()
	}
	return Reading{}, false
}

// claude runs Claude Code once and returns what it printed.
func (a *Asker) claude(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	ctx, cancel := a.withCallLimit(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "claude", args...)
	cmd.Dir = a.Tree.Root
	cmd.Env = a.claudeEnv()
	cmd.Stdin = stdin
	// Claude Code and whatever it started end with the call; what it printed is
	// kept up to the longest line getUsage reads.
	var out bytes.Buffer
	w := &capped.Writer{B: &out, N: 4 << 20}
	cmd.Stdout, cmd.Stderr = w, w
	err := procgroup.Run(cmd)
	if err != nil && errors.Is(err, exec.ErrNotFound) {
		return "", err
	}
	return out.String(), err
}

func (a *Asker) claudeEnv() []string {
	env := append(os.Environ(), "DISABLE_AUTOUPDATER=1")
	if a.ClaudeConfigDir != "" {
		env = append(env, "CLAUDE_CONFIG_DIR="+a.ClaudeConfigDir)
	}
	return env
}

// getUsage sends the get_usage control request over stream-json and returns the
// control_response line; key is true when system/init shows an API key.
func (a *Asker) getUsage(ctx context.Context) (line []byte, key bool, err error) {
	ctx, cancel := a.withCallLimit(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "claude", "-p", "--verbose", "--input-format", "stream-json",
		"--output-format", "stream-json", "--no-session-persistence", "--tools", "", "--strict-mcp-config")
	cmd.Dir = a.Tree.Root
	cmd.Env = a.claudeEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, false, fmt.Errorf("ask get_usage: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("ask get_usage: %w", err)
	}
	g, err := procgroup.Start(cmd)
	if err != nil {
		return nil, false, fmt.Errorf("ask get_usage: %w", err)
	}
	defer func() {
		in.Close()
		cancel()
		_ = g.Wait()
	}()
	const request = `{"type":"control_request","request_id":"strom-usage","request":{"subtype":"get_usage"}}` + "\n"
	sent := false
	send := func() {
		if !sent {
			sent = true
			_, _ = io.WriteString(in, request)
		}
	}
	// Claude Code answers control requests once it is up: after system/init, or
	// when it says nothing at first, after a moment.
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			select {
			case lines <- append([]byte(nil), sc.Bytes()...):
			case <-ctx.Done():
				return
			}
		}
	}()
	first := time.NewTimer(3 * time.Second)
	defer first.Stop()
	for {
		select {
		case <-first.C:
			send()
		case l, ok := <-lines:
			if !ok {
				return nil, false, fmt.Errorf("ask get_usage: %w", claudeusage.ErrUnreadable)
			}
			var msg struct {
				Type         string `json:"type"`
				Subtype      string `json:"subtype"`
				APIKeySource string `json:"apiKeySource"`
			}
			if json.Unmarshal(l, &msg) != nil {
				continue
			}
			switch {
			case msg.Type == "system" && msg.Subtype == "init":
				if msg.APIKeySource != "" && msg.APIKeySource != "none" {
					return nil, true, nil
				}
				send()
			case msg.Type == "control_response":
				return l, false, nil
			}
		case <-ctx.Done():
			return nil, false, fmt.Errorf("ask get_usage: %w", ctx.Err())
		}
	}
}

// report is .strom/run/usage.json: the agent's last usage report.
type report struct {
	Session string `json:"session,omitempty"`
	claudeusage.Usage
}

// SaveReport keeps the agent's usage report of a session for the gate.
func SaveReport(tree *statefiles.Tree, session string, u claudeusage.Usage) error {
	data, err := json.MarshalIndent(report{Session: session, Usage: u}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode usage report: %w", err)
	}
	// Claude Code reports after each of its replies: no fsync for a reading the
	// next reply replaces.
	return statefiles.WriteTransient(tree.Path(statefiles.RunDir, ReportFile), append(data, '\n'))
}

// LoadReport reads the agent's last usage report; false when there is none.
func LoadReport(tree *statefiles.Tree) (claudeusage.Usage, bool) {
	data, err := statefiles.ReadFile(tree.Path(statefiles.RunDir, ReportFile))
	if err != nil {
		return claudeusage.Usage{}, false
	}
	var r report
	if json.Unmarshal(data, &r) != nil || r.At.IsZero() {
		return claudeusage.Usage{}, false
	}
	return r.Usage, true
}

// Watched is .strom/run/watch.json: the limit a running session is watched for,
// and the run that set it.
type Watched struct {
	PID  int    `json:"pid"`
	Gate string `json:"gate"`
	Watch
}

// SaveWatch records the run's watched limit; a nil watch removes it.
func SaveWatch(tree *statefiles.Tree, pid int, gate string, w *Watch) error {
	path := tree.Path(statefiles.RunDir, WatchFile)
	if w == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove watch: %w", err)
		}
		return nil
	}
	data, err := json.Marshal(Watched{PID: pid, Gate: gate, Watch: *w})
	if err != nil {
		return fmt.Errorf("encode watch: %w", err)
	}
	if err := statefiles.MkdirAll(tree.Path(statefiles.RunDir), 0o755); err != nil {
		return fmt.Errorf("save watch: %w", err)
	}
	return statefiles.WriteAtomic(path, append(data, '\n'), 0o644)
}

// LoadWatch reads the watched limit; false when none is set.
func LoadWatch(tree *statefiles.Tree) (Watched, bool) {
	data, err := statefiles.ReadFile(tree.Path(statefiles.RunDir, WatchFile))
	if err != nil {
		return Watched{}, false
	}
	var w Watched
	if json.Unmarshal(data, &w) != nil || w.WeekFinishAt <= 0 && w.FiveHourFinishAt <= 0 {
		return Watched{}, false
	}
	return w, true
}
