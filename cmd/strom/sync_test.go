package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strom-research/strom/statefiles"
)

// syncAgent works a task in one go: a file of its own, a record, done.
const syncAgent = `#!/bin/sh
mkdir -p notes
echo "$STROM_TASK on $STROM_HOST" > "notes/$STROM_TASK-$STROM_SESSION.txt"
strom record "found the page for $STROM_TASK" >/dev/null
strom done >/dev/null
`

// syncSetup is a research with tasks and sync.remote = origin, pushed to a bare
// repo dir/remote.git, and the agent script at dir/agent.sh.
func syncSetup(t *testing.T, agent string, tasks int) *cliHarness {
	t.Helper()
	h := newCLIHarness(t)
	// The merge drivers a run registers name the program strom is.
	h.stromAsItself(t)
	if err := os.WriteFile(filepath.Join(h.dir, "agent.sh"), []byte(agent), 0o755); err != nil {
		t.Fatal(err)
	}
	h.gitIn(t, h.repo, "init", "-q", "-b", "main")
	h.must(t, "init", "--agent", "command")
	for i := 1; i <= tasks; i++ {
		h.must(t, "task", "add", fmt.Sprintf("Find register %d", i))
	}
	h.must(t, "config", "set", "sync.remote", "origin", "--for-tree")
	h.gitIn(t, h.repo, "add", "-A")
	h.gitIn(t, h.repo, "commit", "-q", "-m", "the research")
	h.gitIn(t, h.dir, "clone", "-q", "--bare", h.repo, filepath.Join(h.dir, "remote.git"))
	return h
}

// laptopAndDesktop is syncSetup and two clones of its remote by its file://
// URL: laptop and desktop.
func laptopAndDesktop(t *testing.T, agent string, tasks int) (h *cliHarness, url, laptop, desktop string) {
	t.Helper()
	h = syncSetup(t, agent, tasks)
	url = "file://" + filepath.Join(h.dir, "remote.git")
	laptop, desktop = filepath.Join(h.dir, "laptop"), filepath.Join(h.dir, "desktop")
	for _, dir := range []string{laptop, desktop} {
		h.gitIn(t, h.dir, "clone", "-q", url, dir)
	}
	return h, url, laptop, desktop
}

// syncRun is strom run --loop in dir with the agent at dir/agent.sh of
// syncSetup, env added to the harness's.
func (h *cliHarness) syncRun(ctx context.Context, dir string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, h.strom, "run", "--loop", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
	cmd.Dir, cmd.Env = dir, append(slices.Clip(h.env), env...)
	return cmd
}

// mustSyncRun is syncRun run to its end; a failure fails the test.
func (h *cliHarness) mustSyncRun(t *testing.T, dir string, env ...string) string {
	t.Helper()
	out, err := h.syncRun(context.Background(), dir, env...).CombinedOutput()
	if err != nil {
		t.Fatalf("strom run --loop: %v\n%s", err, out)
	}
	return string(out)
}

func (h *cliHarness) gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, h.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// gitDaemon serves the repositories under base over git:// on a free loopback
// port until stop.
type gitDaemon struct {
	cmd  *exec.Cmd
	port int
	base string
}

