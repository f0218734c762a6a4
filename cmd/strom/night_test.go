package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

var soak = flag.Bool("soak", false, "TestNight: the long night (make soak) instead of the short one")

// nightAgent works one session as its task's next planned fault says (the first
// line of $NIGHT/faults/<task>, taken once; "normal" when none is left). It notes
// the fault of the session in $NIGHT/sessions/<session>, and in $NIGHT/agent.log
// every file it wrote and every record strom accepted: what must be in git after
// the night.
const nightAgent = `#!/bin/sh
N=$NIGHT
plan="$N/faults/$STROM_TASK"
fault=normal
if [ -s "$plan" ]; then
	fault=$(head -n 1 "$plan")
	tail -n +2 "$plan" > "$plan.rest" && mv "$plan.rest" "$plan"
fi
echo "$fault" > "$N/sessions/$STROM_SESSION"
work() {
	echo "working on $STROM_TASK"
	mkdir -p out
	f="out/$STROM_SESSION.txt"
	echo "$STROM_TASK $fault" > "$f" && echo "file $f" >> "$N/agent.log"
	echo "writing down what was found"
	strom record "r $STROM_SESSION" >/dev/null && echo "record r $STROM_SESSION" >> "$N/agent.log"
	echo "recorded"
}
busy() { while :; do echo working; sleep 0.2; done; }
case $fault in
normal) work; strom done >/dev/null ;;
crash) work; exit 3 ;;
hang) work; busy ;;
idle) work; exec sleep 3600 ;;
limit) work; echo "You've hit your session limit · resets 3am (UTC)"; exec sleep 3600 ;;
login) echo "Not logged in · Please run /login"; exec sleep 3600 ;;
waiting) work; strom ask "Which register, 1850 or 1852?" >/dev/null ;;
empty) strom session close >/dev/null ;;
killsession) work; touch "$N/kill/$STROM_SESSION"; busy ;;
killcommit|killaftercommit|diskfull) work; echo "$fault" > "$N/git-fault"; strom done >/dev/null ;;
norecord) work
	# Writes refused: the file size limit makes every write to a file fail.
	if (trap '' XFSZ; ulimit -f 0; strom record "refused $STROM_SESSION") >/dev/null 2>&1; then
		echo "record refused $STROM_SESSION" >> "$N/agent.log"
	fi
	strom done >/dev/null ;;
esac
`

// nightGit stands in for git on PATH. When $NIGHT/git-fault names a fault, the
// next "git commit" takes it: killcommit kills strom (its parent) before the commit
// is made, killaftercommit just after, diskfull refuses the write as a full disk.
const nightGit = `#!/bin/sh
sub=
skip=
for a in "$@"; do
	if [ -n "$skip" ]; then skip=; continue; fi
	case $a in
	-C|-c|--git-dir|--work-tree|--namespace) skip=1 ;;
	-*) ;;
	*) sub=$a; break ;;
	esac
done
if [ "$sub" = commit ] && mv "$NIGHT/git-fault" "$NIGHT/git-fault.$$" 2>/dev/null; then
	fault=$(cat "$NIGHT/git-fault.$$")
	rm -f "$NIGHT/git-fault.$$"
	case $fault in
	killcommit) kill -9 $PPID; exit 137 ;;
	killaftercommit) REALGIT "$@"; rc=$?; kill -9 $PPID; exit $rc ;;
	diskfull) echo "error: unable to write new index file: No space left on device" >&2; exit 128 ;;
	esac
fi
exec REALGIT "$@"
`

// nightGate is the run's condition. Each call takes the first line of
// $NIGHT/gate-faults: wait, stop or crash; go when none is left.
const nightGate = `#!/bin/sh
q="$NIGHT/gate-faults"
v=go
if [ -s "$q" ] && [ -z "$STROM_GATE_TEST" ]; then
	v=$(head -n 1 "$q")
	tail -n +2 "$q" > "$q.rest" && mv "$q.rest" "$q"
fi
v=${v:-go}
echo "$v" >> "$NIGHT/gate.asked"
case $v in
go) echo '{"verdict":"go","reason":"all clear"}' ;;
wait) echo '{"verdict":"wait","reason":"the week runs ahead","retry_after_s":900}' ;;
stop) echo '{"verdict":"stop","reason":"enough for tonight"}' ;;
crash) echo 'half an answer'; echo 'segmentation fault' >&2; exit 139 ;;
esac
`

// nightEnds is the Strom-End each planned fault leaves on its session's commit.
var nightEnds = map[string]string{
	"normal":          "done",
	"crash":           "agent-failed",
	"hang":            "time-limit",
	"idle":            "agent-failed",
	"limit":           "subscription-limit",
	"login":           "not-logged-in",
	"waiting":         "waiting",
	"empty":           "closed",
	"killsession":     "crashed",
	"killcommit":      "crashed",
	"killaftercommit": "done",
	"diskfull":        "crashed",
	"norecord":        "done",
}

