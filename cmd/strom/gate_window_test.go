package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/internal/clock"
)

// personHome gives the test a person's home of its own: HOME and the config folder,
// git's identity and no config of the machine's, no session, no desktop.
func personHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Test Person", "GIT_AUTHOR_EMAIL": "person@example.com",
		"GIT_COMMITTER_NAME": "Test Person", "GIT_COMMITTER_EMAIL": "person@example.com",
		"STROM_SESSION": "", "DISPLAY": "", "WAYLAND_DISPLAY": "",
	} {
		t.Setenv(k, v)
	}
	return home
}

// gateHome is personHome with the condition program fake installed and run.gate
// set to gate; it returns the home.
func gateHome(t *testing.T, gate string) string {
	t.Helper()
	home := personHome(t)
	gateDir := filepath.Join(home, ".config", "strom", "plugins", "gates", "fake")
	if err := os.MkdirAll(gateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gateDir, "gate"), []byte(ttyGate), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"version": 1, "settings": {"run.gate": "` + gate + `"}}`
	if err := os.WriteFile(filepath.Join(home, ".config", "strom", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// zenityOnPath puts a zenity first on PATH that notes its words in a file beside it
// and runs body.
func zenityOnPath(t *testing.T, body string) (words string) {
	t.Helper()
	dir := t.TempDir()
	words = filepath.Join(dir, "words")
	script := "#!/bin/sh\nfor w in \"$@\"; do printf '%s\\n' \"$w\"; done > " + words + "\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, "zenity"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return words
}

// runAway runs strom run by hand with no terminal, as an agent or a program starts
// it, and returns its exit status and output.
func runAway(t *testing.T, repo string) (int, string) {
	t.Helper()
	var out lockedBuffer
	s := &sys{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: os.Getenv, dir: repo}
	code := run(context.Background(), []string{"run", "--agent", "command", "--", "true"}, s)
	return code, out.String()
}

// TestStartAnywayAway: a run started with no terminal (by an agent, R7.4.1) asks
// "Start anyway?" in a window on the desktop and in the app's overview; with no one
// to ask, or no answer in the condition's time, it keeps to the condition.
func TestStartAnywayAway(t *testing.T) {
	tests := []struct {
		name    string
		display bool   // DISPLAY set
		zenity  string // the fake zenity's body; "" for none on PATH
		watched bool   // an overview shows the research
		app     string // the app's answer, "" for none
		scale   bool   // the research's clock runs fast: the condition's time passes
		code    int
		want    []string
		wantNot []string
	}{
		{name: "yes in the window", display: true, zenity: "exit 0",
			want: []string{"· no terminal: “Start anyway?” is asked in a window on the desktop until", "· answered in the window on the desktop: start anyway", "1 session · stopped: done"}},
		{name: "no in the window", display: true, zenity: "exit 1",
			want: []string{"· answered in the window on the desktop: don't start", "0 sessions · stopped: not started — the condition “fake stop”: enough for today"}},
		{name: "no desktop keeps to the condition", zenity: "exit 0",
			want: []string{"0 sessions · stopped: the condition “fake stop”: enough for today"}, wantNot: []string{"asked", "answered"}},
		{name: "a window that fails keeps to the condition", display: true, zenity: "exit 255",
			want: []string{"is asked in a window", "· no answer by", "0 sessions · stopped: the condition “fake stop”: enough for today"}},
		{name: "no answer in time keeps to the condition", display: true, zenity: "exec sleep 600", scale: true,
			want: []string{"is asked in a window", "· no answer by", "0 sessions · stopped: the condition “fake stop”: enough for today"}},
		{name: "yes in the app", watched: true, app: "yes",
			want: []string{"· no terminal: “Start anyway?” is asked in strom app's overview until", "· answered in strom app: start anyway", "1 session · stopped: done"}},
		{name: "no in the app while the window waits", display: true, zenity: "exec sleep 600", watched: true, app: "no",
			want: []string{"is asked in a window on the desktop and in strom app's overview", "· answered in strom app: don't start", "stopped: not started"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gateHome(t, "fake stop")
			var words string
			if tt.zenity != "" {
				words = zenityOnPath(t, tt.zenity)
			}
			if tt.display {
				t.Setenv("DISPLAY", ":77")
			}
			repo := t.TempDir()
			quietIn(t, repo, "init", "--agent", "demo")
			quietIn(t, repo, "task", "add", "First task")
			if tt.scale {
				t.Setenv(clock.EnvScale, "20")
			}
			r, err := research.Open(repo, research.Env{Clock: clock.Real{}, Getenv: os.Getenv})
			if err != nil {
				t.Fatal(err)
			}
			if tt.watched {
				runfiles.NoteWatched(r)
			}
			answered := make(chan struct{})
			if tt.app != "" {
				go func() {
					defer close(answered)
					// As the app's button does, once the page shows the question.
					for {
						if ri, _ := runfiles.LiveRun(r); ri != nil && ri.Question != "" {
							if err := runfiles.AnswerStart(r, tt.app == "yes"); err != nil {
								t.Errorf("answer in the app: %v", err)
							}
							return
						}
						time.Sleep(20 * time.Millisecond)
					}
				}()
			} else {
				close(answered)
			}
			code, out := runAway(t, repo)
			<-answered
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("the output has %q:\n%s", w, out)
				}
			}
			if words != "" && !tt.display {
				if _, err := os.Stat(words); err == nil {
					t.Error("zenity was started with no desktop")
				}
			} else if words != "" && tt.zenity != "exit 255" {
				got, _ := os.ReadFile(words)
				for _, w := range []string{"--question", "--default-cancel", "The condition “fake stop” would not start now — enough for today. Start anyway?", "Start anyway", "Don't start"} {
					if !strings.Contains(string(got), w+"\n") {
						t.Errorf("zenity was not given %q:\n%s", w, got)
					}
				}
			}
			if ri, _ := runfiles.LoadRun(r); ri != nil && ri.Question != "" {
				t.Errorf("the question stayed in run.json: %+v", ri)
			}
		})
	}
}
