package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// startCttyRun starts strom with an outer pty as its controlling terminal, so that
// Ctrl-C typed there is the SIGINT a person's terminal sends.
func startCttyRun(t *testing.T, h *cliHarness, args ...string) *ttyRun {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	cmd := exec.Command(h.strom, args...)
	cmd.Dir, cmd.Env = h.repo, h.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	r := &ttyRun{cmd: cmd, master: master, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

// TestCtrlCAtQuestionsAnswersNo: Ctrl-C at every [y/N] question — Start anyway?, the
// consent of --no-gate, strom config set, strom mode — answers no at once, and
// nothing changes.
func TestCtrlCAtQuestionsAnswersNo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		gate     string // run.gate in the user settings
		args     []string
		question string
		code     int
		says     string
		check    func(t *testing.T, h *cliHarness)
	}{
		{name: "Start anyway?", gate: "fake stop", args: []string{"run"}, question: "Start anyway? [y/N]", code: 0,
			says: "0 sessions · stopped: not started — the condition “fake stop”: enough for today",
			check: func(t *testing.T, h *cliHarness) {
				if got := tasksOf(t, h)["T-1"].State; got != "open" {
					t.Errorf("T-1 is %s", got)
				}
			}},
		{name: "consent of --no-gate", gate: "fake stop", args: []string{"run", "--no-gate"},
			question: "Run without the condition “fake stop” set for this computer? [y/N]", code: 1,
			says: "not confirmed: nothing was changed"},
		{name: "config set", args: []string{"config", "set", "run.gate", "claude-usage 10"}, question: "[y/N]", code: 1,
			says: "not confirmed: nothing was changed",
			check: func(t *testing.T, h *cliHarness) {
				if out := h.must(t, "config", "get", "run.gate"); strings.Contains(out, "claude-usage") {
					t.Errorf("run.gate was set: %s", out)
				}
			}},
		{name: "mode archive", args: []string{"mode", "archive"}, question: "[y/N]", code: 1,
			says: "not confirmed: nothing was changed",
			check: func(t *testing.T, h *cliHarness) {
				if got := strings.TrimSpace(h.must(t, "mode")); got != "research" {
					t.Errorf("strom mode = %q", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := withAgent(t, "#!/bin/sh\nstrom session close\n", "First")
			if tt.gate != "" {
				dir := filepath.Join(h.dir, "home", ".config", "strom", "plugins", "gates", "fake")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "gate"), []byte(ttyGate), 0o755); err != nil {
					t.Fatal(err)
				}
				cfg := `{"version": 1, "settings": {"run.gate": "` + tt.gate + `"}}`
				if err := os.WriteFile(filepath.Join(h.dir, "home", ".config", "strom", "config.json"), []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := startCttyRun(t, h, tt.args...)
			r.answer(t, tt.question, "\x03")
			if code := r.wait(t); code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.code, r.text())
			}
			if !strings.Contains(r.text(), tt.says) {
				t.Errorf("the screen lacks %q:\n%s", tt.says, r.text())
			}
			if tt.check != nil {
				tt.check(t, h)
			}
		})
	}
}