func startGitDaemon(t *testing.T, h *cliHarness, base string, port int) *gitDaemon {
	t.Helper()
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	d := &gitDaemon{port: port, base: base}
	d.cmd = exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--base-path="+base, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	d.cmd.Env = h.env
	// git starts git-daemon as its child: the group is stopped as one.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start git daemon: %v", err)
	}
	t.Cleanup(d.stop)
	for try := 0; ; try++ {
		cmd := exec.Command("git", "ls-remote", d.url("remote.git"))
		cmd.Env = h.env
		if cmd.Run() == nil {
			break
		}
		if try > 100 {
			t.Fatal("git daemon does not answer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return d
}

func (d *gitDaemon) url(repo string) string {
	return fmt.Sprintf("git://127.0.0.1:%d/%s", d.port, repo)
}

func (d *gitDaemon) stop() {
	if d.cmd.Process != nil && d.cmd.ProcessState == nil {
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		d.cmd.Wait()
	}
}

// runLoops runs strom run --loop in each clone at once, with env added, and
// returns each clone's outputs. A run killed by a signal runs again at once, and
// one the remote's absence stopped (exit status 1, "cannot be reached") once
// back() says the remote is back, up to five times; any other failure fails
// the test.
func runLoops(t *testing.T, h *cliHarness, clones []string, env []string, back func()) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	texts := make([]string, len(clones))
	errs := make([]error, len(clones))
	var wg sync.WaitGroup
	for i, dir := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := 0; try < 5; try++ {
				var out bytes.Buffer
				cmd := h.syncRun(ctx, dir, append([]string{"STROM_HOST=" + filepath.Base(dir)}, env...)...)
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				texts[i] += out.String()
				var ee *exec.ExitError
				switch {
				case errors.As(err, &ee) && ee.ExitCode() == -1 && ctx.Err() == nil:
					// killed (kill -9 by the agent): its rerun lands what it left
				case err == nil || back == nil || !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(out.String(), "cannot be reached"):
					errs[i] = err
					return
				default:
					back()
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("strom run --loop in %s: %v\n%s", clones[i], err, texts[i])
		}
	}
	return texts
}

// checkSynced checks the remote's branch: every task (tasks of the research, and
// the follow-ups the agents added) done by exactly one session, every session
// commit of every clone on it with its Strom-Host, every record and agent file
// kept, the state files valid, and no clone with a session commit not pushed.
func checkSynced(t *testing.T, h *cliHarness, url string, clones []string, tasks, followUps int) {
	t.Helper()
	checkSyncedCrashed(t, h, url, clones, tasks, followUps, 0)
}

// checkSyncedCrashed is checkSynced where crashed sessions were killed mid-way:
// each a crashed session commit besides its task's one session that ended, its
// half record and its file kept.
func checkSyncedCrashed(t *testing.T, h *cliHarness, url string, clones []string, tasks, followUps, crashed int) {
	t.Helper()
	check := filepath.Join(h.dir, "check")
	h.gitIn(t, h.dir, "clone", "-q", url, check)
	tree := statefiles.At(check)
	q, err := tree.LoadQueue()
	if err != nil {
		t.Fatalf("the remote's queue: %v", err)
	}
	if len(q.Tasks) != tasks+followUps {
		t.Errorf("the remote's queue has %d tasks, want %d", len(q.Tasks), tasks+followUps)
	}
	var want []string
	titles := map[string]int{}
	for _, tk := range q.Tasks {
		want = append(want, tk.ID)
		titles[tk.Title]++
		if tk.State != statefiles.Done {
			t.Errorf("%s is %s on the remote, want done", tk.ID, tk.State)
		}
	}
	for i := 1; i <= tasks; i++ {
		if n := titles[fmt.Sprintf("Find register %d", i)]; n != 1 {
			t.Errorf("Find register %d is %d times in the remote's queue", i, n)
		}
	}
	for i := 1; i <= followUps; i++ {
		if n := titles[fmt.Sprintf("Follow-up of T-%d", i)]; n != 1 {
			t.Errorf("the follow-up of T-%d is %d times in the remote's queue", i, n)
		}
	}
	var sessions, crashes []string
	hosts := map[string]bool{}
	for _, dir := range clones {
		hosts[filepath.Base(dir)] = true
	}
	for _, l := range strings.Split(h.gitIn(t, check, "log", "--format=%(trailers:key=Strom-Task,valueonly,separator=)|%(trailers:key=Strom-Host,valueonly,separator=)|%(trailers:key=Strom-End,valueonly,separator=)"), "\n") {
		f := strings.Split(l, "|")
		if len(f) != 3 || f[0] == "" {
			continue
		}
		task, host := f[0], f[1]
		if f[2] == "crashed" {
			crashes = append(crashes, task)
		} else {
			sessions = append(sessions, task)
		}
		if !hosts[host] {
			t.Errorf("a session commit on %s has Strom-Host %q", task, host)
		}
	}
	slices.Sort(sessions)
	slices.Sort(want)
	if !slices.Equal(sessions, want) {
		t.Errorf("session commits on the remote by task = %v, want each of %v once", sessions, want)
	}
	lost := lostSessions(t, h, check, clones)
	for _, c := range lost {
		t.Errorf("session commit %s is not on the remote", c)
	}
	if len(crashes) != crashed {
		t.Errorf("crashed session commits on the remote: %v, want %d", crashes, crashed)
	}
	recs, err := tree.LoadProgress()
	if err != nil {
		t.Fatalf("the remote's records: %v", err)
	}
	per, halves := map[string]int{}, map[string]int{}
	for _, r := range recs {
		if strings.HasPrefix(r.Text, "half of ") {
			halves[r.Task]++
			continue
		}
		per[r.Task]++
	}
	for _, id := range want {
		if per[id] != 1 {
			t.Errorf("%s has %d records on the remote, want 1", id, per[id])
		}
	}
	for _, id := range crashes {
		if halves[id] != 1 {
			t.Errorf("the crashed session's record on %s is %d times on the remote", id, halves[id])
		}
	}
	if _, err := tree.LoadPark(); err != nil {
		t.Errorf("the remote's park.json: %v", err)
	}
	notes, _ := filepath.Glob(filepath.Join(check, "notes", "*.txt"))
	if len(notes) != tasks+followUps+crashed {
		t.Errorf("%d agent files on the remote, want %d", len(notes), tasks+followUps+crashed)
	}
	for _, dir := range clones {
		cmd := exec.Command(h.strom, "status")
		cmd.Dir, cmd.Env = dir, h.env
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "sync: on with origin, branch main") || strings.Contains(string(out), "not pushed") {
			t.Errorf("strom status in %s:\n%s", filepath.Base(dir), out)
		}
	}
	t.Logf("%d sessions of %d machines on %d tasks, %d killed and landed by the rerun: %d sessions lost, %d tasks worked twice", len(sessions), len(clones), len(want), len(crashes),
		len(lost), len(sessions)-len(slices.Compact(slices.Clone(sessions))))
}

