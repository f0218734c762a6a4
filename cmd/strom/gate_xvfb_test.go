package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// desktopTools finds the programs the desktop test drives — Xvfb, zenity and
// xdotool, which .ci/run installs from Debian. Without CI a missing one skips the
// test, saying why.
func desktopTools(t *testing.T) {
	t.Helper()
	for _, name := range []string{"Xvfb", "zenity", "xdotool"} {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no %s on PATH: .ci/run installs xvfb, zenity and xdotool for the desktop window's test", name)
			}
			t.Skipf("no %s on PATH: apt-get install xvfb zenity xdotool runs the desktop window's test", name)
		}
	}
}

// xvfb starts a virtual X display for the test and returns its DISPLAY. Xvfb
// writes the display's number when it takes connections (-displayfd).
func xvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	n, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		t.Fatalf("Xvfb did not say its display: %q, %v", line, err)
	}
	return ":" + strconv.Itoa(n)
}

// TestStartAnywayDesktopWindow: a run started with no terminal on a desktop asks
// "Start anyway?" in a real window (zenity under Xvfb, R7.4.1), which a person
// answers with the mouse or Enter. With STROM_SCREENSHOT_WINDOW set, the window is
// saved there as a picture (docs/start-anyway-window.png).
func TestStartAnywayDesktopWindow(t *testing.T) {
	desktopTools(t)
	for _, answer := range []string{"yes", "enter"} {
		t.Run(answer, func(t *testing.T) {
			gateHome(t, "fake stop")
			display := xvfb(t)
			t.Setenv("DISPLAY", display)
			repo := t.TempDir()
			quietIn(t, repo, "init", "--agent", "demo")
			quietIn(t, repo, "task", "add", "First task")

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			var code int
			var out string
			go func() {
				defer close(done)
				defer cancel()
				code, out = runAway(t, repo)
			}()
			// The window, found by its title once it is shown; the search ends
			// with the run.
			found, err := exec.CommandContext(ctx, "xdotool", "search", "--sync", "--onlyvisible", "--name", "strom: "+filepath.Base(repo)).Output()
			if err != nil {
				<-done
				t.Fatalf("no window was shown: %v\n%s", err, out)
			}
			win := strings.Fields(string(found))[0]
			if shot := os.Getenv("STROM_SCREENSHOT_WINDOW"); shot != "" && answer == "yes" {
				if b, err := exec.Command("import", "-window", win, shot).CombinedOutput(); err != nil {
					t.Errorf("screenshot: %v: %s", err, b)
				}
			}
			// Pressed until the window is gone: a window just mapped may not take
			// the first press.
			for gone := false; !gone; {
				var press *exec.Cmd
				if answer == "yes" {
					geo, err := exec.Command("xdotool", "getwindowgeometry", "--shell", win).Output()
					if err != nil {
						break
					}
					w, h := shellNumber(string(geo), "WIDTH"), shellNumber(string(geo), "HEIGHT")
					// "Start anyway" is the right-hand button at the window's foot.
					press = exec.Command("xdotool", "mousemove", "--window", win, strconv.Itoa(w-71), strconv.Itoa(h-25), "click", "1")
				} else {
					// Enter, typed as a person types it, into the window in focus.
					press = exec.Command("xdotool", "windowfocus", win, "key", "Return")
				}
				_ = press.Run()
				select {
				case <-done:
					gone = true
				case <-time.After(200 * time.Millisecond):
					gone = exec.Command("xdotool", "search", "--name", "strom: "+filepath.Base(repo)).Run() != nil
				}
			}
			<-done
			want := []string{"· no terminal: “Start anyway?” is asked in a window on the desktop until", "· answered in the window on the desktop: start anyway", "1 session · stopped: done"}
			if answer == "enter" {
				want = []string{"· answered in the window on the desktop: don't start", "0 sessions · stopped: not started — the condition “fake stop”: enough for today"}
			}
			if code != 0 {
				t.Errorf("exit %d:\n%s", code, out)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// shellNumber reads KEY=N from xdotool's --shell output.
func shellNumber(out, key string) int {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
