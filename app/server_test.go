package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/gates"
	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/statefiles"
)

func TestMain(m *testing.M) {
	testenv.CacheHome()
	os.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}

var testNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// newResearch makes a research repo with the demo agent and the given tasks.
func newResearch(t *testing.T, titles ...string) *research.Research {
	t.Helper()
	dir := t.TempDir()
	env := research.Env{Clock: clock.NewFake(testNow), Getenv: func(k string) string {
		switch k {
		case "HOME", "XDG_CONFIG_HOME":
			return dir + "/.home"
		}
		return ""
	}}
	root := filepath.Join(dir, "research")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := mode.Init(context.Background(), root, mode.InitOptions{Agent: "demo"}, env,
		func(context.Context, *gitrepo.Repo) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range titles {
		if _, err := queue.AddTask(context.Background(), r, title, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// working makes r look as a live run with a session at work on T-1: run.json, and
// the run lock held by this process.
func working(t *testing.T, r *research.Research, session string) {
	t.Helper()
	unlock, held, err := statefiles.TryLockFile(r.Tree.Path(statefiles.RunDir, "run.lock"))
	if err != nil || held {
		t.Fatalf("take the run lock: held %v, %v", held, err)
	}
	t.Cleanup(unlock)
	ri := &runfiles.RunInfo{PID: os.Getpid(), Host: "test", Started: testNow, Session: session, Task: "T-1", Agent: "demo",
		SessionAt: testNow, Deadline: testNow.Add(69 * time.Second), Minutes: 60}
	if err := runfiles.SaveRun(r, ri); err != nil {
		t.Fatal(err)
	}
}

func newServer(t *testing.T, roots ...string) (*Server, http.Handler) {
	t.Helper()
	s, err := New("127.0.0.1:8123", Options{
		Roots: func() ([]string, error) { return roots, nil },
		Env:   research.Env{Clock: clock.NewFake(testNow), Getenv: func(string) string { return "" }},
		Lang:  "en",
		Token: "secret-token",
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, s.Handler()
}

// do sends a request with the server's Host; cookie "" sends none.
func do(h http.Handler, method, target, cookie string, form url.Values, header map[string]string) *httptest.ResponseRecorder {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1:8123"
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: cookieName, Value: cookie})
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestGuard(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "Find Anna")
	_, h := newServer(t, r.Tree.Root)
	cases := []struct {
		name   string
		target string
		cookie string
		host   string
		want   int
	}{
		{"no token", "/", "", "", http.StatusForbidden},
		{"wrong token", "/?token=guess", "", "", http.StatusForbidden},
		{"wrong cookie", "/", "guess", "", http.StatusForbidden},
		{"token in cookie", "/", "secret-token", "", http.StatusOK},
		{"token in query", "/?token=secret-token", "", "", http.StatusSeeOther},
		{"rebinding host", "/", "secret-token", "attacker.example:8123", http.StatusForbidden},
		{"other port", "/", "secret-token", "127.0.0.1:9999", http.StatusForbidden},
		{"no port", "/", "secret-token", "127.0.0.1", http.StatusForbidden},
		{"localhost", "/", "secret-token", "localhost:8123", http.StatusOK},
		{"static without token", "/static/app.css", "", "", http.StatusForbidden},
		{"static", "/static/app.css", "secret-token", "", http.StatusOK},
		{"dot-dot is cleaned away", "/static/../server.go", "secret-token", "", http.StatusTemporaryRedirect},
		{"no source", "/server.go", "secret-token", "", http.StatusNotFound},
		{"no asset outside static", "/static/../assets/page.html", "secret-token", "", http.StatusTemporaryRedirect},
		{"no template", "/static/page.html", "secret-token", "", http.StatusNotFound},
		{"no other file", "/page.html", "secret-token", "", http.StatusNotFound},
		{"events without token", "/events", "", "", http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{}
			if c.host != "" {
				hdr["Host"] = c.host
			}
			rec := do(h, "GET", c.target, c.cookie, nil, hdr)
			if rec.Code != c.want {
				t.Fatalf("GET %s: %d, want %d: %s", c.target, rec.Code, c.want, rec.Body)
			}
		})
	}
}

func TestTokenBecomesCookie(t *testing.T) {
	t.Parallel()
	r := newResearch(t)
	_, h := newServer(t, r.Tree.Root)
	rec := do(h, "GET", "/?token=secret-token", "", nil, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
		t.Fatalf("first visit: %d to %q, want 303 to /", rec.Code, rec.Header().Get("Location"))
	}
	cs := rec.Result().Cookies()
	if len(cs) != 1 || cs[0].Name != cookieName || cs[0].Value != "secret-token" || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie: %+v, want HttpOnly SameSite=Strict %s", cs, cookieName)
	}
}

func TestPageEscapesTexts(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "<script>alert(1)</script>", `"><img src=x onerror=alert(2)>`)
	_, h := newServer(t, r.Tree.Root)
	rec := do(h, "GET", "/", "secret-token", nil, nil)
	body := rec.Body.String()
	for _, raw := range []string{"<script>alert(1)</script>", "<img src=x"} {
		if strings.Contains(body, raw) {
			t.Errorf("the page carries %q unescaped", raw)
		}
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the title is not shown as text:\n%s", body)
	}
}

func TestPageStates(t *testing.T) {
	t.Parallel()
	t.Run("no run", func(t *testing.T) {
		t.Parallel()
		r := newResearch(t, "Find Anna")
		_, h := newServer(t, r.Tree.Root)
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		for _, want := range []string{`data-state="none"`, "No run.", `data-mode="research"`, "Find Anna"} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if strings.Contains(body, `action="/finish"`) {
			t.Error("Finish and stop is offered without a working session")
		}
	})
	t.Run("working", func(t *testing.T) {
		t.Parallel()
		r := newResearch(t, "Find Anna")
		working(t, r, "20261130T090000Z-abcd")
		_, h := newServer(t, r.Tree.Root)
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		for _, want := range []string{`data-state="working"`, "20261130T090000Z-abcd", `action="/finish"`, "Finish and stop", "1 min"} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %q:\n%s", want, body)
			}
		}
	})
	t.Run("paused", func(t *testing.T) {
		t.Parallel()
		r := newResearch(t, "Find Anna")
		working(t, r, "")
		if err := runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) {
			ri.Session, ri.Task = "", ""
			ri.PausedTill, ri.PauseWhy = testNow.Add(90*time.Minute), "lead 3.0 < 10 needed"
		}); err != nil {
			t.Fatal(err)
		}
		_, h := newServer(t, r.Tree.Root)
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		want := "Paused, resumes at " + testNow.Add(90*time.Minute).Local().Format("15:04")
		if !strings.Contains(body, want) || !strings.Contains(body, "lead 3.0 &lt; 10 needed") {
			t.Errorf("page lacks %q and the reason:\n%s", want, body)
		}
		if strings.Contains(body, `action="/finish"`) {
			t.Error("Finish and stop is offered while the run waits for the condition")
		}
	})
	t.Run("archive", func(t *testing.T) {
		t.Parallel()
		r := newResearch(t, "Find Anna")
		if _, err := mode.Switch(context.Background(), r, statefiles.ModeArchive, func(string) error { return nil }, nil, func(string) {}, session.RecoverCrash); err != nil {
			t.Fatal(err)
		}
		_, h := newServer(t, r.Tree.Root)
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		if !strings.Contains(body, `data-mode="archive"`) || !strings.Contains(body, ">Archive<") {
			t.Errorf("an archive is not shown as Archive:\n%s", body)
		}
	})
	t.Run("gone", func(t *testing.T) {
		t.Parallel()
		r := newResearch(t)
		gone := filepath.Join(t.TempDir(), "moved-away")
		forgot := ""
		s, err := New("127.0.0.1:8123", Options{
			Roots:  func() ([]string, error) { return []string{gone, r.Tree.Root}, nil },
			Forget: func(root string) { forgot = root },
			Env:    research.Env{Clock: clock.NewFake(testNow)},
			Token:  "secret-token",
		})
		if err != nil {
			t.Fatal(err)
		}
		body := do(s.Handler(), "GET", "/", "secret-token", nil, nil).Body.String()
		if !strings.Contains(body, gone+" is no longer a research") || forgot != gone {
			t.Errorf("a moved research does not drop out with a note (forgot %q):\n%s", forgot, body)
		}
	})
}

