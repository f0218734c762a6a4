//go:build !race

package main

// raceEnabled: this test binary, and so every strom it starts, has the race detector.
const raceEnabled = false
