package gates

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

func TestRunnerWait(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local)
	tests := []struct {
		name     string
		retry    time.Duration
		until    time.Duration // after start; 0 = none
		ctrlC    bool
		wantLine string
		wantWait time.Duration
		wantStop *ends.Stop
	}{
		{name: "no retry given: 15 minutes", retry: 0, wantLine: "⏸ waiting until 09:15 — why\n", wantWait: 15 * time.Minute},
		{name: "never sooner than 1 minute", retry: 5 * time.Second, wantLine: "⏸ waiting until 09:01 — why\n", wantWait: time.Minute},
		{name: "the gate's time", retry: 2*time.Hour + 30*time.Second, wantLine: "⏸ waiting until 11:00 — why\n", wantWait: 2*time.Hour + 30*time.Second},
		{name: "--until ends it as time limit", retry: 2 * time.Hour, until: 30 * time.Minute,
			wantLine: "⏸ waiting until 09:30 — why\n", wantWait: 30 * time.Minute, wantStop: ptr(ends.StopTimeLimit)},
		{name: "Ctrl-C ends it by hand", retry: time.Hour, ctrlC: true, wantLine: "⏸ waiting until 10:00 — why\n", wantStop: ptr(ends.StopByHand)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake(start)
			tree := statefiles.At(t.TempDir())
			if err := os.MkdirAll(tree.Path(statefiles.RunDir), 0o755); err != nil {
				t.Fatal(err)
			}
			r := &research.Research{Tree: tree, Clock: fake, Getenv: os.Getenv}
			if err := runfiles.SaveRun(r, &runfiles.RunInfo{PID: os.Getpid(), Started: start}); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			ints := make(chan struct{}, 1)
			g := &Runner{Research: r, Out: &out, Interrupts: ints}
			if tt.until > 0 {
				g.Until = start.Add(tt.until)
			}
			done := make(chan *ends.GateStop)
			go func() { done <- g.wait(context.Background(), tt.retry, "why") }()
			for fake.Waiters() == 0 {
				time.Sleep(time.Millisecond)
			}
			ri, _ := runfiles.LoadRun(r)
			if ri.PauseWhy != "why" || ri.PausedTill.IsZero() {
				t.Errorf("run.json while waiting = %+v, want paused with the reason", ri)
			}
			if tt.ctrlC {
				ints <- struct{}{}
			} else {
				fake.Advance(tt.wantWait - time.Second)
				select {
				case <-done:
					t.Fatalf("the wait ended a second early")
				case <-time.After(20 * time.Millisecond):
				}
				fake.Advance(time.Second)
			}
			gs := <-done
			if out.String() != tt.wantLine {
				t.Errorf("printed %q, want %q", out.String(), tt.wantLine)
			}
			switch {
			case tt.wantStop == nil && gs != nil:
				t.Errorf("wait returned a stop %+v, want none", gs)
			case tt.wantStop != nil && (gs == nil || gs.Stop != *tt.wantStop):
				t.Errorf("wait returned %+v, want stop %s", gs, *tt.wantStop)
			}
			if ri, _ := runfiles.LoadRun(r); !ri.PausedTill.IsZero() || ri.PauseWhy != "" {
				t.Errorf("run.json after the wait = %+v, want no pause", ri)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
