package harness

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/precommit"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/statefiles"
)

func TestMain(m *testing.M) {
	testenv.CacheHome()
	os.Exit(m.Run())
}

func TestWindows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		minutes    int
		warn, wrap time.Duration
	}{
		{60, 10 * time.Minute, 3 * time.Minute},
		{40, 10 * time.Minute, 3 * time.Minute},
		{39, 39 * time.Minute / 4, 3 * time.Minute},
		{24, 6 * time.Minute, 3 * time.Minute},
		{23, 23 * time.Minute / 4, 23 * time.Minute / 8},
		{5, 5 * time.Minute / 4, 5 * time.Minute / 8},
	}
	for _, c := range cases {
		warn, wrap := session.Windows(time.Duration(c.minutes) * time.Minute)
		if warn != c.warn || wrap != c.wrap {
			t.Errorf("%d min: warn %s wrap %s, want %s %s", c.minutes, warn, wrap, c.warn, c.wrap)
		}
	}
}

func TestTimeNote(t *testing.T) {
	t.Parallel()
	dl := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	hour := 60 * time.Minute
	cases := []struct {
		left   time.Duration
		length time.Duration
		want   string
	}{
		{11 * time.Minute, hour, ""},
		{10 * time.Minute, hour, "⏱ 10 minutes left in this session (ends 10:00 UTC)."},
		{4 * time.Minute, hour, "⏱ 4 minutes left"},
		{3 * time.Minute, hour, "write what you found now"},
		{30 * time.Second, hour, "⏱ 30 seconds left"},
		{-time.Minute, hour, "time is up"},
		{6 * time.Minute, 20 * time.Minute, ""},
		{5 * time.Minute, 20 * time.Minute, "⏱ 5 minutes left in this session"},
		{150 * time.Second, 20 * time.Minute, "write what you found now"},
		// Rounded down: never more time than is left.
		{69 * time.Second, hour, "⏱ 1 minute left (ends 10:00 UTC)"},
		{119 * time.Second, hour, "⏱ 1 minute left"},
		{9*time.Minute + 59*time.Second, hour, "⏱ 9 minutes left in this session"},
		{59*time.Second + 900*time.Millisecond, hour, "⏱ 59 seconds left"},
		{1500 * time.Millisecond, hour, "⏱ 1 second left"},
		{300 * time.Millisecond, hour, "⏱ less than a second left"},
	}
	for _, c := range cases {
		got := session.TimeNote(dl.Add(-c.left), dl, c.length)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s left of %s: %q, want %q", c.left, c.length, got, c.want)
		}
	}
}

// TestTimeLeftAndClock: every view says the time left the same way, rounded down,
// and shows a deadline off the whole minute to the second.
func TestTimeLeftAndClock(t *testing.T) {
	t.Parallel()
	dl := time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)
	for left, want := range map[time.Duration]string{
		69 * time.Second:                "1 minute left",
		59*time.Minute + 59*time.Second: "59 minutes left",
		45 * time.Second:                "45 seconds left",
		0:                               "time is up",
		-time.Second:                    "time is up",
	} {
		if got := session.TimeLeft(dl.Add(-left), dl); got != want {
			t.Errorf("%s left: %q, want %q", left, got, want)
		}
	}
	if got := runfiles.ClockAt(dl); got != "10:00:30" {
		t.Errorf("ClockAt(%s) = %q", dl, got)
	}
	if got := runfiles.ClockAt(dl.Truncate(time.Minute)); got != "10:00" {
		t.Errorf("ClockAt on the minute = %q", got)
	}
}

func TestResolveUntil(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"10:00": time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"09:30": time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC),
		"07:00": time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC),
		"23:59": time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC),
	} {
		got, err := ResolveUntil(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"25:00", "9:5", "noon", "10:60", ""} {
		if _, err := ResolveUntil(bad, now); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestEndWords(t *testing.T) {
	t.Parallel()
	want := "closed done waiting time-limit finish-requested stopped-by-hand closed-by-person subscription-limit not-logged-in agent-failed error crashed"
	var got []string
	for e := ends.EndClosed; e <= ends.EndCrashed; e++ {
		got = append(got, e.String())
		back, ok := ends.ParseEnd(e.String())
		if !ok || back != e {
			t.Errorf("ParseEnd(%s) = %v %v", e, back, ok)
		}
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("words = %s", strings.Join(got, " "))
	}
	if ends.StopSubscriptionLimit.ExitCode() != ends.ExitNeedsPerson || ends.StopNoTasks.ExitCode() != ends.ExitPlanned || ends.StopError.ExitCode() != ends.ExitError {
		t.Fatal("exit codes")
	}
}

func TestQueueLoss(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	before := statefiles.NewQueue()
	before.Add("One", "", now)
	before.Add("Two", "body", now)
	same := *before
	same.Tasks = append([]statefiles.Task(nil), before.Tasks...)
	loss := func(after *statefiles.Queue, rewordForbidden bool) string {
		if err := precommit.QueueLoss(before, after, rewordForbidden); err != nil {
			return err.Error()
		}
		return ""
	}
	if got := loss(&same, true); got != "" {
		t.Fatalf("unchanged queue: %s", got)
	}
	reworded := same
	reworded.Tasks = append([]statefiles.Task(nil), before.Tasks...)
	reworded.Tasks[1].Body = "other"
	if got := loss(&reworded, true); !strings.Contains(got, "T-2") {
		t.Fatalf("reword in session: %q", got)
	}
	if got := loss(&reworded, false); got != "" {
		t.Fatalf("reword by a person: %q", got)
	}
	deleted := same
	deleted.Tasks = before.Tasks[:1]
	if got := loss(&deleted, false); !strings.Contains(got, "T-2") || !strings.Contains(got, "deleted") {
		t.Fatalf("delete: %q", got)
	}
}
