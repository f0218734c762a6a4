package main

import "testing"

// withoutRace marks a test whose work is strom processes started one after the
// other by the hundred — kills at every write, campaigns, the simulated night,
// several machines, the real clients — rather than goroutines within one: under
// the race detector every strom it starts runs several times slower. `make test`
// runs it in its pass without the race detector (the Makefile's SLOW); the race
// pass leaves it to that one.
func withoutRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("runs in make test's pass without the race detector")
	}
}