// lostSessions are the session commits of the clones that the remote's clone
// check lacks: "abc1234 of machine" each.
func lostSessions(t *testing.T, h *cliHarness, check string, clones []string) []string {
	t.Helper()
	var lost []string
	for _, dir := range clones {
		for _, c := range strings.Fields(h.gitIn(t, dir, "log", "--format=%H %(trailers:key=Strom-Session,valueonly)")) {
			if len(c) != 40 {
				continue
			}
			cmd := exec.Command("git", "merge-base", "--is-ancestor", c, "HEAD")
			cmd.Dir, cmd.Env = check, h.env
			if cmd.Run() != nil {
				lost = append(lost, c[:7]+" of "+filepath.Base(dir))
			}
		}
	}
	return lost
}

// machinesAgent is syncAgent, and on each of the first $ADDS tasks it adds a
// follow-up task (machines adding tasks at once); on $STOP_AT it stops the git
// server mid-session, once ($STOPPED); on $KILL_AT it writes half its work and
// kills its strom (kill -9), once ($KILLED).
const machinesAgent = `#!/bin/sh
mkdir -p notes
n=${STROM_TASK#T-}
if [ "$n" -le "$ADDS" ]; then
	strom task add "Follow-up of $STROM_TASK" >/dev/null
fi
if [ "$n" = "$STOP_AT" ] && mkdir "$STOPPED" 2>/dev/null; then
	kill -9 "-$(cat "$DAEMON")"
fi
if [ "$n" = "$KILL_AT" ] && mkdir "$KILLED" 2>/dev/null; then
	echo "half of $STROM_TASK on $STROM_HOST" > "notes/$STROM_TASK-$STROM_SESSION.txt"
	strom record "half of $STROM_TASK" >/dev/null
	echo $$ > "$KILLED/agent"
	kill -9 "$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' .strom/run/run.json | head -1)"
	exec sleep 600
fi
echo "$STROM_TASK on $STROM_HOST" > "notes/$STROM_TASK-$STROM_SESSION.txt"
strom record "found the page for $STROM_TASK" >/dev/null
strom done >/dev/null
`

