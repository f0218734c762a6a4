package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// BenchmarkBetweenSessions measures the time strom adds around sessions, excluding
// the agent's own run and the commit: picking the task, taking it, the prompt, the
// pty start, and after the agent the queue rules, parking and clean-state check.
// The agent closes at once by leaving its close request.
func BenchmarkBetweenSessions(b *testing.B) {
	root := b.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "b"}, {"config", "user.email", "b@example.com"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	b.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(root, ".config-home"))
	r, err := mode.Init(context.Background(), root, mode.InitOptions{Agent: "command"}, research.Env{Clock: clock.Real{}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	agent := `sh -c 'echo close > .strom/run/close-$STROM_SESSION'`
	cfg := statefiles.NewConfig()
	cfg.Settings = map[string]any{"agent.name": "command", "agent.command": agent}
	if err := r.Tree.TreeConfig().Save(cfg); err != nil {
		b.Fatal(err)
	}
	// The tree's agent.command starts a program: allowed, as a person would.
	rv, err := allow.Consent(context.Background(), r)
	if err != nil {
		b.Fatal(err)
	}
	if err := allow.Allow(context.Background(), r, rv); err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var last time.Time
	var harnessTime, sessions time.Duration
	var n int
	r.Mark = func(ev string) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		switch ev {
		case "agent-started", "commit-start":
			harnessTime += now.Sub(last)
		}
		if ev == "commit-end" {
			n++
		}
		last = now
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < 2; j++ {
			if _, err := queue.AddTask(context.Background(), r, "task", "", ""); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		mu.Lock()
		last = start
		mu.Unlock()
		rr, err := Run(context.Background(), r, RunOptions{Max: 2})
		if err != nil || rr.Sessions != 2 {
			b.Fatalf("run: %+v %v", rr, err)
		}
		sessions += time.Since(start)
	}
	b.StopTimer()
	os.RemoveAll(root)
	b.ReportMetric(float64(harnessTime.Milliseconds())/float64(n), "harness-ms/session")
	b.ReportMetric(float64(sessions.Milliseconds())/float64(b.N*2), "total-ms/session")
}
