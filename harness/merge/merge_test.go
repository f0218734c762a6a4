package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/strom-research/strom/statefiles"
)

// task is a task of a test queue: id, title, state, created and updated minute.
func task(id, title, state string, created, updated int, extra ...string) string {
	s := fmt.Sprintf(`{"id":%q,"title":%q,"state":%q,"created":"2026-11-30T09:%02d:00Z","updated":"2026-11-30T09:%02d:00Z"`, id, title, state, created, updated)
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

func queue(next int, tasks ...string) []byte {
	return []byte(fmt.Sprintf(`{"version":1,"next_id":%d,"tasks":[%s]}`, next, strings.Join(tasks, ",")))
}

func mustQueue(t *testing.T, base, ours, theirs []byte) (*statefiles.Queue, []string) {
	t.Helper()
	out, notes, err := Queue(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	q, err := statefiles.ParseQueue("merged", out)
	if err != nil {
		t.Fatalf("the merged queue is not valid: %v\n%s", err, out)
	}
	return q, notes
}

func summary(q *statefiles.Queue) string {
	var parts []string
	for _, t := range q.Tasks {
		parts = append(parts, t.ID+" "+t.Title+" "+string(t.State))
	}
	return strings.Join(parts, "; ")
}

func TestQueue(t *testing.T) {
	t.Parallel()
	base := queue(3, task("T-1", "Find Anna", "open", 0, 0), task("T-2", "Find Jan", "open", 1, 1))
	cases := []struct {
		name         string
		ours, theirs []byte
		want         string
		wantNote     string
	}{
		{
			name:   "each side changed another field",
			ours:   queue(3, task("T-1", "Find Anna Novak", "open", 0, 5), task("T-2", "Find Jan", "open", 1, 1)),
			theirs: queue(3, task("T-1", "Find Anna", "done", 0, 6), task("T-2", "Find Jan", "open", 1, 1)),
			want:   "T-1 Find Anna Novak done; T-2 Find Jan open",
		},
		{
			name:   "both changed the state: the later change wins",
			ours:   queue(3, task("T-1", "Find Anna", "done", 0, 9), task("T-2", "Find Jan", "open", 1, 1)),
			theirs: queue(3, task("T-1", "Find Anna", "parked", 0, 7, `"reason":"x","parked_from":"open"`), task("T-2", "Find Jan", "open", 1, 1)),
			want:   "T-1 Find Anna done; T-2 Find Jan open",
		},
		{
			name:   "their later state comes with its own reason",
			ours:   queue(3, task("T-1", "Find Anna", "done", 0, 7), task("T-2", "Find Jan", "open", 1, 1)),
			theirs: queue(3, task("T-1", "Find Anna", "parked", 0, 9, `"reason":"x","parked_from":"open"`), task("T-2", "Find Jan", "open", 1, 1)),
			want:   "T-1 Find Anna parked; T-2 Find Jan open",
		},
		{
			name:   "a task one side deleted is kept",
			ours:   queue(3, task("T-1", "Find Anna", "open", 0, 0)),
			theirs: queue(3, task("T-1", "Find Anna", "open", 0, 0), task("T-2", "Find Jan", "done", 1, 4)),
			want:   "T-1 Find Anna open; T-2 Find Jan done",
		},
		{
			name:     "both added tasks: both keep theirs, renumbered",
			ours:     queue(4, task("T-1", "Find Anna", "open", 0, 0), task("T-2", "Find Jan", "open", 1, 1), task("T-3", "Find Eva", "open", 8, 8)),
			theirs:   queue(4, task("T-1", "Find Anna", "open", 0, 0), task("T-2", "Find Jan", "open", 1, 1), task("T-3", "Find Petr", "open", 7, 7)),
			want:     "T-1 Find Anna open; T-2 Find Jan open; T-3 Find Petr open; T-4 Find Eva open",
			wantNote: `T-3 was added on both sides: "Find Petr" keeps T-3, "Find Eva" is now T-4`,
		},
		{
			name:   "only theirs added",
			ours:   base,
			theirs: queue(5, task("T-1", "Find Anna", "open", 0, 0), task("T-2", "Find Jan", "open", 1, 1), task("T-4", "Find Eva", "open", 8, 8)),
			want:   "T-1 Find Anna open; T-2 Find Jan open; T-4 Find Eva open",
		},
		{
			name:   "only theirs reordered",
			ours:   queue(4, task("T-1", "Find Anna", "open", 0, 0), task("T-2", "Find Jan", "open", 1, 1), task("T-3", "Find Eva", "open", 8, 8)),
			theirs: queue(3, task("T-2", "Find Jan", "open", 1, 1), task("T-1", "Find Anna", "open", 0, 0)),
			want:   "T-2 Find Jan open; T-1 Find Anna open; T-3 Find Eva open",
		},
		{
			name:   "both made the same change",
			ours:   queue(3, task("T-1", "Find Anna", "done", 0, 5), task("T-2", "Find Jan", "open", 1, 1)),
			theirs: queue(3, task("T-1", "Find Anna", "done", 0, 5), task("T-2", "Find Jan", "open", 1, 1)),
			want:   "T-1 Find Anna done; T-2 Find Jan open",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q, notes := mustQueue(t, base, c.ours, c.theirs)
			if got := summary(q); got != c.want {
				t.Errorf("merged\n got  %s\n want %s", got, c.want)
			}
			if c.wantNote == "" && len(notes) > 0 {
				t.Errorf("notes %q", notes)
			}
			if c.wantNote != "" && (len(notes) != 1 || notes[0] != c.wantNote) {
				t.Errorf("notes %q, want %q", notes, c.wantNote)
			}
			// Merging the other way round keeps the same tasks.
			q2, _ := mustQueue(t, base, c.theirs, c.ours)
			if len(q2.Tasks) != len(q.Tasks) {
				t.Errorf("the other way round: %s", summary(q2))
			}
			for _, tk := range q.Tasks {
				if n := idNumber(tk.ID); n >= q.NextID {
					t.Errorf("next_id %d does not follow %s", q.NextID, tk.ID)
				}
			}
		})
	}
}

func TestQueueParkedReasonStaysWithItsState(t *testing.T) {
	t.Parallel()
	base := queue(2, task("T-1", "Find Anna", "open", 0, 0))
	ours := queue(2, task("T-1", "Find Anna", "parked", 0, 5, `"reason":"kept for later","parked_from":"open"`))
	theirs := queue(2, task("T-1", "Find Anna", "started", 0, 6, `"session":"20261130T090600Z-aaaa"`))
	q, _ := mustQueue(t, base, ours, theirs)
	tk := q.Tasks[0]
	if tk.State != statefiles.Started || tk.Session != "20261130T090600Z-aaaa" || tk.Reason != "" || tk.ParkedFrom != "" {
		t.Errorf("state group mixed: %+v", tk)
	}
}

func TestQueueQuestions(t *testing.T) {
	t.Parallel()
	q1 := `{"question":"Which parish?","asked":"2026-11-30T09:01:00Z"}`
	q1a := `{"question":"Which parish?","asked":"2026-11-30T09:01:00Z","answer":"Tábor","answered":"2026-11-30T09:03:00Z"}`
	q2 := `{"question":"Which year?","asked":"2026-11-30T09:04:00Z"}`
	base := queue(2, task("T-1", "Find Anna", "waiting", 0, 1, `"questions":[`+q1+`]`))
	ours := queue(2, task("T-1", "Find Anna", "open", 0, 3, `"questions":[`+q1a+`]`))
	theirs := queue(2, task("T-1", "Find Anna", "waiting", 0, 4, `"questions":[`+q1+`,`+q2+`]`))
	q, _ := mustQueue(t, base, ours, theirs)
	qs := q.Tasks[0].Questions
	if len(qs) != 2 || qs[0].Answer != "Tábor" || qs[1].Question != "Which year?" {
		t.Errorf("questions %+v", qs)
	}
}

func TestQueueNoCommonVersion(t *testing.T) {
	t.Parallel()
	ours := queue(2, task("T-1", "Find Anna", "open", 0, 0))
	theirs := queue(2, task("T-1", "Find Jan", "open", 1, 1))
	q, notes := mustQueue(t, nil, ours, theirs)
	if got := summary(q); got != "T-1 Find Anna open; T-2 Find Jan open" || len(notes) != 1 {
		t.Errorf("%s %q", got, notes)
	}
}

func TestQueueRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	good := queue(2, task("T-1", "Find Anna", "open", 0, 0))
	for name, c := range map[string][3][]byte{
		"ours broken":     {good, []byte(`{"version":1,`), good},
		"theirs invalid":  {good, good, []byte(`{"version":1,"next_id":2,"tasks":[{"id":"x"}]}`)},
		"conflict marker": {good, good, []byte("<<<<<<< HEAD\n" + string(good))},
		"duplicate id":    {good, good, queue(3, task("T-1", "A", "open", 0, 0), task("T-1", "B", "open", 0, 0))},
	} {
		if _, _, err := Queue(c[0], c[1], c[2]); !errors.Is(err, ErrConflict) {
			t.Errorf("%s: %v, want ErrConflict", name, err)
		}
	}
}

