package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strom-research/strom/internal/testenv"
)

// notifyAgent asks a question on T-1 and records and finishes on any other task;
// the title, the question and the record carry the word "secret", which a
// notification without notify.details never shows.
const notifyAgent = `case "$STROM_TASK" in
T-1) strom ask "Which secret register?" ;;
*) strom record "a secret finding"; strom done ;;
esac
`

// posts is a local HTTP server that keeps the POSTs it receives.
type posts struct {
	mu  sync.Mutex
	got []string // the title, a line break, then the body
	srv *httptest.Server
}

func newPosts(t *testing.T) *posts {
	p := &posts{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		defer p.mu.Unlock()
		if r.Method != http.MethodPost {
			t.Errorf("a %s to notify.url", r.Method)
		}
		p.got = append(p.got, r.Header.Get("Title")+"\n"+string(b))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *posts) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

// userSettings writes the person's own settings file.
func (h *cliHarness) userSettings(t *testing.T, settings map[string]string) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"version": 1, "settings": settings})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(h.dir, "home", ".config", "strom")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeSetting adds a setting to the research's .strom/config.json by hand, as a
// commit from someone else would bring it.
func (h *cliHarness) treeSetting(t *testing.T, key, value string) {
	t.Helper()
	p := filepath.Join(h.repo, ".strom", "config.json")
	var c map[string]any
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	s, _ := c["settings"].(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	s[key] = value
	c["settings"] = s
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runLoop runs strom run --loop with the session bus at bus ("" = none) and
// returns its output; the run must exit 0.
func (h *cliHarness) runLoop(t *testing.T, bus string) string {
	t.Helper()
	cmd := exec.Command(h.strom, "run", "--loop")
	cmd.Dir = h.repo
	cmd.Env = append(append([]string(nil), h.env...), "DBUS_SESSION_BUS_ADDRESS="+bus, "XDG_RUNTIME_DIR="+h.dir, "STROM_SESSION=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("strom run --loop: %v\n%s", err, out)
	}
	return string(out)
}

// TestNotifyWhenItNeedsYou: a run whose session leaves a question, and the run's
// end, each show a desktop notification (a Notify call on a real session bus, seen
// by dbus-monitor) and POST to notify.url, naming the research, the task and the
// command to run next — without the task's text unless notify.details is on. A
// research's tree cannot set notify.url.
func TestNotifyWhenItNeedsYou(t *testing.T) {
	bus := testenv.SessionBus(t)
	mon := testenv.WatchNotifications(t, bus)
	srv := testenv.ServeNotifications(t, bus)
	for _, details := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "details"}[details]
		t.Run(name, func(t *testing.T) {
			h := withAgent(t, notifyAgent, "Read the secret register", "Copy the entries")
			mine, theirs := newPosts(t), newPosts(t)
			settings := map[string]string{"notify.url": mine.srv.URL + "/strom"}
			if details {
				settings["notify.details"] = "on"
			}
			h.userSettings(t, settings)
			h.treeSetting(t, "notify.url", theirs.srv.URL+"/theirs")
			before := len(srv.Notes())
			out := h.runLoop(t, bus)
			if !strings.Contains(out, "stopped:") || strings.Contains(out, "notification") {
				t.Fatalf("the run's output:\n%s", out)
			}
			notes := srv.Notes()[before:]
			pushed := mine.all()
			if len(notes) != 2 || len(pushed) != 2 {
				t.Fatalf("desktop notes %+v, POSTs %q; the run said:\n%s", notes, pushed, out)
			}
			if got := theirs.all(); len(got) != 0 {
				t.Fatalf("the tree's notify.url was POSTed to: %q", got)
			}
			wantWaiting := []string{"strom: repo", "strom: T-1 in repo waits for your answer", `strom task answer T-1 "your answer"`}
			wantEnd := []string{"strom: repo", "strom: the run in repo ended — ", "strom task list --state waiting"}
			if !details {
				wantEnd = append(wantEnd, "stopped: ", "1 task needs you")
			} else {
				wantWaiting = append(wantWaiting, "Read the secret register — asks: Which secret register?")
				wantEnd = append(wantEnd, "2 sessions · stopped: ")
			}
			for i, want := range [][]string{wantWaiting, wantEnd} {
				desk := notes[i].Summary + "\n" + notes[i].Body
				for _, text := range []string{desk, pushed[i]} {
					for _, w := range want {
						if !strings.Contains(text, w) {
							t.Errorf("notification %d lacks %q:\n%s", i+1, w, text)
						}
					}
					if !details && strings.Contains(text, "secret") {
						t.Errorf("notification %d carries the task's text without notify.details:\n%s", i+1, text)
					}
				}
			}
			monitored(t, mon, "member=Notify", "T-1 in repo waits for your answer", "the run in repo ended")
		})
	}
}

// monitored checks that dbus-monitor saw each of want on the bus by now.
func monitored(t *testing.T, mon *testenv.Monitor, want ...string) {
	t.Helper()
	text := mon.Sync(t)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("dbus-monitor did not see %q:\n%s", w, text)
		}
	}
}

// TestNotifyFailuresAreLines: a notify.url nobody answers is one line in the run's
// output for each notification, a session bus with no notification service is one
// line for the whole run, and the run ends as it would without them; with
// notify.desktop off the desktop is not asked.
func TestNotifyFailuresAreLines(t *testing.T) {
	bus := testenv.SessionBus(t)
	mon := testenv.WatchNotifications(t, bus)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/strom"
	l.Close()

	h := withAgent(t, notifyAgent, "Read the register", "Copy the entries")
	h.userSettings(t, map[string]string{"notify.url": dead})
	out := h.runLoop(t, bus)
	if n := strings.Count(out, "· the notification to notify.url was not sent: "); n != 2 {
		t.Errorf("%d lines of a POST not sent, want 2 (one per notification):\n%s", n, out)
	}
	if n := strings.Count(out, "· no desktop notification: "); n != 1 {
		t.Errorf("%d lines of no notification service, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "2 sessions · stopped: ") {
		t.Errorf("the run's end line is missing:\n%s", out)
	}
	monitored(t, mon, "member=Notify", "the run in repo ended")

	// notify.desktop off: no Notify call, no line about the desktop.
	h2 := withAgent(t, notifyAgent, "Read the register")
	h2.userSettings(t, map[string]string{"notify.desktop": "off"})
	before := strings.Count(mon.Text(), "member=Notify")
	out = h2.runLoop(t, bus)
	if strings.Contains(out, "notification") {
		t.Errorf("with notify.desktop off the run said:\n%s", out)
	}
	text := mon.Sync(t)
	if after := strings.Count(text, "member=Notify"); after != before {
		t.Errorf("with notify.desktop off, %d Notify calls were made", after-before)
	}
}