func TestFinish(t *testing.T) {
	t.Parallel()
	const session = "20261130T090000Z-abcd"
	setup := func(t *testing.T) (*research.Research, *Server, http.Handler) {
		r := newResearch(t, "Find Anna")
		working(t, r, session)
		s, h := newServer(t, r.Tree.Root)
		return r, s, h
	}
	asked := func(r *research.Research) bool {
		_, err := os.Stat(r.Tree.Path(statefiles.RunDir, "app-finish-"+session))
		return err == nil
	}
	t.Run("get is refused", func(t *testing.T) {
		t.Parallel()
		r, _, h := setup(t)
		if rec := do(h, "GET", "/finish", "secret-token", nil, nil); rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("GET /finish: %d, want 405", rec.Code)
		}
		if asked(r) {
			t.Error("a GET asked the run to finish")
		}
	})
	t.Run("no csrf", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		form := url.Values{"research": {researchID(r.Tree.Root)}, "session": {session}}
		if rec := do(h, "POST", "/finish", "secret-token", form, nil); rec.Code != http.StatusForbidden {
			t.Errorf("POST without csrf: %d, want 403", rec.Code)
		}
		form.Set("csrf", s.csrf[:len(s.csrf)-1]+"0")
		if rec := do(h, "POST", "/finish", "secret-token", form, nil); rec.Code != http.StatusForbidden {
			t.Errorf("POST with a wrong csrf: %d, want 403", rec.Code)
		}
		if asked(r) {
			t.Error("a request without the CSRF token asked the run to finish")
		}
	})
	t.Run("other origin", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		form := url.Values{"csrf": {s.csrf}, "research": {researchID(r.Tree.Root)}, "session": {session}}
		if rec := do(h, "POST", "/finish", "secret-token", form, map[string]string{"Origin": "http://attacker.example"}); rec.Code != http.StatusForbidden {
			t.Errorf("POST from another origin: %d, want 403", rec.Code)
		}
		if asked(r) {
			t.Error("another origin asked the run to finish")
		}
	})
	t.Run("no token", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		form := url.Values{"csrf": {s.csrf}, "research": {researchID(r.Tree.Root)}, "session": {session}}
		if rec := do(h, "POST", "/finish", "", form, nil); rec.Code != http.StatusForbidden {
			t.Errorf("POST without the token: %d, want 403", rec.Code)
		}
		if asked(r) {
			t.Error("a request without the token asked the run to finish")
		}
	})
	t.Run("ended session", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		form := url.Values{"csrf": {s.csrf}, "research": {researchID(r.Tree.Root)}, "session": {"20261130T080000Z-0000"}}
		if rec := do(h, "POST", "/finish", "secret-token", form, nil); rec.Code != http.StatusConflict {
			t.Errorf("POST for a session that ended: %d, want 409", rec.Code)
		}
		if asked(r) {
			t.Error("a request for another session asked the working one to finish")
		}
	})
	t.Run("asks", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		form := url.Values{"csrf": {s.csrf}, "research": {researchID(r.Tree.Root)}, "session": {session}}
		rec := do(h, "POST", "/finish", "secret-token", form, map[string]string{"Origin": "http://127.0.0.1:8123"})
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("POST /finish: %d, want 303: %s", rec.Code, rec.Body)
		}
		if !asked(r) {
			t.Fatal("the run was not asked")
		}
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		if !strings.Contains(body, `data-finish="asked"`) || strings.Contains(body, `action="/finish"`) {
			t.Errorf("the page does not show the request pending:\n%s", body)
		}
		if err := runfiles.RequestFinish(r, session, "the app"); err != nil {
			t.Fatal(err)
		}
		body = do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		if !strings.Contains(body, `data-finish="pending"`) {
			t.Errorf("the page does not show the finish request:\n%s", body)
		}
	})
}