func record(task, text string, minute int) string {
	b, _ := json.Marshal(map[string]any{"version": 1, "time": fmt.Sprintf("2026-11-30T09:%02d:00Z", minute), "task": task, "text": text})
	return string(b) + "\n"
}

func TestProgress(t *testing.T) {
	t.Parallel()
	base := record("T-1", "a", 0)
	ours := base + record("T-1", "ours", 2) + record("T-2", "same", 3)
	theirs := base + record("T-3", "theirs", 1) + record("T-2", "same", 3) + record("T-3", "theirs", 1)
	out, err := Progress([]byte(ours), []byte(theirs))
	if err != nil {
		t.Fatal(err)
	}
	want := ours + record("T-3", "theirs", 1) + record("T-3", "theirs", 1)
	if string(out) != want {
		t.Errorf("merged\n%s\nwant\n%s", out, want)
	}
	if _, err := Progress([]byte(ours), []byte("not json\n")); !errors.Is(err, ErrConflict) {
		t.Errorf("an invalid side: %v", err)
	}
}

func TestPark(t *testing.T) {
	t.Parallel()
	base := []byte(`{"version":1,"empty":{"T-1":1,"T-2":1}}`)
	ours := []byte(`{"version":1,"empty":{"T-2":1,"T-3":1}}`)                          // T-1 cleared, T-3 counted
	theirs := []byte(`{"version":1,"empty":{"T-1":1,"T-2":1},"unfinished":{"T-4":3}}`) // T-4 counted
	out, err := Park(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	var p statefiles.Park
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.Empty) != "map[T-2:1 T-3:1]" || fmt.Sprint(p.Unfinished) != "map[T-4:3]" {
		t.Errorf("merged %s", out)
	}
	both, err := Park(base, []byte(`{"version":1,"empty":{"T-1":2,"T-2":1}}`), []byte(`{"version":1,"empty":{"T-1":3,"T-2":1}}`))
	if err != nil || !strings.Contains(string(both), `"T-1": 3`) {
		t.Errorf("both counted: %s %v", both, err)
	}
}

