// Package clock gives strom one notion of "now" that tests can move.
//
// Real runs use the wall clock. Tests replace it either in-process with a Fake, or
// across processes with a scaled clock taken from the environment, so that a
// 60-minute session passes in a fraction of a second while the harness, the agent and
// every `strom` command the agent runs still agree on the time.
package clock

import (
	"os"
	"strconv"
	"sync"
	"time"
)

// Clock tells the time and waits. Everything in strom that reads the time or sleeps
// takes a Clock.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed on this clock.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// After is time.After.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Scaled runs Scale times faster than the wall clock from Origin on: at the real
// moment Origin+r it reads Base+Scale·r. Every process given the same three values
// agrees on the time.
type Scaled struct {
	Origin time.Time // real moment the scale starts
	Base   time.Time // what the clock reads at Origin
	Scale  float64
}

// Now returns the scaled time.
func (s Scaled) Now() time.Time {
	r := time.Since(s.Origin)
	return s.Base.Add(time.Duration(float64(r) * s.Scale))
}

// After waits d on the scaled clock, that is d/Scale of real time.
func (s Scaled) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	real := time.Duration(float64(d) / s.Scale)
	time.AfterFunc(real, func() { ch <- s.Now() })
	return ch
}

// Environment variables of the scaled test clock. They exist so that end-to-end tests
// can run an hour-long session in well under a second; a person never sets them.
const (
	EnvScale  = "STROM_TEST_TIME_SCALE"  // speed factor, e.g. 3600
	EnvOrigin = "STROM_TEST_TIME_ORIGIN" // real start, RFC 3339 with nanoseconds
	EnvBase   = "STROM_TEST_TIME_BASE"   // what the clock reads at the origin, RFC 3339
)

// FromEnv returns the clock the environment asks for: a Scaled clock when
// STROM_TEST_TIME_SCALE is set, the real clock otherwise. getenv is os.Getenv in
// production.
func FromEnv(getenv func(string) string) Clock {
	if getenv == nil {
		getenv = os.Getenv
	}
	scale, err := strconv.ParseFloat(getenv(EnvScale), 64)
	if err != nil || scale <= 0 {
		if base, err := time.Parse(time.RFC3339Nano, getenv(EnvBase)); err == nil {
			return Scaled{Origin: time.Now(), Base: base, Scale: 1}
		}
		return Real{}
	}
	origin, err := time.Parse(time.RFC3339Nano, getenv(EnvOrigin))
	if err != nil {
		origin = time.Now()
	}
	base, err := time.Parse(time.RFC3339Nano, getenv(EnvBase))
	if err != nil {
		base = origin
	}
	return Scaled{Origin: origin, Base: base, Scale: scale}
}

// Fake is a clock that moves only when told to. After channels fire when Advance or
// Set passes their moment.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a Fake reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that fires once the fake time reaches now+d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	at := f.now.Add(d)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: at, ch: ch})
	return ch
}

// Advance moves the fake time forward by d.
func (f *Fake) Advance(d time.Duration) { f.Set(f.Now().Add(d)) }

// Set moves the fake time to t and fires every waiter whose moment has come.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if !w.at.After(t) {
			w.ch <- t
			continue
		}
		kept = append(kept, w)
	}
	f.waiters = kept
}

// Waiters reports how many After channels are still pending; tests use it to know
// that the code under test has started waiting.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}