func TestEvents(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "Find Anna")
	s, err := New("127.0.0.1:8123", Options{
		Roots: func() ([]string, error) { return []string{r.Tree.Root}, nil },
		Env:   research.Env{Clock: clock.NewFake(testNow)},
		Token: "secret-token",
		Poll:  10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	req.Host = "127.0.0.1:8123"
	req.AddCookie(&http.Cookie{Name: cookieName, Value: "secret-token"})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	buf := make([]byte, 4096)
	read := func() string {
		var got strings.Builder
		for !strings.Contains(got.String(), "\n\n") {
			n, err := resp.Body.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				t.Fatalf("read events: %v (%q)", err, got.String())
			}
		}
		return got.String()
	}
	if first := read(); !strings.HasPrefix(first, "event: update\n") {
		t.Fatalf("first event %q", first)
	}
	if _, err := queue.AddTask(context.Background(), r, "Find Jan", "", ""); err != nil {
		t.Fatal(err)
	}
	if next := read(); !strings.HasPrefix(next, "event: update\n") {
		t.Fatalf("after a change: %q", next)
	}
}

func TestListen(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.5:0", "example.com:80", ":0", "nonsense"} {
		if l, err := Listen(addr); err == nil {
			l.Close()
			t.Errorf("Listen(%q) served a non-loopback address", addr)
		}
	}
	l, err := Listen("")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !strings.HasPrefix(l.Addr().String(), "127.0.0.1:") {
		t.Errorf("default address %s", l.Addr())
	}
}

