// Command strom is a git-native harness that lets an AI agent CLI work alone through
// a queue of research tasks. This package wires flags to harness calls and nothing
// else.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() { os.Exit(Main()) }

// Main runs strom with the process's arguments and streams and returns the exit
// status. SIGTERM and SIGHUP cancel the context; SIGINT is delivered to the command,
// because `strom run` gives Ctrl-C its own meaning. The commands an agent runs many
// times a session (takesNoSignal) take no signal of their own: Ctrl-C, SIGTERM and
// SIGHUP end them as they end git log, and they do not pay for the thread that
// would wait for a signal (a tenth of their CPU time).
func Main() int {
	if args := os.Args[1:]; takesNoSignal(args) {
		return run(context.Background(), args, &sys{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer cancel()
	ints := make(chan os.Signal, 4)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	return run(ctx, os.Args[1:], &sys{
		stdin:      os.Stdin,
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		getenv:     os.Getenv,
		interrupts: ints,
	})
}

// harnessMemoryLimit is the heap a run or chat aims to stay under: such a process
// lives for hours beside the agent, and the Go runtime would otherwise let its heap
// grow to twice what a big queue needs at its peak. GOMEMLIMIT overrides it.
const harnessMemoryLimit = 40 << 20

// harnessMemory sets the soft memory limit of a run or a chat.
func harnessMemory(s *sys) {
	if s.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(harnessMemoryLimit)
	}
}