// nightFaults are the agent's and strom's faults, in the order the short night
// plans them (each once), and the gate's.
var (
	nightFaults = []string{"crash", "hang", "idle", "limit", "login", "waiting", "empty",
		"killsession", "killcommit", "killaftercommit", "diskfull", "norecord"}
	gateFaults = []string{"wait", "stop", "crash"}
)

type nightPlan struct {
	hours    int
	until    string
	sessions int // at least this many sessions in the night
}

// TestNight runs a simulated night through real `strom run --loop --until`
// processes on the scaled clock, with a fault planned for about every third
// session: the agent crashes, hangs, sits idle, hits its limit, is not logged in,
// asks a person, records nothing (twice: parked); strom is killed with SIGKILL
// mid-session, just before and just after its commit; git finds the disk full; a
// record is refused by the file size limit; the condition waits, stops and
// crashes. A run that stops is started again, as a person or a timer would, until
// the night is over. Then every task is done, open, waiting or parked with its
// reason; every session has its commit and every commit the Strom-End of the fault
// it met; every file and record the agent reported is in git; the tree is clean.
//
// The short night (-short, as make test runs it) is 3 hours with at least 24
// sessions, 4 hours and 40 without -short; the long one (-soak, make soak) 12 hours
// with at least 200. The clock runs at a speed
// chosen before each run so that the night holds its sessions (10× to 300×).
func TestNight(t *testing.T) {
	withoutRace(t)
	plan := nightPlan{hours: 3, until: "23:00", sessions: 24}
	switch {
	case *soak:
		plan = nightPlan{hours: 12, until: "08:00", sessions: 200}
	case !testing.Short():
		plan = nightPlan{hours: 4, until: "00:00", sessions: 40}
	}
	h := newCLIHarness(t)
	dir := h.dir
	night := filepath.Join(dir, "night")
	for _, d := range []string{"shim", "home/.config/strom/plugins/gates/night", "night/faults", "night/sessions", "night/kill"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "agent.sh"), nightAgent)
	write(filepath.Join(dir, "shim", "git"), strings.ReplaceAll(nightGit, "REALGIT", realGit))
	write(filepath.Join(dir, "home/.config/strom/plugins/gates/night/gate"), nightGate)
	write(filepath.Join(dir, "home/.config/strom/config.json"), `{"version": 1, "settings": {"run.gate": "night"}}`+"\n")
	h.env = append(h.env, "NIGHT="+night, "PATH="+filepath.Join(dir, "shim")+string(os.PathListSeparator)+envValue(h.env, "PATH"))

	h.must(t, "init", "--agent", "command")
	h.onTerminal(t, "", "config", "set", "agent.command", "sh "+filepath.Join(dir, "agent.sh"), "--for-tree")
	// A hung agent meets the time limit; an idle one is nudged after 10 minutes and
	// given up after 20, before the limit. At the fastest clock (300×) that is 2 s
	// of silence; the working agent says something at every step.
	h.must(t, "config", "set", "run.minutes", "25", "--for-tree")
	h.must(t, "config", "set", "run.idleMinutes", "10", "--for-tree")
	h.git(t, "add", "-A")
	h.git(t, "commit", "-q", "-m", "the research")

	rng := rand.New(rand.NewSource(11))
	tasks := 0
	var gates []string
	planned := map[string]int{}
	// The tasks of the test's last addition: a person's strom task add is
	// committed by the next session, and when the night ends before one, they
	// are what the tree may still hold.
	var lastAdded []string
	addTasks := func(n int) {
		lastAdded = lastAdded[:0]
		for range n {
			tasks++
			h.must(t, "task", "add", fmt.Sprintf("Task %d", tasks))
			lastAdded = append(lastAdded, fmt.Sprintf("T-%d", tasks))
			var f []string
			switch {
			case tasks <= len(nightFaults): // every fault once, early in the night
				f = []string{nightFaults[tasks-1]}
			case rng.Intn(3) == 0:
				f = []string{nightFaults[rng.Intn(len(nightFaults))]}
			}
			if len(f) == 1 && f[0] == "empty" {
				f = append(f, "empty") // two in a row: parked
			}
			for _, x := range f {
				planned[x]++
			}
			if len(f) > 0 {
				write(filepath.Join(night, "faults", fmt.Sprintf("T-%d", tasks)), strings.Join(f, "\n")+"\n")
			}
			if tasks <= len(gateFaults) {
				gates = append(gates, gateFaults[tasks-1])
			} else if rng.Intn(12) == 0 {
				gates = append(gates, gateFaults[rng.Intn(len(gateFaults))])
			}
		}
		if len(gates) > 0 {
			f, err := os.OpenFile(filepath.Join(night, "gate-faults"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, strings.Join(gates, "\n"))
			f.Close()
			gates = gates[:0]
		}
	}
	addTasks(len(nightFaults) + 4)

	base := time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC)
	end := base.Add(time.Duration(plan.hours) * time.Hour)
	now := base
	started := time.Now()
	sessions := func() int {
		n := 0
		for _, l := range strings.Split(h.git(t, "log", "--format=%(trailers:key=Strom-Session,valueonly,separator=)"), "\n") {
			if l != "" {
				n++
			}
		}
		return n
	}
	runs, kills, stops := 0, 0, map[string]int{}
	for now.Before(end) {
		runs++
		if runs > 20*plan.sessions {
			t.Fatalf("%d runs and the night is not over (clock at %s)", runs, now.Format(time.TimeOnly))
		}
		if open := strings.Count(h.must(t, "task", "list", "--state", "open"), "T-"); open < 4 {
			addTasks(8)
		}
		// The speed that leaves the night's rest for the sessions still to come, at
		// the pace so far (real seconds a session, faults and restarts included).
		done := sessions()
		pace := 1.0
		if done > 0 {
			pace = time.Since(started).Seconds() / float64(done)
		}
		left := max(plan.sessions-done, 1)
		scale := min(max(end.Sub(now).Seconds()/(float64(left)*pace), 10), 300)
		origin := time.Now()
		env := append(h.env,
			clock.EnvScale+"="+strconv.FormatFloat(scale, 'f', 3, 64),
			clock.EnvOrigin+"="+origin.Format(time.RFC3339Nano),
			clock.EnvBase+"="+now.Format(time.RFC3339Nano))
		cmd := exec.Command(h.strom, "run", "--loop", "--until", plan.until)
		cmd.Dir, cmd.Env = h.repo, env
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var runErr error
	wait:
		for {
			select {
			case runErr = <-exited:
				break wait
			case <-time.After(20 * time.Millisecond):
				if ks, _ := os.ReadDir(filepath.Join(night, "kill")); len(ks) > 0 {
					_ = cmd.Process.Kill() // SIGKILL mid-session
					kills++
					for _, k := range ks {
						os.Remove(filepath.Join(night, "kill", k.Name()))
					}
				}
			}
		}
		now = clock.Scaled{Origin: origin, Base: now, Scale: scale}.Now()
		text := out.String()
		if strings.Contains(text, "panic:") || strings.Contains(text, "goroutine ") {
			t.Fatalf("run %d: strom panicked (%v):\n%s", runs, runErr, text)
		}
		lines := strings.Split(strings.TrimSpace(text), "\n")
		last := lines[len(lines)-1]
		if _, how, ok := strings.Cut(last, "stopped: "); ok {
			word, _, _ := strings.Cut(how, " (")
			stops[word]++
		} else {
			stops["killed"]++
		}
		if testing.Verbose() {
			t.Logf("run %d at %s (%.0f×): %s", runs, now.Format("15:04"), scale, last)
		}
	}
	total := sessions()
	t.Logf("night %s–%s: %d sessions in %d runs, %d kills, %s real; run stops %v; faults planned %v",
		base.Format("15:04"), end.Format("15:04"), total, runs, kills, time.Since(started).Round(time.Second), stops, planned)
	if total < plan.sessions {
		t.Errorf("%d sessions in the night, want at least %d", total, plan.sessions)
	}

	// The morning: a person starts a run, which commits what the night left (a
	// session whose strom was killed last), and the condition stops it.
	write(filepath.Join(night, "gate-faults"), "stop\n")
	cmd := exec.Command(h.strom, "run", "--max", "1")
	cmd.Dir, cmd.Env = h.repo, h.env
	if out, err := cmd.CombinedOutput(); !strings.Contains(string(out), "stopped: the condition") {
		t.Fatalf("the morning run: %v\n%s", err, out)
	}
	asked, _ := os.ReadFile(filepath.Join(night, "gate.asked"))
	for _, v := range gateFaults {
		if !strings.Contains(string(asked), v+"\n") {
			t.Errorf("the condition never answered %s in the night", v)
		}
	}
	checkNight(t, h, night, lastAdded)
}