// TestPageLanguages: the page speaks the messages setting's language, with the
// seed's words for the overview, Finish and stop and Paused.
func TestPageLanguages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lang  string
		wants []string
	}{
		{"en", []string{"Research overview", "Finish and stop", "Time left", ">Research<"}},
		{"de", []string{"Forschungsübersicht", "Abschließen und beenden", "Verbleibende Zeit", ">Forschung<", ">begonnen<"}},
		{"cs", []string{"Přehled výzkumu", "Dokončit a skončit", "Zbývá", ">Výzkum<", ">rozdělaný<"}},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			r := newResearch(t, "Find Anna")
			working(t, r, "20261130T090000Z-abcd")
			if _, err := queue.ChangeTask(context.Background(), r, "T-1", func(t *statefiles.Task) error {
				t.State, t.Session = statefiles.Started, "20261130T090000Z-abcd"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			s, err := New("127.0.0.1:8123", Options{
				Roots: func() ([]string, error) { return []string{r.Tree.Root}, nil },
				Env:   research.Env{Clock: clock.NewFake(testNow)},
				Lang:  c.lang,
				Token: "secret-token",
			})
			if err != nil {
				t.Fatal(err)
			}
			body := do(s.Handler(), "GET", "/", "secret-token", nil, nil).Body.String()
			if !strings.Contains(body, `<html lang="`+c.lang+`">`) {
				t.Errorf("html lang is not %s", c.lang)
			}
			for _, w := range c.wants {
				if !strings.Contains(body, w) {
					t.Errorf("%s page lacks %q:\n%s", c.lang, w, body)
				}
			}
		})
	}
}

// TestPageWaitingForArchive: a run that waits for an archive says which and when it
// asks again, and offers no Finish and stop.
func TestPageWaitingForArchive(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "Find Anna")
	working(t, r, "")
	if err := runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) {
		ri.Session, ri.Task = "", ""
		ri.PausedTill, ri.PauseWhy, ri.WaitArchive = testNow.Add(5*time.Minute), "the archive “matriky” does not answer", "matriky"
	}); err != nil {
		t.Fatal(err)
	}
	_, h := newServer(t, r.Tree.Root)
	body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
	want := "Waiting for the archive “matriky”, asks it again at " + testNow.Add(5*time.Minute).Local().Format("15:04")
	if !strings.Contains(body, `data-state="archive"`) || !strings.Contains(body, want) {
		t.Errorf("page lacks %q:\n%s", want, body)
	}
	if strings.Contains(body, `action="/finish"`) {
		t.Error("Finish and stop is offered while the run waits for an archive")
	}
}

