package statefiles

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// failpoint marks a point where a write of strom's can be cut short: before and
// after each write, fsync, rename and removal of a state file, and where the lock
// is taken. The crash tests set STROM_TEST_KILL_AT=N and strom kills itself
// (SIGKILL: no deferred code, no buffers flushed) at the N-th point it passes, so
// that every point of every writing command is tried (cmd/strom's
// TestKillAtEveryWrite). Without the variable a failpoint costs one comparison.
func failpoint() {
	n := killAt()
	if n <= 0 || passed.Add(1) != n {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the kill arrives; nothing after this point runs
}

var (
	killAt = sync.OnceValue(func() int64 {
		n, _ := strconv.ParseInt(os.Getenv("STROM_TEST_KILL_AT"), 10, 64)
		return n
	})
	passed atomic.Int64
)
