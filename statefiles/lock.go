package statefiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
//
// A change a killed strom left half written is completed first (journal.go), so
// every holder of the lock sees the state whole.
func (t *Tree) Lock(ctx context.Context) (unlock func(), err error) {
	release, err := LockFile(ctx, t.Path(RunDir, "lock"), t.rel(RunDir, "lock"))
	if err != nil {
		return nil, err
	}
	failpoint()
	t.locked.Store(true)
	if err := t.finishJournal(); err != nil {
		t.locked.Store(false)
		release()
		return nil, err
	}
	return func() { t.locked.Store(false); release() }, nil
}

// LockFile takes an exclusive flock on path, creating the file and its folder,
// waiting up to LockWait for another process to let go; shown names the file in
// errors. The lock dies with the process.
func LockFile(ctx context.Context, path, shown string) (unlock func(), err error) {
	f, err := openLock(path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", shown, err)
	}
	deadline := time.Now().Add(LockWait)
	wait := time.Millisecond
	for {
		ok, err := tryFlock(f)
		if ok {
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", shown, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, lockedError(shown, LockWait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", shown, ctx.Err())
		case <-time.After(wait):
		}
		if wait < 20*time.Millisecond {
			wait *= 2
		}
	}
}

// TryLockFile takes the flock on path at once if no other process holds it; held
// reports that one does. The file and its folder are created.
func TryLockFile(path string) (unlock func(), held bool, err error) {
	f, err := openLock(path)
	if err != nil {
		return nil, false, err
	}
	ok, err := tryFlock(f)
	if !ok {
		f.Close()
		return nil, err == nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, false, nil
}

// LockHeld reports whether another process holds path's exclusive flock right now.
// It looks with a shared lock, let go at once: lookers never stand in each other's
// way, and a holder's exclusive lock is all they can see.
func LockHeld(path string) (bool, error) {
	f, err := OpenRead(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	switch {
	case err == nil:
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return false, nil
	case errors.Is(err, unix.EWOULDBLOCK):
		return true, nil
	}
	return false, err
}

func openLock(path string) (*os.File, error) {
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// tryFlock takes f's lock without waiting: false and no error when another process
// holds it.
func tryFlock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EWOULDBLOCK) || errors.Is(err, unix.EINTR):
		return false, nil
	}
	return false, err
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