// TestQueueClaimHostStaysWithItsSession: the machine that claimed a task moves
// with the claim's state and session; the other side's later claim brings its own.
func TestQueueClaimHostStaysWithItsSession(t *testing.T) {
	t.Parallel()
	base := queue(2, task("T-1", "Find Anna", "started", 0, 1, `"session":"20261130T090100Z-aaaa","host":"laptop"`))
	ours := queue(2, task("T-1", "Find Anna", "open", 0, 5))
	theirs := queue(2, task("T-1", "Find Anna", "started", 0, 6, `"session":"20261130T090600Z-bbbb","host":"desktop"`))
	q, _ := mustQueue(t, base, ours, theirs)
	if tk := q.Tasks[0]; tk.State != statefiles.Started || tk.Session != "20261130T090600Z-bbbb" || tk.Host != "desktop" {
		t.Errorf("their claim = %+v", tk)
	}
	// Their claim of a task our claim held is a takeover: our later return of
	// the claim (a crashed session committed on a rerun) yields to it.
	ours = queue(2, task("T-1", "Find Anna", "open", 0, 7))
	q, _ = mustQueue(t, base, ours, theirs)
	if tk := q.Tasks[0]; tk.State != statefiles.Started || tk.Session != "20261130T090600Z-bbbb" || tk.Host != "desktop" {
		t.Errorf("our later return undid their takeover: %+v", tk)
	}
	// Their later session, started in a clone alone, never gets our host.
	base = queue(2, task("T-1", "Find Anna", "open", 0, 0))
	ours = queue(2, task("T-1", "Find Anna", "started", 0, 5, `"session":"20261130T090500Z-aaaa","host":"laptop"`))
	theirs = queue(2, task("T-1", "Find Anna", "started", 0, 6, `"session":"20261130T090600Z-bbbb"`))
	q, _ = mustQueue(t, base, ours, theirs)
	if tk := q.Tasks[0]; tk.Session != "20261130T090600Z-bbbb" || tk.Host != "" {
		t.Errorf("a session got another claim's host: %+v", tk)
	}
}