// TestFragment: /overview is the overview without the page around it, what the
// page's script puts in place; it needs the token like every route.
func TestFragment(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "Find Anna")
	_, h := newServer(t, r.Tree.Root)
	rec := do(h, "GET", "/overview", "secret-token", nil, nil)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, `<section class="research"`) || strings.Contains(body, "<html") {
		t.Errorf("/overview: %d\n%s", rec.Code, body)
	}
	if rec := do(h, "GET", "/overview", "", nil, nil); rec.Code != http.StatusForbidden {
		t.Errorf("/overview without the token: %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Security-Policy"); !strings.Contains(ct, "default-src 'none'") {
		t.Errorf("CSP %q", ct)
	}
}

// TestPageAnswersAndUsage: the condition's last answers come from gate.log, newest
// first, and the week's Claude usage from the agent's last report.
func TestPageAnswersAndUsage(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "Find Anna")
	for i, reason := range []string{"lead 12.0 ≥ 10 needed", "lead 3.5 < 10 needed"} {
		e := gates.LogEntry{When: testNow.Add(time.Duration(i) * time.Minute), Gate: "claude-usage", Args: []string{"10"}, Verdict: "go", Reason: reason, Did: "go"}
		if i == 1 {
			e.Verdict, e.Did = "wait", "wait"
		}
		if err := gates.AppendLog(r.Tree, e); err != nil {
			t.Fatal(err)
		}
	}
	u := claudeusage.Usage{WeekUsed: 41, WeekResetsAt: testNow.Add(72 * time.Hour), FiveHourUsed: 7, Source: "the agent's report", At: testNow}
	if err := gates.SaveReport(r.Tree, "", u); err != nil {
		t.Fatal(err)
	}
	_, h := newServer(t, r.Tree.Root)
	body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
	waitAt := strings.Index(body, "wait — lead 3.5 &lt; 10 needed")
	goAt := strings.Index(body, "go — lead 12.0 ≥ 10 needed")
	if waitAt < 0 || goAt < 0 || waitAt > goAt {
		t.Errorf("the condition's answers are missing or not newest first:\n%s", body)
	}
	if !strings.Contains(body, "41 % of the week used") || !strings.Contains(body, "five hours: 7 %") {
		t.Errorf("the week's usage is missing:\n%s", body)
	}
}

