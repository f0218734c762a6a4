package notify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/strom-research/strom/internal/testenv"
)

// TestDesktopOnSessionBus: the note reaches a notification service on a real
// session bus as a Notify call that dbus-monitor sees, its text unchanged.
func TestDesktopOnSessionBus(t *testing.T) {
	addr := testenv.SessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	mon := testenv.WatchNotifications(t, addr)
	srv := testenv.ServeNotifications(t, addr)
	n := Note{Title: "strom: Kirchenbücher", Body: `the run ended — "quoted" $(not run) ünï`, Command: "strom status"}
	if err := Desktop(context.Background(), n); err != nil {
		t.Fatalf("Desktop: %v", err)
	}
	got := srv.Notes()
	if len(got) != 1 || got[0].App != "strom" || got[0].Summary != n.Title || got[0].Body != n.Body+"\nstrom status" {
		t.Fatalf("the service got %+v", got)
	}
	text := mon.Sync(t)
	for _, want := range []string{"member=Notify", `string "strom: Kirchenbücher"`, `$(not run) ünï`, "strom status"} {
		if !strings.Contains(text, want) {
			t.Fatalf("dbus-monitor did not see %q:\n%s", want, text)
		}
	}
}

// TestDesktopNoServer: a session bus with no notification service is ErrNoServer,
// and the call was made there.
func TestDesktopNoServer(t *testing.T) {
	addr := testenv.SessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	mon := testenv.WatchNotifications(t, addr)
	err := Desktop(context.Background(), Note{Title: "t", Body: "nobody listens"})
	if !errors.Is(err, ErrNoServer) {
		t.Fatalf("Desktop without a service: %v, want ErrNoServer", err)
	}
	if text := mon.Sync(t); !strings.Contains(text, "member=Notify") || !strings.Contains(text, "nobody listens") {
		t.Fatalf("dbus-monitor did not see the call:\n%s", text)
	}
}

// TestDesktopNoBus: no session bus at all (a server, a login over ssh) is
// ErrNoDesktop, and none is started for it.
func TestDesktopNoBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("DISPLAY", "")
	if err := Desktop(context.Background(), Note{Title: "t", Body: "b"}); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("Desktop without a bus: %v, want ErrNoDesktop", err)
	}
	// The address the tests give every program they start.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testenv.NoSessionBus)
	if err := Desktop(context.Background(), Note{Title: "t", Body: "b"}); !errors.Is(err, ErrNoDesktop) {
		t.Fatalf("Desktop at %s: %v, want ErrNoDesktop", testenv.NoSessionBus, err)
	}
}
