package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// terminalCmd is the testscript command `terminal TYPED strom ARGS…`: strom runs in
// the test process with a pty as its terminal, the person's, and TYPED typed into it
// (\n is Enter). It is how a script answers strom's questions to a person, such as
// strom allow's; with ! the command is expected to fail.
func terminalCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || args[1] != "strom" {
		ts.Fatalf("usage: terminal TYPED strom ARGS…")
	}
	ptmx, tty, err := pty.Open()
	ts.Check(err)
	defer ptmx.Close()
	defer tty.Close()
	_, err = ptmx.Write([]byte(strings.ReplaceAll(args[0], `\n`, "\n")))
	ts.Check(err)
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	var stdout, stderr lockedBuffer
	s := &sys{stdin: tty, stdout: &stdout, stderr: &stderr, getenv: ts.Getenv, dir: ts.MkAbs(".")}
	code := run(context.Background(), args[2:], s)
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	if (code != 0) != neg {
		ts.Fatalf("strom %s: exit %d", strings.Join(args[2:], " "), code)
	}
}
