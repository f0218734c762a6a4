// Package desktop asks a person a question in a window on their desktop: the
// system window of R7.4.1, for a run an agent started where no terminal reaches a
// person. It uses the dialog program the desktop ships (zenity or kdialog on
// Linux, osascript on macOS) and nothing of its own.
package desktop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Question is a yes-or-no question; No is the default button, so that a window
// dismissed with Enter or Escape answers no.
type Question struct {
	Title, Text string
	Yes, No     string // the buttons' labels
}

// ErrNoDesktop means there is no desktop to show a window on, or no dialog
// program on it: no one can be asked this way.
var ErrNoDesktop = errors.New("no desktop window can be shown here")

// ErrNoAnswer means the window was shown and closed without an answer: its time
// ran out (ctx), or the dialog program failed.
var ErrNoAnswer = errors.New("the window was not answered")

// Dialog is a program that can show q on this desktop, "" when none can.
func Dialog(getenv func(string) string, goos string) string {
	switch goos {
	case "darwin":
		if path, err := exec.LookPath("osascript"); err == nil {
			return path
		}
	case "linux", "freebsd", "openbsd", "netbsd":
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return ""
		}
		for _, name := range []string{"zenity", "kdialog"} {
			if path, err := exec.LookPath(name); err == nil {
				return path
			}
		}
	}
	return ""
}

// Ask shows q until the person answers or ctx ends. The window is closed when ctx
// ends, which is ErrNoAnswer; a window the person closed by its frame answers no,
// as its default button does. Without a dialog program it returns ErrNoDesktop at
// once.
func Ask(ctx context.Context, getenv func(string) string, q Question) (yes bool, err error) {
	program := Dialog(getenv, runtime.GOOS)
	if program == "" {
		return false, ErrNoDesktop
	}
	cmd := exec.CommandContext(ctx, program, arguments(program, q)...)
	// The dialog is the only child; a dialog that ignores its kill still lets the
	// run go on.
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return false, ErrNoAnswer
	}
	return answer(program, q, out.String(), runErr)
}

// arguments are the dialog program's words for q. The text is given as plain text:
// no markup of zenity's, no AppleScript of osascript's is read from it.
func arguments(program string, q Question) []string {
	switch base(program) {
	case "osascript":
		return []string{
			"-e", "on run argv",
			"-e", "display dialog (item 1 of argv) with title (item 2 of argv) buttons {item 4 of argv, item 3 of argv} default button 1 cancel button 1 with icon caution",
			"-e", "return button returned of result",
			"-e", "end run",
			q.Text, q.Title, q.Yes, q.No,
		}
	case "kdialog":
		return []string{"--title", q.Title, "--yes-label", q.Yes, "--no-label", q.No, "--warningyesno", q.Text}
	default: // zenity
		return []string{"--question", "--title", q.Title, "--text", q.Text, "--no-markup",
			"--ok-label", q.Yes, "--cancel-label", q.No, "--default-cancel", "--width", "480"}
	}
}

// answer reads the dialog's answer from its output and exit: 0 is yes for zenity
// and kdialog, 1 is no; osascript prints the button pressed and fails on the
// cancel button (here: No).
func answer(program string, q Question, out string, runErr error) (bool, error) {
	var exit *exec.ExitError
	switch {
	case runErr == nil && base(program) == "osascript":
		return strings.TrimSpace(out) == q.Yes, nil
	case runErr == nil:
		return true, nil
	case errors.As(runErr, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	return false, fmt.Errorf("%w: %s: %v", ErrNoAnswer, base(program), runErr)
}

func base(program string) string {
	program = program[strings.LastIndexAny(program, `/\`)+1:]
	return strings.TrimSuffix(program, ".exe")
}
