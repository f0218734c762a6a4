package archives

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/testenv"
)

func TestProbe(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	cases := []struct {
		line    string
		answers bool
		why     string
	}{
		{"true", true, ""},
		{`test "$STROM_ARCHIVE" = parish`, true, ""},
		{"echo 'host not found' >&2; exit 6", false, "exit 6: host not found"},
		{"kill -9 $$", false, "killed"},
		{"", false, "no probe is set"},
	}
	for _, tc := range cases {
		r := Probe(context.Background(), c, dir, "parish", tc.line)
		if r.Answers != tc.answers || !strings.Contains(r.Why, tc.why) || r.Name != "parish" {
			t.Errorf("%q: %+v, want answers %v why %q", tc.line, r, tc.answers, tc.why)
		}
	}
}

// A probe that does not end within ProbeTimeout on the research's clock does not
// answer, and is stopped with what it started.
func TestProbeTimeout(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	done := make(chan Result)
	go func() { done <- Probe(context.Background(), c, t.TempDir(), "slow", "sleep 60 & sleep 60") }()
	for c.Waiters() == 0 {
		time.Sleep(time.Millisecond)
	}
	c.Advance(ProbeTimeout)
	select {
	case r := <-done:
		if r.Answers || r.Why != "no answer within 30 seconds" {
			t.Fatalf("hanging probe: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the probe was not stopped")
	}
}

// A Prober asks an archive at most once every ProbeEvery, and reads its probe anew
// each time it asks.
func TestProberOncePerMinute(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	line := "echo x >> " + count + "; exit 1"
	p := &Prober{Clock: c, Dir: dir, Line: func(ctx context.Context, name string) (string, string, error) { return line, "", nil }}
	calls := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "x")
	}
	ctx := context.Background()
	for range 3 {
		if r, err := p.Check(ctx, "parish"); err != nil || r.Answers {
			t.Fatalf("check: %+v %v", r, err)
		}
	}
	if n := calls(); n != 1 {
		t.Fatalf("%d probes within a minute, want 1", n)
	}
	c.Advance(ProbeEvery)
	line = "echo x >> " + count
	if r, _ := p.Check(ctx, "parish"); !r.Answers {
		t.Fatalf("after a minute with a mended probe: %+v", r)
	}
	if n := calls(); n != 2 {
		t.Fatalf("%d probes after a minute, want 2", n)
	}
	// An archive without a probe does not answer, with the reason given.
	p.Line = func(ctx context.Context, name string) (string, string, error) { return "", "no probe is set", nil }
	if r, _ := p.Check(ctx, "other"); r.Answers || r.Why != "no probe is set" {
		t.Fatalf("no probe: %+v", r)
	}
}

// A probe's answer is its exit, whatever it left running: a background process that
// still holds its output neither turns an answer into silence nor outlives the probe.
func TestProbeLeavesChild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		line    string
		answers bool
		why     string
	}{
		{"a child holding stderr", `sleep 300 & echo $! > child`, true, ""},
		{"a child holding stdout", `sleep 300 2>/dev/null & echo $! > child`, true, ""},
		{"a child holding nothing", `sleep 300 >/dev/null 2>&1 & echo $! > child`, true, ""},
		{"a failure with a child holding stderr", `sleep 300 & echo $! > child; echo 'host not found' >&2; exit 6`, false, "exit 6: host not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan Result, 1)
			go func() { done <- Probe(ctx, c, dir, "parish", tt.line) }()
			r := testenv.WaitAnswer(t, done, cancel, filepath.Join(dir, "child"))
			if r.Answers != tt.answers || r.Why != tt.why {
				t.Errorf("%q: %+v, want answers %v why %q", tt.line, r, tt.answers, tt.why)
			}
		})
	}
}
