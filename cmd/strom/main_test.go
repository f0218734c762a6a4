package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/strom-research/strom/app"
	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/menu"
	"github.com/strom-research/strom/statefiles"
)

func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "strom", "strom-app", "strom-menu":
		// A program the tests started, in the environment they gave it.
	default:
		testenv.CacheHome()
		if err := testenv.PersonFree(); err != nil {
			fmt.Fprintln(os.Stderr, "a home for the tests:", err)
			os.Exit(1)
		}
		// Every strom and agent these tests start inherits it: a -race binary
		// otherwise sleeps a second when it exits.
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	testscript.Main(m, map[string]func(){
		"strom": func() {
			code := Main()
			// STROM_TEST_COMPILED=FILE: the schemas this strom compiled, appended to
			// FILE one a line (state_memo.txtar).
			if p := os.Getenv("STROM_TEST_COMPILED"); p != "" && len(statefiles.Compiled()) > 0 {
				f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					for _, name := range statefiles.Compiled() {
						fmt.Fprintln(f, name)
					}
					f.Close()
				}
			}
			os.Exit(code)
		},
		// strom app, and strom menu and strom setup, run them in their place (face.go).
		"strom-app":  func() { os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) },
		"strom-menu": func() { os.Exit(menu.Main(os.Args[1:])) },
	})
}

// TestScripts runs the end-to-end tests in testdata/script: the strom binary (this
// test binary re-executed) against real git repos in temporary folders.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Setenv("HOME", home)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			e.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_AUTHOR_DATE", "2026-11-30T09:00:00Z")
			e.Setenv("GIT_COMMITTER_DATE", "2026-11-30T09:00:00Z")
			e.Setenv("TZ", "UTC")
			// No run a script starts notifies the desktop of the person who runs
			// the tests.
			e.Setenv("DBUS_SESSION_BUS_ADDRESS", testenv.NoSessionBus)
			// A binary built with -race sleeps a second when it exits (GORACE's
			// atexit_sleep_ms); every strom a script runs would pay for it.
			e.Setenv("GORACE", "atexit_sleep_ms=0")
			e.Setenv("STROM_TEST_TIME_BASE", "2026-11-30T09:00:00Z")
			gitconfig := "[user]\n\tname = Test Person\n\temail = person@example.com\n[init]\n\tdefaultBranch = main\n"
			return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"terminal":    terminalCmd,
			"speaks":      speaksCmd,
			"wholly":      whollyCmd,
			"editinplace": editInPlaceCmd,
			"jsonkeys":    jsonKeysCmd,
			"sleepms": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(args[0] + "ms")
				ts.Check(err)
				time.Sleep(d)
			},
			"timeorigin": func(ts *testscript.TestScript, neg bool, args []string) {
				// timeorigin: the scaled test clock of every later strom process starts now,
				// so the run and the agent's strom commands agree on the time.
				ts.Setenv("STROM_TEST_TIME_ORIGIN", time.Now().Format(time.RFC3339Nano))
			},
			"pathwithout": func(ts *testscript.TestScript, neg bool, args []string) {
				// pathwithout NAME: PATH as on a computer where the program NAME is not
				// installed; a folder that holds it is replaced by links to its other programs.
				var keep []string
				for i, dir := range filepath.SplitList(ts.Getenv("PATH")) {
					if _, err := os.Stat(filepath.Join(dir, args[0])); err != nil {
						keep = append(keep, dir)
						continue
					}
					shadow := ts.MkAbs(".path-" + itoa(i))
					ts.Check(os.MkdirAll(shadow, 0o755))
					entries, err := os.ReadDir(dir)
					ts.Check(err)
					for _, e := range entries {
						if e.Name() != args[0] {
							ts.Check(os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(shadow, e.Name())))
						}
					}
					keep = append(keep, shadow)
				}
				ts.Setenv("PATH", strings.Join(keep, string(os.PathListSeparator)))
			},
			"readonly": func(ts *testscript.TestScript, neg bool, args []string) {
				// readonly DIR: no process of the test can make a file in DIR, not even
				// root (chattr +i then); undone when the script ends, or by readonly -undo DIR.
				undo := len(args) == 2 && args[0] == "-undo"
				dir := ts.MkAbs(args[len(args)-1])
				set := func(on bool) error {
					if os.Geteuid() != 0 {
						mode := os.FileMode(0o755)
						if on {
							mode = 0o555
						}
						return os.Chmod(dir, mode)
					}
					flag := "-i"
					if on {
						flag = "+i"
					}
					out, err := exec.Command("chattr", flag, dir).CombinedOutput()
					if err != nil {
						return fmt.Errorf("chattr %s %s: %v: %s", flag, dir, err, out)
					}
					return nil
				}
				if undo {
					ts.Check(set(false))
					return
				}
				ts.Check(set(true))
				ts.Defer(func() { _ = set(false) })
			},
			"gone": goneCmd,
			"grepcount": func(ts *testscript.TestScript, neg bool, args []string) {
				// grepcount N PATTERN FILE: the file has exactly N lines containing PATTERN.
				data := ts.ReadFile(args[2])
				n := 0
				for _, l := range strings.Split(data, "\n") {
					if strings.Contains(l, args[1]) {
						n++
					}
				}
				if want := args[0]; want != itoa(n) {
					ts.Fatalf("%s: %d lines contain %q, want %s", args[2], n, args[1], want)
				}
			},
		},
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// goneCmd: gone PIDFILE... no process whose pid a file holds still runs; a process
// strom killed is given up to 10 s to end. One that still runs is killed, so that a
// failing script leaves nothing behind.
func goneCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: gone PIDFILE...")
	}
	for _, f := range args {
		pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(f)))
		ts.Check(err)
		deadline := time.Now().Add(10 * time.Second)
		for testenv.Running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if testenv.Running(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			ts.Fatalf("process %d (from %s) still runs after strom ended", pid, f)
		}
	}
}

// editInPlaceCmd: editinplace [-keeptime] FILE N OLD NEW writes NEW over the N-th
// OLD in FILE where it lies, as an editor that saves in place or os.pwrite does:
// the same file, the same size (OLD and NEW are of one length); -keeptime sets
// the modification time back as it was, so only the change time tells.
func editInPlaceCmd(ts *testscript.TestScript, neg bool, args []string) {
	keep := len(args) > 0 && args[0] == "-keeptime"
	if keep {
		args = args[1:]
	}
	if neg || len(args) != 4 || len(args[2]) != len(args[3]) {
		ts.Fatalf("usage: editinplace [-keeptime] FILE N OLD NEW (OLD and NEW of one length)")
	}
	path := ts.MkAbs(args[0])
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	fi, err := os.Stat(path)
	ts.Check(err)
	data, err := os.ReadFile(path)
	ts.Check(err)
	at := -1
	for i, from := 0, 0; i < n; i++ {
		j := bytes.Index(data[from:], []byte(args[2]))
		if j < 0 {
			ts.Fatalf("%s has fewer than %d of %q", args[0], n, args[2])
		}
		at, from = from+j, from+j+len(args[2])
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	ts.Check(err)
	_, err = f.WriteAt([]byte(args[3]), int64(at))
	ts.Check(err)
	ts.Check(f.Close())
	if keep {
		ts.Check(os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	}
}