// TestQueueReleaseYields: a machine that died reruns and commits its crashed
// session, which returns the task its claim held; meanwhile another machine took
// the task over. The return yields to the other side, whichever change is later.
func TestQueueReleaseYields(t *testing.T) {
	t.Parallel()
	claim := `"session":"20261130T090000Z-aaaa","host":"laptop"`
	base := queue(2, task("T-1", "Find Anna", "started", 0, 0, claim))
	released := queue(2, task("T-1", "Find Anna", "open", 0, 50))
	cases := []struct {
		name, theirs, want string
	}{
		{"taken over", task("T-1", "Find Anna", "started", 0, 20, `"session":"20261130T092000Z-bbbb","host":"desktop"`), "started 20261130T092000Z-bbbb desktop"},
		{"taken over and done", task("T-1", "Find Anna", "done", 0, 30, `"session":"20261130T092000Z-bbbb"`), "done 20261130T092000Z-bbbb "},
		{"parked by a person", task("T-1", "Find Anna", "parked", 0, 10, `"reason":"by hand","parked_from":"started"`), "parked  "},
		{"returned on both sides", task("T-1", "Find Anna", "open", 0, 40), "open  "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, side := range []string{"ours released", "theirs released"} {
				ours, theirs := released, queue(2, c.theirs)
				if side == "theirs released" {
					ours, theirs = theirs, ours
				}
				q, _ := mustQueue(t, base, ours, theirs)
				tk := q.Tasks[0]
				if got := fmt.Sprintf("%s %s %s", tk.State, tk.Session, tk.Host); got != c.want {
					t.Errorf("%s: T-1 = %q, want %q", side, got, c.want)
				}
			}
		})
	}
	// Without the claim in the common version, a return is an ordinary change:
	// the later change wins.
	q, _ := mustQueue(t, queue(2, task("T-1", "Find Anna", "done", 0, 0)), released,
		queue(2, task("T-1", "Find Anna", "parked", 0, 10, `"reason":"x","parked_from":"open"`)))
	if q.Tasks[0].State != statefiles.Open {
		t.Errorf("T-1 is %s, want open (the later change)", q.Tasks[0].State)
	}
}
