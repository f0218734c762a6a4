package testenv

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// DBusTools finds dbus-run-session and dbus-monitor (Debian's dbus, which .ci/run
// installs). Without CI a missing one skips the test, saying why; with CI=true it
// fails it.
func DBusTools(t testing.TB) {
	t.Helper()
	for _, name := range []string{"dbus-run-session", "dbus-monitor"} {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no %s on PATH: .ci/run installs dbus for the desktop notification's tests", name)
			}
			t.Skipf("no %s on PATH: apt-get install dbus runs the desktop notification's tests", name)
		}
	}
}

// SessionBus starts a D-Bus session bus of the test's own with dbus-run-session
// and returns its address; the bus ends with the test.
func SessionBus(t testing.TB) string {
	t.Helper()
	DBusTools(t)
	cmd := exec.Command("dbus-run-session", "--", "sh", "-c", `printf '%s\n' "$DBUS_SESSION_BUS_ADDRESS"; exec cat >/dev/null`)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Closing cat's input ends the session, and dbus-run-session stops its bus.
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	addr := strings.TrimSpace(line)
	if err != nil || addr == "" {
		t.Fatalf("dbus-run-session said no bus address: %q, %v", line, err)
	}
	return addr
}

// Monitor is dbus-monitor watching the calls to org.freedesktop.Notifications.
type Monitor struct {
	addr  string
	marks int
	mu    sync.Mutex
	text  strings.Builder
	more  chan struct{} // closed and renewed at each line; nil once the monitor ended
}

// WatchNotifications starts dbus-monitor on the bus at addr and returns once it
// monitors (it says so by the names it is given and loses).
func WatchNotifications(t testing.TB, addr string) *Monitor {
	t.Helper()
	cmd := exec.Command("dbus-monitor", "--address", addr, "type='method_call',interface='org.freedesktop.Notifications'")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	m := &Monitor{addr: addr, more: make(chan struct{})}
	ready := make(chan bool, 1)
	go func() {
		r := bufio.NewReader(out)
		said := false
		for {
			line, err := r.ReadString('\n')
			m.mu.Lock()
			m.text.WriteString(line)
			close(m.more)
			if err != nil {
				m.more = nil
			} else {
				m.more = make(chan struct{})
			}
			m.mu.Unlock()
			if !said && (strings.Contains(line, "member=NameLost") || err != nil) {
				said = true
				ready <- err == nil
			}
			if err != nil {
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
	}()
	if !<-ready {
		t.Fatalf("dbus-monitor ended before it monitored: %s", m.Text())
	}
	return m
}

// Text is what the monitor printed so far.
func (m *Monitor) Text() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.text.String()
}

// WaitFor waits until the monitor printed every one of want, and returns what it
// printed; a monitor that ends first fails the test.
func (m *Monitor) WaitFor(t testing.TB, want ...string) string {
	t.Helper()
	for {
		m.mu.Lock()
		text, more := m.text.String(), m.more
		m.mu.Unlock()
		all := true
		for _, w := range want {
			all = all && strings.Contains(text, w)
		}
		if all {
			return text
		}
		if more == nil {
			t.Fatalf("dbus-monitor ended without %q:\n%s", want, text)
		}
		<-more
	}
}

// Sync returns what the monitor printed up to now: every call made on the bus
// before Sync, since the bus passes the monitor its messages in order and Sync
// waits for a mark of its own sent after them.
func (m *Monitor) Sync(t testing.TB) string {
	t.Helper()
	conn, err := dbus.Connect(m.addr)
	if err != nil {
		t.Fatalf("connect to the test's bus: %v", err)
	}
	defer conn.Close()
	m.marks++
	mark := "strom-test-mark-" + strconv.Itoa(m.marks)
	// No service need answer: the monitor sees the call all the same.
	conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").
		Go("org.freedesktop.Notifications.Mark", dbus.FlagNoReplyExpected, nil, mark)
	return m.WaitFor(t, `string "`+mark+`"`)
}

// Notification is one Notify call a NotificationServer answered.
type Notification struct {
	App, Summary, Body string
}

// NotificationServer is a notification service on a test's bus: it owns
// org.freedesktop.Notifications and answers Notify as a desktop's would.
type NotificationServer struct {
	mu    sync.Mutex
	notes []Notification
}

// Notify is the service's method; it keeps the call.
func (s *NotificationServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, Notification{App: app, Summary: summary, Body: body})
	return uint32(len(s.notes)), nil
}

// Notes are the calls answered so far.
func (s *NotificationServer) Notes() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Notification(nil), s.notes...)
}

// ServeNotifications starts a notification service on the bus at addr; it serves
// until the test ends.
func ServeNotifications(t testing.TB, addr string) *NotificationServer {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the test's bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &NotificationServer{}
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v, %v", reply, err)
	}
	return s
}
