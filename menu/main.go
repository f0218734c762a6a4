package menu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/views"
	"github.com/strom-research/strom/internal/buildinfo"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Main is the program strom-menu, which strom runs in its place on a person's
// terminal: "menu" shows the research's menu (strom alone, strom menu), "setup"
// the questions of strom setup. Every choice runs the strom beside strom-menu's
// own binary (else the one on PATH) as a command of its own on this terminal, as
// if typed; a Ctrl-C meant for that command does not leave the menu. It says
// everything as strom does, "strom: " and a sentence on standard error, with
// strom's exit statuses (0 the menu was left, 1 an error, 2 a usage mistake).
// A strom of another build than its own (buildinfo.Current) that ran it is named
// on standard error, since the menu reads the research with strom-menu's own code.
func Main(args []string) int {
	getenv := os.Getenv
	p := messages.For(research.Language(getenv))
	fail := func(code int, err error) int {
		fmt.Fprintln(os.Stderr, "strom: "+p.Text(err))
		return code
	}
	version := buildinfo.Current().String()
	if caller := buildinfo.OtherCaller(version); caller != "" {
		fmt.Fprintln(os.Stderr, "strom: "+p.Say("face.other_version", messages.Args{"Program": "strom-menu", "Version": version, "Strom": caller, "Release": buildinfo.Release(caller)}))
	}
	if len(args) != 1 || (args[0] != "menu" && args[0] != "setup") {
		fmt.Fprintln(os.Stderr, "strom-menu menu|setup: strom runs it for strom menu and strom setup")
		return 2
	}
	what := "strom setup"
	if args[0] == "menu" {
		what = p.Say("refuse.the_menu")
	}
	if id := getenv("STROM_SESSION"); id != "" {
		return fail(1, errors.New(p.Say("refuse.person_only", messages.Args{"What": what, "Session": id})))
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return fail(2, errors.New(p.Say("menu.no_terminal", messages.Args{"What": what})))
	}
	dir, err := os.Getwd()
	if err != nil {
		return fail(1, err)
	}
	env := research.Env{Clock: clock.FromEnv(getenv), Getenv: getenv}
	var r *research.Research
	if args[0] == "menu" {
		r, err = research.Open(dir, env)
		if errors.Is(err, statefiles.ErrNotResearch) {
			r, err = nil, nil
		}
		if err != nil {
			return fail(1, err)
		}
		if r != nil {
			p = r.Messages()
			// As every strom command in a research does (strom app lists it).
			_ = views.Remember(context.Background(), r)
		}
	}
	// The computer's settings: menu.accessible is one of them.
	settings, _ := statefiles.LoadSettings(getenv, nil)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ints := make(chan os.Signal, 4)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	e := Env{
		Terminal:   os.Stdin,
		Out:        termsafe.Writer(os.Stdout),
		Accessible: accessibleMode(getenv, settings),
		Research:   r,
		Dir:        dir,
		Getenv:     getenv,
		Msg:        p,
		Interrupts: ints,
		Do: func(ctx context.Context, words ...string) int {
			return runStrom(p, version, ints, words)
		},
	}
	if args[0] == "setup" {
		err = Setup(ctx, e)
	} else {
		err = Run(ctx, e)
	}
	if err != nil {
		return fail(1, err)
	}
	return 0
}

// runStrom runs strom with words on this terminal and returns its exit status.
// On a terminal the command is the terminal's foreground, in a process group of its
// own: the terminal's Ctrl-C reaches it alone, never the menu, which takes the
// terminal back when it ends. Elsewhere it shares the menu's group, and the menu's
// own copy of a Ctrl-C is dropped when the command ends.
func runStrom(p *messages.Printer, version string, ints chan os.Signal, words []string) int {
	path, _ := buildinfo.Sibling("strom")
	if path == "" {
		path = "strom"
	}
	cmd := exec.Command(path, words...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	fd := int(os.Stdin.Fd())
	foreground := term.IsTerminal(fd) && ownsTerminal(fd)
	if foreground {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: fd}
	}
	err := cmd.Run()
	if foreground {
		takeTerminal(fd)
	}
	for len(ints) > 0 {
		<-ints
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	fmt.Fprintln(os.Stderr, "strom: "+p.Say("face.start", messages.Args{"Program": path, "Problem": err.Error(), "Version": buildinfo.Release(version)}))
	return 1
}

// ownsTerminal reports whether the menu's process group is the terminal's
// foreground, so that it may hand the terminal to a command and take it back.
func ownsTerminal(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// takeTerminal makes the menu's process group the terminal's foreground again. A
// group in the background that sets it is stopped by SIGTTOU unless it ignores
// the signal, as a shell does.
func takeTerminal(fd int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, unix.Getpgrp())
}
