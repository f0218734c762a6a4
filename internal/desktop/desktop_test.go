package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeDialog puts a program called name first on PATH that writes its words, one
// to a line, into a file and then runs body; it returns the file.
func fakeDialog(t *testing.T, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake dialog is a shell script")
	}
	dir := t.TempDir()
	words := filepath.Join(dir, "words")
	script := "#!/bin/sh\nfor w in \"$@\"; do printf '%s\\n' \"$w\"; done > " + words + "\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return words
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

var q = Question{Title: "strom", Text: "The condition “x” would not start now — <b>wait</b>. Start anyway?", Yes: "Start anyway", No: "Don't start"}

func TestAskZenity(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("zenity is asked on Linux")
	}
	for _, c := range []struct {
		name, body string
		yes        bool
		err        error
	}{
		{"yes", "exit 0", true, nil},
		{"no", "exit 1", false, nil},
		{"broken", "exit 255", false, ErrNoAnswer},
	} {
		t.Run(c.name, func(t *testing.T) {
			words := fakeDialog(t, "zenity", c.body)
			yes, err := Ask(context.Background(), env(map[string]string{"DISPLAY": ":9"}), q)
			if yes != c.yes || !errors.Is(err, c.err) {
				t.Fatalf("Ask = %v, %v; want %v, %v", yes, err, c.yes, c.err)
			}
			got, _ := os.ReadFile(words)
			// The text is one word, read without markup; Enter is no.
			for _, w := range []string{"--question", "--no-markup", "--default-cancel", q.Text, q.Yes, q.No} {
				if !strings.Contains("\n"+string(got), "\n"+w+"\n") {
					t.Errorf("zenity was not given %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestAskUntilContextEnds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("zenity is asked on Linux")
	}
	words := fakeDialog(t, "zenity", "exec /bin/sleep 600")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Ask(ctx, env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"}), q)
		done <- err
	}()
	// The window is up once the dialog wrote its words; then its time runs out.
	for {
		if _, err := os.Stat(words); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Ask ended before its time: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("Ask after its time = %v, want ErrNoAnswer", err)
	}
}

func TestNoDesktop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display variables are Linux's")
	}
	fakeDialog(t, "zenity", "exit 0")
	if _, err := Ask(context.Background(), env(nil), q); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("Ask without DISPLAY = %v, want ErrNoDesktop", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Ask(context.Background(), env(map[string]string{"DISPLAY": ":9"}), q); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("Ask without a dialog program = %v, want ErrNoDesktop", err)
	}
}

func TestKdialog(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kdialog is asked on Linux")
	}
	words := fakeDialog(t, "kdialog", "exit 1")
	yes, err := Ask(context.Background(), env(map[string]string{"DISPLAY": ":9"}), q)
	if yes || err != nil {
		t.Fatalf("kdialog's no = %v, %v", yes, err)
	}
	if got, _ := os.ReadFile(words); !strings.Contains(string(got), "--warningyesno\n"+q.Text+"\n") {
		t.Errorf("kdialog's words:\n%s", got)
	}
}

// osascript is asked on macOS alone; its words and its answers are checked here.
func TestOsascriptWords(t *testing.T) {
	args := arguments("/usr/bin/osascript", q)
	if got := args[len(args)-4:]; got[0] != q.Text || got[2] != q.Yes || got[3] != q.No {
		t.Fatalf("osascript's argv = %q", got)
	}
	for _, a := range args {
		if strings.Contains(a, "Start anyway") && a != q.Yes && a != q.Text {
			t.Fatalf("the question is inside the script: %q", a)
		}
	}
	if yes, err := answer("osascript", q, "Start anyway\n", nil); !yes || err != nil {
		t.Fatalf("osascript's yes = %v, %v", yes, err)
	}
}