// TestSyncMachines: several clones of one research (5, and 3 with -short), each
// running strom run --loop at once, share its 30 tasks (12 with -short) through
// the remote: a git daemon on loopback, stopped mid-run by an agent and started
// again, and a plain path, where an agent kills its runner (kill -9) mid-session
// and the runner runs again. Agents add follow-up tasks at once. Every task is
// done by exactly one session (the killed one's besides, as crashed), every
// session's commit, file and record reaches the remote, and every added task is
// kept.
func TestSyncMachines(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	machines, tasks, followUps := 5, 30, 5
	if testing.Short() {
		machines, tasks, followUps = 3, 12, 3
	}
	for _, over := range []string{"git-daemon", "path"} {
		t.Run(over, func(t *testing.T) {
			t.Parallel()
			h := syncSetup(t, machinesAgent, tasks)
			url := filepath.Join(h.dir, "remote.git")
			// Over the path, one runner is killed mid-session and runs again.
			env := []string{fmt.Sprintf("ADDS=%d", followUps), "STOP_AT=0", fmt.Sprintf("KILL_AT=%d", tasks/2), "KILLED=" + filepath.Join(h.dir, "killed")}
			crashed := 1
			t.Cleanup(func() { // the killed session's agent, should its rerun not have stopped it
				if b, err := os.ReadFile(filepath.Join(h.dir, "killed", "agent")); err == nil {
					var pid int
					fmt.Sscan(string(b), &pid)
					if pid > 0 {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			var back func()
			if over == "git-daemon" {
				d := startGitDaemon(t, h, h.dir, 0)
				url = d.url("remote.git")
				pidFile, stopped := filepath.Join(h.dir, "daemon.pid"), filepath.Join(h.dir, "stopped")
				if err := os.WriteFile(pidFile, []byte(fmt.Sprint(d.cmd.Process.Pid)), 0o644); err != nil {
					t.Fatal(err)
				}
				env, crashed = []string{fmt.Sprintf("ADDS=%d", followUps), fmt.Sprintf("STOP_AT=%d", tasks/3), "KILL_AT=0", "DAEMON=" + pidFile, "STOPPED=" + stopped}, 0
				// The server comes back when the first run stopped without it asks.
				var once sync.Once
				back = func() {
					once.Do(func() {
						d.cmd.Wait()
						startGitDaemon(t, h, h.dir, d.port)
					})
				}
			}
			var clones []string
			for i := 1; i <= machines; i++ {
				dir := filepath.Join(h.dir, fmt.Sprintf("machine%d", i))
				h.gitIn(t, h.dir, "clone", "-q", url, dir)
				clones = append(clones, dir)
			}
			outs := runLoops(t, h, clones, env, back)
			all := strings.Join(outs, "\n")
			if n := strings.Count(all, "▶ session"); n != tasks+followUps+crashed {
				t.Errorf("%d sessions, want %d:\n%s", n, tasks+followUps+crashed, all)
			}
			if crashed > 0 && !strings.Contains(all, "did not end (its strom") {
				t.Errorf("no rerun committed the killed session:\n%s", all)
			}
			if over == "git-daemon" && !strings.Contains(all, "the remote origin cannot be reached") {
				t.Errorf("no run met the stopped server:\n%s", all)
			}
			checkSyncedCrashed(t, h, url, clones, tasks, followUps, crashed)
		})
	}
}

// TestSyncRemoteAway: the git server stops during a session. The session's
// commit stays in the clone, the run says so and stops before the next claim,
// strom status counts the commit not pushed; with the server back, the next run
// pushes it with its first claim, and nothing is lost.
func TestSyncRemoteAway(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const tasks = 3
	agent := `#!/bin/sh
if [ "$STROM_TASK" = T-1 ] && [ ! -e "$KILLED" ]; then
	strom task list > "$KILLED"
	kill -9 "-$DAEMON"
fi
` + strings.TrimPrefix(syncAgent, "#!/bin/sh\n")
	h := syncSetup(t, agent, tasks)
	d := startGitDaemon(t, h, h.dir, 0)
	clone := filepath.Join(h.dir, "laptop")
	h.gitIn(t, h.dir, "clone", "-q", d.url("remote.git"), clone)

	run := func() (string, error) {
		out, err := h.syncRun(context.Background(), clone, "STROM_HOST=laptop", "KILLED="+filepath.Join(h.dir, "killed"),
			fmt.Sprintf("DAEMON=%d", d.cmd.Process.Pid)).CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("the run without its remote: %v, want exit status 1:\n%s", err, out)
	}
	d.cmd.Wait()
	for _, want := range []string{
		"ended: done",
		"the remote origin cannot be reached: the session's commit stays in this clone",
		"stopped: error (the remote origin cannot be reached (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out)
		}
	}
	// The claim names its machine in the queue while the session works.
	if b, _ := os.ReadFile(filepath.Join(h.dir, "killed")); !regexp.MustCompile(`T-1 +started +Find register 1 — session \S+ on laptop`).Match(b) {
		t.Errorf("strom task list during the session:\n%s", b)
	}
	if n := strings.Count(out, "▶ session"); n != 1 {
		t.Errorf("%d sessions while the remote was away, want 1:\n%s", n, out)
	}
	if st := h.mustIn(t, clone, "status"); !strings.Contains(st, "sync: 1 session commit not pushed yet") {
		t.Errorf("strom status:\n%s", st)
	}
	if got := h.mustIn(t, clone, "log"); !strings.Contains(got, "@laptop") {
		t.Errorf("strom log does not show the host:\n%s", got)
	}

	startGitDaemon(t, h, h.dir, d.port)
	if out, err := run(); err != nil {
		t.Fatalf("the run with the remote back: %v\n%s", err, out)
	}
	checkSynced(t, h, d.url("remote.git"), []string{clone}, tasks, 0)
}

func (h *cliHarness) mustIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(h.strom, args...)
	cmd.Dir, cmd.Env = dir, h.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("strom %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestSyncConflictStops: this clone and the remote changed the same file of the
// research's own. The run merges nothing, starts no session and says what to do;
// the clone's commit and the remote's stay as they were.
func TestSyncConflictStops(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	h, _, laptop, desktop := laptopAndDesktop(t, syncAgent, 2)
	for _, dir := range []string{laptop, desktop} {
		if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte(filepath.Base(dir)+" wrote this\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		h.gitIn(t, dir, "add", "notes.md")
		h.gitIn(t, dir, "commit", "-q", "-m", "notes of "+filepath.Base(dir))
	}
	h.gitIn(t, desktop, "push", "-q", "origin", "main")
	head := h.gitIn(t, laptop, "rev-parse", "HEAD")

	out, err := h.syncRun(context.Background(), laptop).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("strom run: %v, want exit status 1\n%s", err, out)
	}
	want := "0 sessions · stopped: error (this clone and origin/main changed the same files (notes.md), which strom leaves to a person: merge them by hand (git pull origin main), then run strom again; nothing was lost)"
	if !strings.Contains(string(out), want) {
		t.Errorf("the run's output lacks %q:\n%s", want, out)
	}
	if got := h.gitIn(t, laptop, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %s to %s", head, got)
	}
	if st := h.gitIn(t, laptop, "status", "--porcelain", "--untracked-files=no"); strings.TrimSpace(st) != "" {
		t.Errorf("the work tree changed:\n%s", st)
	}
	if b, _ := os.ReadFile(filepath.Join(laptop, "notes.md")); string(b) != "laptop wrote this\n" {
		t.Errorf("notes.md = %q", b)
	}
	if q := h.gitIn(t, h.dir, "--git-dir="+filepath.Join(h.dir, "remote.git"), "grep", "-c", `"state": "open"`, "main", "--", ".strom/tasks/"); !strings.Contains(q, ".strom/tasks/T-1-99.json:2") {
		t.Errorf("the remote's open tasks are %q, want T-1 and T-2 (a claim reached it?)", q)
	}
}

// hangAgent is syncAgent, but its first session on T-1 writes its file and a
// record, says so in $HANG and then hangs (its strom is killed meanwhile).
const hangAgent = `#!/bin/sh
mkdir -p notes
if [ "$STROM_TASK" = T-1 ] && [ ! -e "$HANG" ]; then
	echo "half of $STROM_TASK on $STROM_HOST" > "notes/$STROM_TASK-$STROM_SESSION.txt"
	strom record "half of $STROM_TASK" >/dev/null
	echo $$ > "$HANG"
	exec sleep 600
fi
` + `echo "$STROM_TASK on $STROM_HOST" > "notes/$STROM_TASK-$STROM_SESSION.txt"
strom record "found the page for $STROM_TASK" >/dev/null
strom done >/dev/null
`

// deadMachine is a research of tasks tasks shared by laptop and desktop through
// a git daemon, where laptop's run was killed (kill -9) in its session on T-1.
type deadMachine struct {
	h                *cliHarness
	d                *gitDaemon
	laptop, desktop  string
	hang, killedSess string
}

func killLaptop(t *testing.T, tasks int) *deadMachine {
	t.Helper()
	h := syncSetup(t, hangAgent, tasks)
	m := &deadMachine{h: h, d: startGitDaemon(t, h, h.dir, 0), hang: filepath.Join(h.dir, "hang")}
	m.laptop, m.desktop = filepath.Join(h.dir, "laptop"), filepath.Join(h.dir, "desktop")
	for _, dir := range []string{m.laptop, m.desktop} {
		h.gitIn(t, h.dir, "clone", "-q", m.d.url("remote.git"), dir)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(m.hang); err == nil {
			var pid int
			fmt.Sscan(string(b), &pid)
			if pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	cmd := m.run("laptop", "")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		if b, err := os.ReadFile(m.hang); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		if try > 600 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("laptop's session on T-1 did not begin:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	q, err := statefiles.At(m.laptop).LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := q.Find("T-1")
	m.killedSess = t1.Session
	if t1.State != statefiles.Started || t1.Host != "laptop" {
		t.Fatalf("laptop's T-1 = %+v, want started on laptop", t1)
	}
	return m
}

// run is strom run --loop on machine, its clock at base ("" the real one).
func (m *deadMachine) run(machine, base string) *exec.Cmd {
	env := []string{"STROM_HOST=" + machine, "HANG=" + m.hang}
	if base != "" {
		env = append(env, "STROM_TEST_TIME_BASE="+base)
	}
	return m.h.syncRun(context.Background(), filepath.Join(m.h.dir, machine), env...)
}

func (m *deadMachine) mustRun(t *testing.T, machine, base string) string {
	t.Helper()
	out, err := m.run(machine, base).CombinedOutput()
	if err != nil {
		t.Fatalf("strom run --loop on %s: %v\n%s", machine, err, out)
	}
	return string(out)
}

// remoteSessions are the session commits on the remote's branch, oldest first:
// "task end host" each.
func (m *deadMachine) remoteSessions(t *testing.T) []string {
	t.Helper()
	out := m.h.gitIn(t, m.h.dir, "--git-dir="+filepath.Join(m.h.dir, "remote.git"), "log", "--reverse",
		"--format=%(trailers:key=Strom-Task,valueonly,separator=)|%(trailers:key=Strom-End,valueonly,separator=)|%(trailers:key=Strom-Host,valueonly,separator=)", "main")
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "|"); len(f) == 3 && f[0] != "" {
			got = append(got, strings.Join(f, " "))
		}
	}
	return got
}

// TestSyncKilledRunner: laptop's run is killed (kill -9) in its session on T-1.
// Its claim stays on the remote: desktop works every other task and not T-1, and
// shows the claim with laptop's name. laptop's rerun commits what the session
// left, pushes it, and works T-1 once more; nothing is lost.
func TestSyncKilledRunner(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const tasks = 4
	m := killLaptop(t, tasks)
	out := m.mustRun(t, "desktop", "")
	if strings.Count(out, "▶ session") != tasks-1 || strings.Contains(out, "on T-1") {
		t.Errorf("desktop while laptop's claim holds T-1:\n%s", out)
	}
	// desktop's next run starts from a queue that holds laptop's claim: it is
	// another machine's, not a session of desktop's that died.
	m.h.mustIn(t, m.desktop, "task", "add", "Find register 5")
	if out := m.mustRun(t, "desktop", ""); strings.Count(out, "▶ session") != 1 || strings.Contains(out, "on T-1") {
		t.Errorf("desktop's second run while laptop's claim holds T-1:\n%s", out)
	}
	st := m.h.mustIn(t, m.desktop, "status")
	if !regexp.MustCompile(`(?m)^claim: T-1 started on laptop, session ` + m.killedSess + `, since \d{4}-\d\d-\d\d \d\d:\d\d$`).MatchString(st) {
		t.Errorf("strom status on desktop does not show laptop's claim:\n%s", st)
	}
	if js := m.h.mustIn(t, m.desktop, "status", "--json"); !strings.Contains(js, `"host": "laptop"`) || !strings.Contains(js, `"task": "T-1"`) {
		t.Errorf("strom status --json on desktop lacks laptop's claim:\n%s", js)
	}
	if l := m.h.mustIn(t, m.desktop, "task", "list"); !regexp.MustCompile(`T-1 +started +Find register 1 — started on laptop, session ` + m.killedSess + `, since `).MatchString(l) {
		t.Errorf("strom task list on desktop:\n%s", l)
	}
	if l := m.h.mustIn(t, m.desktop, "task", "list", "--json"); !strings.Contains(l, `"host": "laptop"`) {
		t.Errorf("strom task list --json on desktop lacks the host:\n%s", l)
	}

	out = m.mustRun(t, "laptop", "")
	for _, want := range []string{"↺ session " + m.killedSess + " on T-1 did not end", "▶ session"} {
		if !strings.Contains(out, want) {
			t.Errorf("laptop's rerun lacks %q:\n%s", want, out)
		}
	}
	want := []string{"T-2 done desktop", "T-3 done desktop", "T-4 done desktop", "T-5 done desktop", "T-1 crashed laptop", "T-1 done laptop"}
	got := m.remoteSessions(t)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("session commits on the remote = %q, want %q", got, want)
	}
	m.checkKept(t, tasks+1)
}

// checkKept: on the remote every task is done, the killed session's file and
// record are kept, and no clone has a session commit the remote lacks.
func (m *deadMachine) checkKept(t *testing.T, tasks int) {
	t.Helper()
	check := filepath.Join(m.h.dir, "check")
	m.h.gitIn(t, m.h.dir, "clone", "-q", m.d.url("remote.git"), check)
	q, err := statefiles.At(check).LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range q.Tasks {
		if tk.State != statefiles.Done {
			t.Errorf("%s is %s on the remote, want done", tk.ID, tk.State)
		}
	}
	if b, err := os.ReadFile(filepath.Join(check, "notes", "T-1-"+m.killedSess+".txt")); err != nil || !strings.Contains(string(b), "half of T-1 on laptop") {
		t.Errorf("the killed session's file on the remote: %q %v", b, err)
	}
	recs, err := statefiles.At(check).LoadProgress()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs {
		found = found || (r.Session == m.killedSess && r.Text == "half of T-1")
	}
	if !found {
		t.Errorf("the killed session's record is not on the remote: %+v", recs)
	}
	for _, dir := range []string{m.laptop, m.desktop} {
		if n := strings.TrimSpace(m.h.gitIn(t, dir, "rev-list", "--count", "origin/main..HEAD")); n != "0" {
			if ahead := m.h.gitIn(t, dir, "log", "--format=%(trailers:key=Strom-Session,valueonly)", "origin/main..HEAD"); strings.TrimSpace(ahead) != "" {
				t.Errorf("%s has session commits the remote lacks: %s", filepath.Base(dir), ahead)
			}
		}
	}
}

// TestSyncStaleClaim: laptop dies in its session on T-1 and does not come back.
// Once its claim is older than the session limit plus 10 minutes (the clock
// moved on two hours), desktop takes T-1 over, says so and commits it with a
// Strom-Takeover trailer. laptop's rerun later still lands what its session
// left, and T-1 is not worked a third time: two sessions, both in history.
func TestSyncStaleClaim(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	const tasks = 3
	m := killLaptop(t, tasks)
	// Within the claim's time, desktop leaves T-1 to laptop.
	soon := time.Now().UTC().Add(65 * time.Minute).Format(time.RFC3339)
	if out := m.mustRun(t, "desktop", soon); strings.Contains(out, "on T-1") {
		t.Errorf("desktop took T-1 within the claim's time:\n%s", out)
	}
	later := time.Now().UTC().Add(2 * time.Hour).Format(time.RFC3339)
	out := m.mustRun(t, "desktop", later)
	if !regexp.MustCompile(`⇄ T-1 is held by session ` + m.killedSess + ` on laptop since \d{4}-\d\d-\d\d \d\d:\d\d, longer than the session limit plus 10 minutes: this machine takes it over`).MatchString(out) {
		t.Errorf("desktop's run does not say it took T-1 over:\n%s", out)
	}
	if strings.Count(out, "▶ session") != 1 {
		t.Errorf("desktop's run after the claim grew stale:\n%s", out)
	}
	claim := m.h.gitIn(t, m.h.dir, "--git-dir="+filepath.Join(m.h.dir, "remote.git"), "log", "-1", "--format=%B", "--grep=Strom-Takeover")
	if !strings.Contains(claim, "Strom-Claim: T-1") || !strings.Contains(claim, "Strom-Takeover: "+m.killedSess+"@laptop") || !strings.Contains(claim, "Strom-Host: desktop") {
		t.Errorf("the takeover's claim commit:\n%s", claim)
	}

	out = m.mustRun(t, "laptop", time.Now().UTC().Add(3*time.Hour).Format(time.RFC3339))
	if !strings.Contains(out, "↺ session "+m.killedSess+" on T-1 did not end") || strings.Contains(out, "▶ session") {
		t.Errorf("laptop's rerun:\n%s", out)
	}
	got := m.remoteSessions(t)
	want := []string{"T-2 done desktop", "T-3 done desktop", "T-1 done desktop", "T-1 crashed laptop"}
	if !slices.Equal(got, want) {
		t.Errorf("session commits on the remote = %q, want %q", got, want)
	}
	m.checkKept(t, tasks)
}

// TestSyncConflictToBranch: laptop's session on T-1 writes notes.md while desktop
// pushes its own notes.md. strom merges none of it: the session's commit goes to
// the branch strom/<session> on the remote, T-1 is parked with a reason naming
// the branch, the run says so and goes on with T-2; laptop's branch is the
// remote's again, and nothing is lost.
func TestSyncConflictToBranch(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	agent := `#!/bin/sh
if [ "$STROM_TASK" = T-1 ]; then
	git -C "$DESKTOP" pull -q --no-rebase origin main
	echo "desktop's words" > "$DESKTOP/notes.md"
	git -C "$DESKTOP" add notes.md
	git -C "$DESKTOP" commit -q -m "notes of desktop"
	git -C "$DESKTOP" push -q origin main
	echo "laptop's words" > notes.md
fi
` + strings.TrimPrefix(syncAgent, "#!/bin/sh\n")
	h, url, laptop, desktop := laptopAndDesktop(t, agent, 2)
	out := h.mustSyncRun(t, laptop, "STROM_HOST=laptop", "DESKTOP="+desktop)
	m := regexp.MustCompile(`⇄ the session on T-1 changed the same files as origin/main \(notes\.md\): its commit waits for a person on branch (strom/\S+) of origin, T-1 is parked, and the run goes on with other tasks`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the run does not say where the session went:\n%s", out)
	}
	branch := m[1]
	if !strings.Contains(out, "on T-2") || !strings.Contains(out, "2 sessions · stopped: every task left waits for a person · 1 task needs you: strom task list --state parked") {
		t.Errorf("the run did not go on with T-2:\n%s", out)
	}
	bare := "--git-dir=" + filepath.Join(h.dir, "remote.git")
	if got := h.gitIn(t, h.dir, bare, "show", branch+":notes.md"); got != "laptop's words\n" {
		t.Errorf("notes.md on %s = %q", branch, got)
	}
	if got := h.gitIn(t, h.dir, bare, "log", "-1", "--format=%(trailers:key=Strom-Task,valueonly)", branch); strings.TrimSpace(got) != "T-1" {
		t.Errorf("the head of %s is not the session's commit: %q", branch, got)
	}
	if got := h.gitIn(t, h.dir, bare, "show", "main:notes.md"); got != "desktop's words\n" {
		t.Errorf("notes.md on main = %q", got)
	}
	check := filepath.Join(h.dir, "check")
	h.gitIn(t, h.dir, "clone", "-q", url, check)
	q, err := statefiles.At(check).LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := q.Find("T-1")
	t2, _ := q.Find("T-2")
	if t1.State != statefiles.Parked || !strings.Contains(t1.Reason, "waits on branch "+branch) || !strings.Contains(t1.Reason, "strom task unpark T-1") || t1.Host != "" {
		t.Errorf("T-1 on the remote = %+v, want parked naming %s", t1, branch)
	}
	if t2.State != statefiles.Done {
		t.Errorf("T-2 on the remote is %s", t2.State)
	}
	if got := h.gitIn(t, check, "log", "-1", "--format=%(trailers:key=Strom-Branch,valueonly)", "--grep=parked for a person"); strings.TrimSpace(got) != branch {
		t.Errorf("the commit that parks T-1 names %q", got)
	}
	// laptop: its branch is the remote's, the diverted commit kept in a branch
	// of its own too.
	if n := strings.TrimSpace(h.gitIn(t, laptop, "rev-list", "--count", "origin/main..HEAD")); n != "0" {
		t.Errorf("laptop has %s commits the remote lacks", n)
	}
	if got := h.gitIn(t, laptop, "show", branch+":notes.md"); got != "laptop's words\n" {
		t.Errorf("laptop's %s: notes.md = %q", branch, got)
	}
	if l := h.mustIn(t, laptop, "task", "list"); !regexp.MustCompile(`T-1 +parked +Find register 1 — the commit of its session \S+ conflicts with origin/main in notes.md and waits on branch ` + regexp.QuoteMeta(branch)).MatchString(l) {
		t.Errorf("strom task list on laptop:\n%s", l)
	}
}

// TestSyncSameNewID: laptop and desktop each add a task T-2 of their own, and
// laptop keeps a record and a park counter on its T-2 before it meets the
// remote. Before merging, laptop's run renumbers its T-2 to T-3 in a commit of
// its own, the record and the counter with it; the merge then meets no id
// twice, and both tasks are kept and worked once.
func TestSyncSameNewID(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	h, url, laptop, desktop := laptopAndDesktop(t, syncAgent, 1)
	h.mustIn(t, desktop, "task", "add", "Desktop's find")
	h.gitIn(t, desktop, "add", "-A") // the new task's file
	h.gitIn(t, desktop, "commit", "-q", "-m", "desktop's task")
	h.gitIn(t, desktop, "push", "-q", "origin", "main")
	h.mustIn(t, laptop, "task", "add", "Laptop's find")
	h.mustIn(t, laptop, "record", "--task", "T-2", "the laptop's note on its T-2")
	if err := os.WriteFile(filepath.Join(laptop, ".strom", "park.json"), []byte(`{"version":1,"empty":{"T-2":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.gitIn(t, laptop, "add", "-A")
	h.gitIn(t, laptop, "commit", "-q", "-m", "laptop's task")

	out := h.mustSyncRun(t, laptop, "STROM_HOST=laptop")
	if !strings.Contains(out, "⇄ origin/main added tasks under the ids this clone gave its new ones: T-2 is now T-3") {
		t.Errorf("the run does not say it renumbered:\n%s", out)
	}
	if n := strings.Count(out, "▶ session"); n != 3 {
		t.Errorf("%d sessions, want 3:\n%s", n, out)
	}
	check := filepath.Join(h.dir, "check")
	h.gitIn(t, h.dir, "clone", "-q", url, check)
	q, err := statefiles.At(check).LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range q.Tasks {
		got = append(got, fmt.Sprintf("%s %s %s", tk.ID, tk.Title, tk.State))
	}
	want := []string{"T-1 Find register 1 done", "T-2 Desktop's find done", "T-3 Laptop's find done"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the remote's tasks = %q, want %q", got, want)
	}
	recs, err := statefiles.At(check).LoadProgress()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Text == "the laptop's note on its T-2" && r.Task != "T-3" {
			t.Errorf("the laptop's record is on %s, want T-3", r.Task)
		}
	}
	renumber := h.gitIn(t, check, "log", "--format=%H", "--grep=new tasks renumbered")
	if len(strings.Fields(renumber)) != 1 {
		t.Fatalf("renumbering commits: %q", renumber)
	}
	c := strings.TrimSpace(renumber)
	if msg := h.gitIn(t, check, "log", "-1", "--format=%B", c); !strings.Contains(msg, "strom: new tasks renumbered, origin/main has their ids") || !strings.Contains(msg, "T-2 is now T-3") {
		t.Errorf("the renumbering commit's message:\n%s", msg)
	}
	if park := h.gitIn(t, check, "show", c+":.strom/park.json"); !strings.Contains(park, `"T-3": 1`) || strings.Contains(park, "T-2") {
		t.Errorf("park.json in the renumbering commit:\n%s", park)
	}
	if p := committedRecords(func(args ...string) string { return h.gitIn(t, check, args...) }, c); !strings.Contains(p, `"task":"T-3","text":"the laptop's note on its T-2"`) {
		t.Errorf("the records in the renumbering commit:\n%s", p)
	}
	// The task moves with its id inside its file of a hundred: T-2 is gone, T-3 is
	// the laptop's.
	f := h.gitIn(t, check, "show", c+":.strom/tasks/T-1-99.json")
	if shard, err := statefiles.ParseShard("renumbered", statefiles.ShardFile("T-3"), []byte(f)); err != nil || len(shard) != 2 || shard[1].ID != "T-3" || shard[1].Title != "Laptop's find" {
		t.Errorf(".strom/tasks/T-1-99.json in the renumbering commit (%v):\n%s", err, f)
	}
}

// TestSyncEndsOnlyWhenPushed: a run of one session whose push found the remote
// away does not end as done: it ends with the sentence that says how many session
// commits stay in the clone, exit status 1; the next run with the remote back
// pushes them.
func TestSyncEndsOnlyWhenPushed(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	agent := `#!/bin/sh
if [ ! -e "$KILLED" ]; then
	touch "$KILLED"
	kill -9 "-$DAEMON"
fi
` + strings.TrimPrefix(syncAgent, "#!/bin/sh\n")
	h := syncSetup(t, agent, 2)
	d := startGitDaemon(t, h, h.dir, 0)
	clone := filepath.Join(h.dir, "laptop")
	h.gitIn(t, h.dir, "clone", "-q", d.url("remote.git"), clone)
	cmd := exec.Command(h.strom, "run", "--max", "1", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
	cmd.Dir, cmd.Env = clone, append(slices.Clip(h.env), "STROM_HOST=laptop", "KILLED="+filepath.Join(h.dir, "killed"),
		fmt.Sprintf("DAEMON=%d", d.cmd.Process.Pid))
	b, err := cmd.CombinedOutput()
	out := string(b)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("the run whose push found no remote: %v, want exit status 1:\n%s", err, out)
	}
	d.cmd.Wait()
	if !strings.Contains(out, "ended: done") || !strings.Contains(out, "stopped: error (1 session commit stays in this clone, not on origin (") {
		t.Errorf("the run's output:\n%s", out)
	}
	startGitDaemon(t, h, h.dir, d.port)
	if out, err := h.syncRun(context.Background(), clone, "STROM_HOST=laptop", "KILLED="+filepath.Join(h.dir, "killed")).CombinedOutput(); err != nil {
		t.Fatalf("the run with the remote back: %v\n%s", err, out)
	}
	checkSynced(t, h, d.url("remote.git"), []string{clone}, 2, 0)
}
