package clock

import (
	"testing"
	"time"
)

func TestFakeAfterFiresOnAdvance(t *testing.T) {
	t.Parallel()
	f := NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	ch := f.After(time.Hour)
	f.Advance(59 * time.Minute)
	select {
	case <-ch:
		t.Fatal("fired early")
	default:
	}
	f.Advance(time.Minute)
	select {
	case <-ch:
	default:
		t.Fatal("did not fire at its moment")
	}
	if f.Waiters() != 0 {
		t.Fatal("waiter kept")
	}
}

func TestFromEnvScaled(t *testing.T) {
	t.Parallel()
	origin := time.Now().Add(-time.Second)
	env := map[string]string{
		EnvScale:  "3600",
		EnvOrigin: origin.Format(time.RFC3339Nano),
		EnvBase:   "2026-11-30T09:00:00Z",
	}
	c := FromEnv(func(k string) string { return env[k] })
	got := c.Now()
	base := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	// One real second (and a little) at 3600× is an hour (and a little).
	if got.Before(base.Add(time.Hour)) || got.After(base.Add(2*time.Hour)) {
		t.Fatalf("scaled now = %v", got)
	}
	if _, ok := FromEnv(func(string) string { return "" }).(Real); !ok {
		t.Fatal("no variables: want the real clock")
	}
}
