package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/app"
	"github.com/strom-research/strom/harness/research"
)

// envOf reads a variable from an environment list, the last setting winning.
func envOf(env []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, kv := range env {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val
			}
		}
		return v
	}
}

// askFromApp presses Finish and stop on an in-process app over h's research, as the
// page's form does.
func askFromApp(t *testing.T, h *cliHarness) {
	t.Helper()
	srv, err := app.New("127.0.0.1:8123", app.Options{
		Roots: func() ([]string, error) { return []string{h.repo}, nil },
		Env:   research.Env{Getenv: envOf(h.env)},
		Token: "t0ken",
	})
	if err != nil {
		t.Fatal(err)
	}
	hd := srv.Handler()
	get := func() string {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = "127.0.0.1:8123"
		req.AddCookie(&http.Cookie{Name: "strom_app", Value: "t0ken"})
		rec := httptest.NewRecorder()
		hd.ServeHTTP(rec, req)
		return rec.Body.String()
	}
	var form url.Values
	deadline := time.Now().Add(30 * time.Second)
	for form == nil && time.Now().Before(deadline) {
		page := get()
		m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)">\s*<input type="hidden" name="research" value="([0-9a-f]+)">\s*<input type="hidden" name="session" value="([^"]+)">`).FindStringSubmatch(page)
		if m != nil {
			form = url.Values{"csrf": {m[1]}, "research": {m[2]}, "session": {m[3]}}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if form == nil {
		t.Fatalf("the overview never offered Finish and stop:\n%s", get())
	}
	req := httptest.NewRequest("POST", "/finish", strings.NewReader(form.Encode()))
	req.Host = "127.0.0.1:8123"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "strom_app", Value: "t0ken"})
	rec := httptest.NewRecorder()
	hd.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("Finish and stop: %d %s", rec.Code, rec.Body)
	}
}

// TestAppFinishWithoutTerminal: a run with no terminal to ask takes the app's
// request as a finish request at once (R7.3): the agent records and closes, the run
// ends by hand and starts no other session.
func TestAppFinishWithoutTerminal(t *testing.T) {
	t.Parallel()
	h := withAgent(t, watchfulAgent, "First", "Second")
	cmd := exec.Command(h.strom, "run", "--loop")
	cmd.Dir, cmd.Env = h.repo, h.env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	askFromApp(t, h)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("strom run: %v\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("strom run did not end after the app's request:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "1 session · stopped: by hand") {
		t.Errorf("run output:\n%s", out.String())
	}
	if got := h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)"); strings.TrimSpace(got) != "finish-requested" {
		t.Errorf("Strom-End = %q", got)
	}
	if got := h.git(t, "log", "-1", "--format=%b"); !strings.Contains(got, "asked to finish after") {
		t.Errorf("the agent did not record before closing:\n%s", got)
	}
}

// TestAppFinishDeclined: the run's terminal answers no: the request is dropped, the
// agent is not asked to finish and works on.
func TestAppFinishDeclined(t *testing.T) {
	t.Parallel()
	h := withAgent(t, watchfulAgent, "First")
	run := startTTYRun(t, h, "run")
	run.waitFor(t, "▶ session")
	askFromApp(t, h)
	run.waitFor(t, "The app asks this session to finish — finish it? [Y/n]")
	run.master.Write([]byte("n"))
	run.waitFor(t, "the app's request is dropped")
	time.Sleep(time.Second)
	if strings.Contains(run.text(), "Asked the session to finish") {
		t.Fatalf("a no still asked the session to finish:\n%s", run.text())
	}
	// The agent works on: Ctrl-C now asks it to finish, and it does.
	run.master.Write([]byte{3})
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, run.text())
	}
	if got := h.git(t, "log", "-1", "--format=%b"); !strings.Contains(got, "asked to finish after") {
		t.Errorf("the agent did not go on working after the no:\n%s", got)
	}
}

// TestAppFinishAskedInLanguage: the run's terminal asks the app's question in the
// person's language and takes that language's yes letter (j in German, a in Czech)
// as a yes: the agent records and closes.
func TestAppFinishAskedInLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, env, question, key, said string
	}{
		{"de", "LANG=de_DE.UTF-8", "Die App bittet diese Sitzung abzuschließen — abschließen? [J/n]", "j", "ja"},
		{"cs", "LANG=cs_CZ.UTF-8", "Aplikace žádá, aby toto sezení skončilo — ukončit ho? [A/n]", "a", "ano"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			h := withAgent(t, watchfulAgent, "First", "Second")
			h.env = append(h.env, c.env, "LC_ALL=", "LC_MESSAGES=")
			run := startTTYRun(t, h, "run", "--loop")
			run.waitFor(t, "▶")
			askFromApp(t, h)
			run.waitFor(t, c.question)
			run.master.Write([]byte(c.key))
			if code := run.wait(t); code != 0 {
				t.Fatalf("exit %d:\n%s", code, run.text())
			}
			screen := run.text()
			if !strings.Contains(screen, c.question+" "+c.said+"\r\n") {
				t.Errorf("the answer %q is not said as %q:\n%s", c.key, c.said, screen)
			}
			for _, en := range []string{"The app asks", "[Y/n]", "yes\r\n", "request is dropped"} {
				if strings.Contains(screen, en) {
					t.Errorf("English %q on a %s screen:\n%s", en, c.lang, screen)
				}
			}
			if got := h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)"); strings.TrimSpace(got) != "finish-requested" {
				t.Errorf("Strom-End = %q after %q:\n%s", got, c.key, screen)
			}
		})
	}
}
