package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"
)

// lockedBuffer is a bytes.Buffer safe for the run's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const ttyGate = `#!/bin/sh
case "$1" in
go) echo '{"verdict":"go","reason":"all clear"}' ;;
stop) echo '{"verdict":"stop","reason":"enough for today"}' ;;
wait) echo '{"verdict":"wait","reason":"not yet","retry_after_s":3600}' ;;
crash) echo boom >&2; exit 3 ;;
hard) echo '{"verdict":"stop","reason":"week 96% used reaches the cap","hard":true}' ;;
esac
`

// TestStartAnywayOnTerminal runs strom run by hand under an outer pty, the person's
// terminal, and answers "Start anyway?" (R7.4.1) and the consent of --gate (R7.4).
func TestStartAnywayOnTerminal(t *testing.T) {
	home := personHome(t)
	gateDir := filepath.Join(home, ".config", "strom", "plugins", "gates", "fake")
	if err := os.MkdirAll(gateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gateDir, "gate"), []byte(ttyGate), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		gate     string // run.gate
		args     []string
		typed    string
		code     int
		stdout   []string
		stderr   []string
		noStderr string
	}{
		{name: "yes starts the session", gate: "fake stop", typed: "y\n", code: 0,
			stdout: []string{"· condition fake: stop — enough for today", "1 session · stopped: done"},
			stderr: []string{"The condition “fake stop” would not start now — enough for today. Start anyway? [y/N]"}},
		{name: "no ends the run", gate: "fake stop", typed: "n\n", code: 0,
			stdout: []string{"0 sessions · stopped: not started — the condition “fake stop”: enough for today"},
			stderr: []string{"Start anyway? [y/N]"}},
		{name: "Enter means no", gate: "fake wait", typed: "\n", code: 0,
			stdout: []string{"0 sessions · stopped: not started — the condition “fake wait”: not yet"},
			stderr: []string{"The condition “fake wait” would not start now — not yet. Start anyway? [y/N]"}},
		{name: "an error asks too", gate: "fake crash", args: []string{"--max", "2"}, typed: "yes\n", code: 0,
			stdout: []string{"· condition fake: error", "2 sessions · stopped: done"},
			stderr: []string{"would not start now — the condition program fake failed with exit 3: boom. Start anyway?"}},
		{name: "a hard cap is not asked about", gate: "fake hard", typed: "y\n", code: 3,
			stdout:   []string{"0 sessions · stopped: the cap of the condition “fake hard”: week 96% used reaches the cap"},
			noStderr: "Start anyway"},
		{name: "--loop is never asked", gate: "fake stop", args: []string{"--loop"}, typed: "y\n", code: 0,
			stdout:   []string{"0 sessions · stopped: the condition “fake stop”: enough for today"},
			noStderr: "Start anyway"},
		{name: "--gate with a yes", gate: "fake stop", args: []string{"--gate", "fake go"}, typed: "y\n", code: 0,
			stdout: []string{"· condition fake: go — all clear", "1 session · stopped: done"},
			stderr: []string{"Run under the condition “fake go” instead of “fake stop”? [y/N]"}},
		{name: "--no-gate refused with Enter", gate: "fake stop", args: []string{"--no-gate"}, typed: "\n", code: 1,
			stderr: []string{"Run without the condition “fake stop” set for this computer? [y/N]", "not confirmed: nothing was changed"}},
		{name: "--no-gate with a yes", gate: "fake stop", args: []string{"--no-gate"}, typed: "y\n", code: 0,
			stdout: []string{"1 session · stopped: done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			cfg := `{"version": 1, "settings": {"run.gate": "` + tt.gate + `"}}`
			if err := os.WriteFile(filepath.Join(home, ".config", "strom", "config.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			quietIn(t, repo, "init", "--agent", "demo")
			quietIn(t, repo, "task", "add", "First task")
			quietIn(t, repo, "task", "add", "Second task")

			args := append([]string{"run"}, tt.args...)
			args = append(args, "--agent", "command", "--", "true")
			onTerminal(t, repo, tt.typed, args, tt.code, tt.stdout, tt.stderr, tt.noStderr)
		})
	}
}

// loggedOutClaude is Claude Code that is not logged in: /usage shows only its cost
// block, auth status says so, and a session meets the login.
const loggedOutClaude = `#!/bin/sh
[ "$1" = --version ] && { echo '2.1.332 (Claude Code)'; exit 0; }
case "$*" in
"-p /usage") echo 'Total cost: $0.0000' ;;
"auth status") echo '{"loggedIn": false, "authMethod": "none"}'; exit 1 ;;
*) echo 'Not logged in · Please run /login'; exit 1 ;;
esac
`

// TestStartAnywayNotLoggedIn: "not logged in" found by claude-usage is asked about
// in a run by hand on a terminal with the words and rules of every other answer
// (R7.7, R7.4.1); the pre-check of a folder of Claude Code's own stays a plain stop.
func TestStartAnywayNotLoggedIn(t *testing.T) {
	home := personHome(t)
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY", "CLAUDE_CONFIG_DIR"} {
		t.Setenv(k, "")
	}
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(loggedOutClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := os.MkdirAll(filepath.Join(home, ".config", "strom"), 0o755); err != nil {
		t.Fatal(err)
	}
	ownDir := filepath.Join(home, "cc")

	const question = "The condition “claude-usage 10” would not start now — the agent is not logged in — run claude once and log in. Start anyway? [y/N]"
	tests := []struct {
		name     string
		settings string // the computer's settings besides run.gate
		typed    string
		code     int
		stdout   []string
		stderr   []string
		noStderr string
	}{
		{name: "Enter means no", typed: "\n", code: 0,
			stdout: []string{"· condition claude-usage: stop — the agent is not logged in",
				"0 sessions · stopped: not started — the condition “claude-usage 10”: the agent is not logged in — run claude once and log in"},
			stderr: []string{question}},
		{name: "yes starts the session, which meets the login", typed: "y\n", code: 3,
			stdout: []string{"ended: not-logged-in", "1 session · stopped: the agent is not logged in — run claude once and log in"},
			stderr: []string{question}},
		{name: "a folder of its own is a plain stop", settings: `, "agent.claudeConfigDir": "` + ownDir + `"`, typed: "y\n", code: 3,
			stdout:   []string{"0 sessions · stopped: the agent is not logged in — run CLAUDE_CONFIG_DIR=" + ownDir + " claude once and log in"},
			noStderr: "Start anyway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			cfg := `{"version": 1, "settings": {"run.gate": "claude-usage 10"` + tt.settings + `}}`
			if err := os.WriteFile(filepath.Join(home, ".config", "strom", "config.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			quietIn(t, repo, "init", "--agent", "claude")
			quietIn(t, repo, "task", "add", "First task")

			onTerminal(t, repo, tt.typed, []string{"run"}, tt.code, tt.stdout, tt.stderr, tt.noStderr)
		})
	}
}

// quietIn runs strom ARGS in repo without a terminal; it must succeed.
func quietIn(t *testing.T, repo string, args ...string) {
	t.Helper()
	var out lockedBuffer
	s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: os.Getenv, dir: repo}
	if code := run(context.Background(), args, s); code != 0 {
		t.Fatalf("strom %v: exit %d: %s", args, code, out.String())
	}
}

// onTerminal runs strom ARGS in repo with a pty as the person's terminal and typed
// typed into it, and checks its exit status, the lines its output must hold, and
// one its standard error must not.
func onTerminal(t *testing.T, repo, typed string, args []string, code int, stdout, stderr []string, noStderr string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if _, err := ptmx.Write([]byte(typed)); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	var out, errs lockedBuffer
	s := &sys{stdin: tty, stdout: &out, stderr: &errs, getenv: os.Getenv, dir: repo}
	if got := run(context.Background(), args, s); got != code {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, code, out.String(), errs.String())
	}
	for _, want := range stdout {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range stderr {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs.String())
		}
	}
	if noStderr != "" && strings.Contains(errs.String(), noStderr) {
		t.Errorf("stderr has %q:\n%s", noStderr, errs.String())
	}
}
