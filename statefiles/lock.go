package statefiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// LockWait is how long Lock waits for another process before giving up.
const LockWait = 60 * time.Second

// Lock takes the research's state lock (.strom/run/lock, flock), waiting up to
// LockWait. Every change to a state file and every harness commit happens under it.
// The lock is not re-entrant: code holding it calls the *Locked functions, never the
// Update* ones. The lock file is never deleted, so two processes never lock two
// different files of the same name.
func (t *Tree) Lock(ctx context.Context) (unlock func(), err error) {
	if err := os.MkdirAll(t.Path(RunDir), 0o755); err != nil {
		return nil, fmt.Errorf("lock state: %w", err)
	}
	f, err := os.OpenFile(t.Path(RunDir, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock state: %w", err)
	}
	deadline := time.Now().Add(LockWait)
	wait := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				unix.Flock(int(f.Fd()), unix.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock state: %w", err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s) for over %s: if no strom is running, try again", ErrLocked, t.rel(RunDir, "lock"), LockWait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock state: %w", ctx.Err())
		case <-time.After(wait):
		}
		if wait < 20*time.Millisecond {
			wait *= 2
		}
	}
}

// Locked runs fn while holding the lock.
func (t *Tree) Locked(ctx context.Context, fn func() error) error {
	unlock, err := t.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}