// checkNight is the morning after: every task accounted for, every session
// committed with the Strom-End of its fault, nothing the agent reported missing,
// the tree clean but for the tasks of the test's own last addition (added), when
// no session came after it to commit them.
func checkNight(t *testing.T, h *cliHarness, night string, added []string) {
	t.Helper()
	var tasks []struct {
		ID, State, Reason, Session string
	}
	if err := json.Unmarshal([]byte(h.must(t, "task", "list", "--json")), &tasks); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, task := range tasks {
		count[task.State]++
		switch task.State {
		case "done", "open", "waiting":
		case "parked":
			if task.Reason == "" {
				t.Errorf("%s is parked without a reason", task.ID)
			}
		default:
			t.Errorf("%s is %s after the night", task.ID, task.State)
		}
	}
	t.Logf("tasks: %v", count)

	// Every session the agent began has its commit, with its fault's Strom-End.
	log := h.git(t, "log", "--format=%(trailers:key=Strom-Session,valueonly,separator=)%x09%(trailers:key=Strom-End,valueonly,separator=)")
	ends := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		id, end, _ := strings.Cut(l, "\t")
		if id == "" {
			continue
		}
		if _, dup := ends[id]; dup {
			t.Errorf("session %s has two commits", id)
		}
		ends[id] = end
	}
	began, err := os.ReadDir(filepath.Join(night, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	byEnd := map[string]int{}
	for _, e := range began {
		fault, err := os.ReadFile(filepath.Join(night, "sessions", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.TrimSpace(string(fault))
		got, ok := ends[e.Name()]
		if !ok {
			t.Errorf("session %s (%s) has no commit", e.Name(), f)
			continue
		}
		byEnd[got]++
		if want := nightEnds[f]; got != want {
			t.Errorf("session %s met %s: Strom-End %s, want %s", e.Name(), f, got, want)
		}
		delete(ends, e.Name())
	}
	for id, end := range ends {
		t.Errorf("commit of session %s (Strom-End %s) that no agent began", id, end)
	}
	t.Logf("session commits by Strom-End: %v", byEnd)

	// Every file and record the agent reported is in git; no refused record is.
	progress := committedRecords(func(args ...string) string { return h.git(t, args...) }, "HEAD")
	if strings.Contains(progress, `"text":"refused `) {
		t.Error("a record refused by the file size limit is in the records")
	}
	f, err := os.Open(filepath.Join(night, "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string]bool{}
	for _, p := range strings.Split(h.git(t, "ls-files", "out"), "\n") {
		files[p] = true
	}
	sc := bufio.NewScanner(f)
	reported := 0
	for sc.Scan() {
		kind, what, _ := strings.Cut(sc.Text(), " ")
		reported++
		switch kind {
		case "file":
			if !files[what] {
				t.Errorf("the agent's file %s is not in git", what)
			}
		case "record":
			if !strings.Contains(progress, `"text":"`+what+`"`) {
				t.Errorf("the record %q is not in git", what)
			}
		}
	}
	t.Logf("%d files and records the agent reported, all in git", reported)
	if st := uncommitted(h.git(t, "status", "--porcelain", "--untracked-files=all"), added); st != "" {
		t.Errorf("the work tree is not clean after the night:\n%s", st)
	}
}

// uncommitted is git status --porcelain without what a person's last strom task
// add leaves until a session commits it: those tasks' files of a hundred (new or
// changed) and the order that names them. Anything else, or those files with a session after them (then
// the order would be committed too), stays.
func uncommitted(status string, added []string) string {
	var rest, adds []string
	order := false
	for _, l := range strings.Split(strings.TrimRight(status, "\n"), "\n") {
		switch {
		case l == "":
		case l == " M .strom/queue.json":
			order = true
		case (strings.HasPrefix(l, "?? ") || strings.HasPrefix(l, " M ")) && slices.ContainsFunc(added, func(id string) bool { return l[3:] == ".strom/"+statefiles.ShardFile(id) }):
			adds = append(adds, l)
		default:
			rest = append(rest, l)
		}
	}
	if order != (len(adds) > 0) {
		// The order changed without new tasks, or new task files without their order.
		if order {
			rest = append(rest, " M .strom/queue.json")
		}
		rest = append(rest, adds...)
	}
	return strings.Join(rest, "\n")
}

// envValue is the value of key in env, the last one set.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// TestUncommittedAfterTheNight: only the test's own last addition, with its order,
// may stay uncommitted.
func TestUncommittedAfterTheNight(t *testing.T) {
	t.Parallel()
	added := []string{"T-41", "T-42"}
	for _, tc := range []struct{ status, want string }{
		{"", ""},
		{" M .strom/queue.json\n M .strom/tasks/T-1-99.json\n", ""},
		{" M .strom/queue.json\n", " M .strom/queue.json"},
		{" M .strom/tasks/T-1-99.json\n", " M .strom/tasks/T-1-99.json"},
		{" M .strom/queue.json\n?? .strom/tasks/T-100-199.json\n", "?? .strom/tasks/T-100-199.json\n M .strom/queue.json"},
		{" M .strom/queue.json\n M .strom/tasks/T-1-99.json\n?? out/x.txt\n", "?? out/x.txt"},
		{" M .strom/tasks/T-100-199.json\n", " M .strom/tasks/T-100-199.json"},
	} {
		if got := uncommitted(tc.status, added); got != tc.want {
			t.Errorf("uncommitted(%q) = %q, want %q", tc.status, got, tc.want)
		}
	}
}
