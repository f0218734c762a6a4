// Command strom is a git-native harness that lets an AI agent CLI work alone through
// a queue of research tasks. This package wires flags to harness calls and nothing
// else.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// version is set with -ldflags "-X main.version=…"; buildVersion falls back to the
// module's build info.
var version = ""

func main() { os.Exit(Main()) }

// Main runs strom with the process's arguments and streams and returns the exit
// status. SIGTERM and SIGHUP cancel the context; SIGINT is delivered to the command,
// because `strom run` gives Ctrl-C its own meaning.
func Main() int {
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