// TestPageSessionModel: the last sessions name the agent, its client's version and
// the model where the session's commit does.
func TestPageSessionModel(t *testing.T) {
	t.Parallel()
	r := newResearch(t, "Find Anna")
	msg := gitrepo.Message{Subject: "strom: T-1 Find Anna — closed", Body: "found", Trailers: []gitrepo.Trailer{
		{Key: research.TrailerSession, Value: "20261130T090000Z-abcd"},
		{Key: research.TrailerTask, Value: "T-1"},
		{Key: research.TrailerEnd, Value: "closed"},
		{Key: research.TrailerAgent, Value: "claude"},
		{Key: research.TrailerAgentVersion, Value: "2.1.197"},
		{Key: research.TrailerModel, Value: "claude-sonnet-4-5-20250929"},
		{Key: research.TrailerRecords, Value: "1"},
	}}
	if err := r.Tree.Locked(context.Background(), func() error {
		_, err := r.CommitLocked(context.Background(), msg)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_, h := newServer(t, r.Tree.Root)
	body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
	for _, want := range []string{"Agent and model", `<td class="agent" data-label="Agent and model">claude 2.1.197 · <span class="model">claude-sonnet-4-5-20250929</span></td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
}

// TestStartAnyway: a run with no terminal asks "Start anyway?" on the overview too
// (R7.4.1); the page shows it while an overview watches, and its buttons answer it
// under the same token, Origin and CSRF rules as Finish and stop.
func TestStartAnyway(t *testing.T) {
	t.Parallel()
	const question = "The condition “office-hours” would not start now — outside office hours. Start anyway?"
	setup := func(t *testing.T) (*research.Research, *Server, http.Handler) {
		r := newResearch(t, "Find Anna")
		working(t, r, "")
		s, h := newServer(t, r.Tree.Root)
		return r, s, h
	}
	answered := func(r *research.Research) (bool, bool) { return runfiles.StartAnswer(r) }
	form := func(s *Server, r *research.Research, answer string) url.Values {
		return url.Values{"csrf": {s.csrf}, "research": {researchID(r.Tree.Root)}, "answer": {answer}}
	}

	t.Run("the page watches and shows the question", func(t *testing.T) {
		t.Parallel()
		r, _, h := setup(t)
		if runfiles.Watched(r) {
			t.Fatal("a research no overview showed counts as watched")
		}
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		if strings.Contains(body, `action="/start-anyway"`) {
			t.Fatalf("the page asks with no question pending:\n%s", body)
		}
		if !runfiles.Watched(r) {
			t.Fatal("the overview did not mark the research as watched")
		}
		if err := runfiles.AskStart(r, question, testNow.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		body = do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		for _, want := range []string{`data-state="question"`, "outside office hours. Start anyway?", `action="/start-anyway"`, `value="yes"`, `value="no"`, "Don&#39;t start", testNow.Add(2 * time.Minute).Local().Format("15:04")} {
			if !strings.Contains(body, want) {
				t.Errorf("the page does not show %q:\n%s", want, body)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		if err := runfiles.AskStart(r, question, testNow.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		bad := form(s, r, "yes")
		bad.Set("csrf", "wrong")
		for _, c := range []struct {
			name   string
			form   url.Values
			cookie string
			header map[string]string
			code   int
		}{
			{"no csrf", bad, "secret-token", nil, http.StatusForbidden},
			{"another origin", form(s, r, "yes"), "secret-token", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
			{"no token", form(s, r, "yes"), "", nil, http.StatusForbidden},
			{"no such answer", form(s, r, "maybe"), "secret-token", nil, http.StatusBadRequest},
		} {
			if rec := do(h, "POST", "/start-anyway", c.cookie, c.form, c.header); rec.Code != c.code {
				t.Errorf("%s: %d, want %d", c.name, rec.Code, c.code)
			}
			if _, ok := answered(r); ok {
				t.Fatalf("%s answered the question", c.name)
			}
		}
	})
	for _, answer := range []string{"yes", "no"} {
		t.Run(answer, func(t *testing.T) {
			t.Parallel()
			r, s, h := setup(t)
			if rec := do(h, "POST", "/start-anyway", "secret-token", form(s, r, answer), nil); rec.Code != http.StatusConflict {
				t.Errorf("an answer with no question pending: %d, want 409", rec.Code)
			}
			if err := runfiles.AskStart(r, question, testNow.Add(2*time.Minute)); err != nil {
				t.Fatal(err)
			}
			rec := do(h, "POST", "/start-anyway", "secret-token", form(s, r, answer), map[string]string{"Origin": "http://127.0.0.1:8123"})
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("POST /start-anyway: %d, want 303: %s", rec.Code, rec.Body)
			}
			if yes, ok := answered(r); !ok || yes != (answer == "yes") {
				t.Errorf("the run reads %v, %v; want %s", yes, ok, answer)
			}
		})
	}
}

// TestPageSinceYouLeft: the overview says how the last run ended and what to do
// next, what each of its sessions found (the records themselves, or the task's
// summary), the questions waiting with the command that answers them and the
// tasks parked with their reasons.
func TestPageSinceYouLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newResearch(t, "Find Anna", "Which Anna", "Parked task", "Summed up")
	commit := func(session, task, end string, records ...string) {
		t.Helper()
		msg := gitrepo.Message{Subject: "strom: " + task + " — " + end, Body: strings.Join(records, "\n"), Trailers: []gitrepo.Trailer{
			{Key: research.TrailerSession, Value: session},
			{Key: research.TrailerTask, Value: task},
			{Key: research.TrailerEnd, Value: end},
			{Key: research.TrailerAgent, Value: "claude"},
			{Key: research.TrailerRecords, Value: strconv.Itoa(len(records))},
		}}
		if err := r.Tree.Locked(ctx, func() error {
			_, err := r.CommitLocked(ctx, msg)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	commit("20261129T090000Z-0old", "T-1", "done", "an older finding")
	commit("20261130T090000Z-aaaa", "T-1", "done", "Register 12, page 3: baptism of Anna", "Godparents: Jan & Marie")
	commit("20261130T091000Z-bbbb", "T-4", "closed", "a record the summary stands for")
	if _, err := queue.SetSummary(ctx, r, queue.SessionRef{}, "T-4", "Anna was baptised in 1850."); err != nil {
		t.Fatal(err)
	}
	if _, err := queue.Ask(ctx, r, queue.SessionRef{}, "T-2", "Which Anna: 1850 or 1852?"); err != nil {
		t.Fatal(err)
	}
	if _, err := queue.ParkTask(ctx, r, "T-3", "the register is away"); err != nil {
		t.Fatal(err)
	}
	ri := &runfiles.RunInfo{PID: 999999, Host: "test", Started: testNow, Sessions: []string{"20261130T090000Z-aaaa", "20261130T091000Z-bbbb"},
		Ended: &runfiles.RunEnd{At: testNow.Add(time.Hour), Stop: "subscription limit", Detail: "resets 5:00 AM Tue Dec 1 (UTC)", Sessions: 2, Parked: 1, Waiting: 1}}
	if err := runfiles.SaveRun(r, ri); err != nil {
		t.Fatal(err)
	}
	_, h := newServer(t, r.Tree.Root)
	body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
	for _, want := range []string{
		"Since you left",
		`<p class="end-line" data-stop="subscription limit">2 sessions · stopped: subscription limit (resets 5:00 AM Tue Dec 1 (UTC))`,
		"next: the subscription resets 5:00 AM Tue Dec 1 (UTC); run strom run again then.",
		`<li>Register 12, page 3: baptism of Anna</li><li>Godparents: Jan &amp; Marie</li>`,
		`<p class="summary">Anna was baptised in 1850.</p>`,
		"<q>Which Anna: 1850 or 1852?</q> — <code>strom task answer T-2 &#34;…&#34;</code>",
		"T-3 Parked task: the register is away — <code>strom task unpark T-3</code>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
	for _, not := range []string{"an older finding", "a record the summary stands for"} {
		if strings.Contains(body, not) {
			t.Errorf("page shows %q, which is not the last run's or stands behind a summary:\n%s", not, body)
		}
	}
	if i, j := strings.Index(body, `data-session="20261130T090000Z-aaaa"`), strings.Index(body, `data-session="20261130T091000Z-bbbb"`); i < 0 || j < i {
		t.Errorf("the run's sessions are not in the order they worked:\n%s", body)
	}
}

// TestAnswerAndUnpark: the overview answers a task's question and returns a parked
// task to the queue, as strom task answer and strom task unpark do, under the same
// token, Origin and CSRF rules as Finish and stop.
func TestAnswerAndUnpark(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := func(t *testing.T) (*research.Research, *Server, http.Handler) {
		r := newResearch(t, "Find Anna", "Which Anna", "Parked task")
		if _, err := queue.Ask(ctx, r, queue.SessionRef{}, "T-2", "Which Anna: 1850 or 1852?"); err != nil {
			t.Fatal(err)
		}
		if _, err := queue.ParkTask(ctx, r, "T-3", "the register is away"); err != nil {
			t.Fatal(err)
		}
		s, h := newServer(t, r.Tree.Root)
		return r, s, h
	}
	form := func(s *Server, r *research.Research, kv ...string) url.Values {
		v := url.Values{"csrf": {s.csrf}, "research": {researchID(r.Tree.Root)}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	state := func(t *testing.T, r *research.Research, id string) statefiles.State {
		t.Helper()
		task, err := r.Tree.FindTask(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return task.State
	}

	t.Run("the page offers both", func(t *testing.T) {
		t.Parallel()
		_, _, h := setup(t)
		body := do(h, "GET", "/", "secret-token", nil, nil).Body.String()
		for _, want := range []string{`action="/answer"`, `name="task" value="T-2"`, `action="/unpark"`, `name="task" value="T-3"`, "Return to the queue"} {
			if !strings.Contains(body, want) {
				t.Errorf("the page lacks %q:\n%s", want, body)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		bad := form(s, r, "task", "T-2", "answer", "1850")
		bad.Set("csrf", "wrong")
		for _, c := range []struct {
			name, path string
			form       url.Values
			cookie     string
			header     map[string]string
			code       int
		}{
			{"answer without csrf", "/answer", bad, "secret-token", nil, http.StatusForbidden},
			{"answer from another origin", "/answer", form(s, r, "task", "T-2", "answer", "1850"), "secret-token", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
			{"answer without the token", "/answer", form(s, r, "task", "T-2", "answer", "1850"), "", nil, http.StatusForbidden},
			{"an empty answer", "/answer", form(s, r, "task", "T-2", "answer", "  "), "secret-token", nil, http.StatusBadRequest},
			{"an answer to a task that asks nothing", "/answer", form(s, r, "task", "T-1", "answer", "1850"), "secret-token", nil, http.StatusConflict},
			{"unpark from another origin", "/unpark", form(s, r, "task", "T-3"), "secret-token", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
			{"unpark a task that is not parked", "/unpark", form(s, r, "task", "T-1"), "secret-token", nil, http.StatusConflict},
			{"a GET", "/unpark", nil, "secret-token", nil, http.StatusMethodNotAllowed},
		} {
			method := "POST"
			if c.form == nil {
				method = "GET"
			}
			if rec := do(h, method, c.path, c.cookie, c.form, c.header); rec.Code != c.code {
				t.Errorf("%s: %d, want %d: %s", c.name, rec.Code, c.code, rec.Body)
			}
		}
		if st := state(t, r, "T-2"); st != statefiles.Waiting {
			t.Errorf("T-2 is %s after refused answers, want waiting", st)
		}
		if st := state(t, r, "T-3"); st != statefiles.Parked {
			t.Errorf("T-3 is %s after refused unparks, want parked", st)
		}
	})
	t.Run("answered and unparked", func(t *testing.T) {
		t.Parallel()
		r, s, h := setup(t)
		origin := map[string]string{"Origin": "http://127.0.0.1:8123"}
		if rec := do(h, "POST", "/answer", "secret-token", form(s, r, "task", "T-2", "answer", "the one born 1850"), origin); rec.Code != http.StatusSeeOther {
			t.Fatalf("POST /answer: %d: %s", rec.Code, rec.Body)
		}
		task, err := r.Tree.FindTask(ctx, "T-2")
		if err != nil {
			t.Fatal(err)
		}
		if task.State != statefiles.Open || len(task.Questions) == 0 || task.Questions[len(task.Questions)-1].Answer != "the one born 1850" {
			t.Errorf("T-2 after the answer: %+v", task)
		}
		if rec := do(h, "POST", "/unpark", "secret-token", form(s, r, "task", "T-3"), origin); rec.Code != http.StatusSeeOther {
			t.Fatalf("POST /unpark: %d: %s", rec.Code, rec.Body)
		}
		if st := state(t, r, "T-3"); st != statefiles.Open {
			t.Errorf("T-3 is %s after unpark, want open", st)
		}
	})
}
