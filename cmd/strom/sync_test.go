package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
	// A hard link, not a symlink: the merge drivers a run registers name the
	// program strom is (os.Executable), which must run as strom, not as the tests.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(h.strom); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, h.strom); err != nil {
		t.Fatal(err)
	}
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

// runLoops runs strom run --loop in each clone at once and returns their outputs.
func runLoops(t *testing.T, h *cliHarness, clones []string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	outs := make([]bytes.Buffer, len(clones))
	cmds := make([]*exec.Cmd, len(clones))
	for i, dir := range clones {
		cmd := exec.CommandContext(ctx, h.strom, "run", "--loop", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
		cmd.Dir = dir
		cmd.Env = append(slices.Clip(h.env), "STROM_HOST="+filepath.Base(dir))
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	texts := make([]string, len(clones))
	for i, cmd := range cmds {
		err := cmd.Wait()
		texts[i] = outs[i].String()
		if err != nil {
			t.Errorf("strom run --loop in %s: %v\n%s", clones[i], err, texts[i])
		}
	}
	return texts
}

// checkSynced checks the remote's branch: every task done by exactly one
// session, every session commit of every clone on it, every record kept, the
// state files valid.
func checkSynced(t *testing.T, h *cliHarness, url string, clones []string, tasks int) {
	t.Helper()
	check := filepath.Join(h.dir, "check")
	h.gitIn(t, h.dir, "clone", "-q", url, check)
	sessions := strings.Fields(h.gitIn(t, check, "log", "--format=%(trailers:key=Strom-Task,valueonly)"))
	slices.Sort(sessions)
	var want []string
	for i := 1; i <= tasks; i++ {
		want = append(want, fmt.Sprintf("T-%d", i))
	}
	slices.Sort(want)
	if !slices.Equal(sessions, want) {
		t.Errorf("session commits on the remote by task = %v, want each of %v once", sessions, want)
	}
	for _, dir := range clones {
		for _, c := range strings.Fields(h.gitIn(t, dir, "log", "--format=%H %(trailers:key=Strom-Session,valueonly)")) {
			if len(c) != 40 {
				continue
			}
			cmd := exec.Command("git", "merge-base", "--is-ancestor", c, "HEAD")
			cmd.Dir, cmd.Env = check, h.env
			if cmd.Run() != nil {
				t.Errorf("session commit %s of %s is not on the remote", c[:7], filepath.Base(dir))
			}
		}
	}
	hosts := h.gitIn(t, check, "log", "--format=%(trailers:key=Strom-Host,valueonly)")
	for _, dir := range clones {
		if !strings.Contains(hosts, filepath.Base(dir)) {
			t.Errorf("no commit of %s has its Strom-Host:\n%s", filepath.Base(dir), hosts)
		}
	}
	tree := statefiles.At(check)
	q, err := tree.LoadQueue()
	if err != nil {
		t.Fatalf("the remote's queue: %v", err)
	}
	if len(q.Tasks) != tasks {
		t.Errorf("the remote's queue has %d tasks, want %d", len(q.Tasks), tasks)
	}
	for _, tk := range q.Tasks {
		if tk.State != statefiles.Done {
			t.Errorf("%s is %s on the remote, want done", tk.ID, tk.State)
		}
	}
	recs, err := tree.LoadProgress()
	if err != nil {
		t.Fatalf("the remote's records: %v", err)
	}
	per := map[string]int{}
	for _, r := range recs {
		per[r.Task]++
	}
	for _, id := range want {
		if per[id] != 1 {
			t.Errorf("%s has %d records on the remote, want 1", id, per[id])
		}
	}
	notes, _ := filepath.Glob(filepath.Join(check, "notes", "*.txt"))
	if len(notes) != tasks {
		t.Errorf("%d agent files on the remote, want %d", len(notes), tasks)
	}
	for _, dir := range clones {
		cmd := exec.Command(h.strom, "status")
		cmd.Dir, cmd.Env = dir, h.env
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "sync: on with origin, branch main") || strings.Contains(string(out), "not pushed") {
			t.Errorf("strom status in %s:\n%s", filepath.Base(dir), out)
		}
	}
}

// TestSyncThreeMachines: three clones of one research, each running strom run
// --loop at once, share its ten tasks through the remote (git daemon on loopback,
// and a file:// remote): every task is done by exactly one session, and every
// session's commit, file and record reaches the remote.
func TestSyncThreeMachines(t *testing.T) {
	t.Parallel()
	for _, over := range []string{"git-daemon", "file"} {
		t.Run(over, func(t *testing.T) {
			t.Parallel()
			const tasks = 10
			h := syncSetup(t, syncAgent, tasks)
			url := "file://" + filepath.Join(h.dir, "remote.git")
			if over == "git-daemon" {
				url = startGitDaemon(t, h, h.dir, 0).url("remote.git")
			}
			var clones []string
			for _, m := range []string{"laptop", "desktop", "office"} {
				dir := filepath.Join(h.dir, m)
				h.gitIn(t, h.dir, "clone", "-q", url, dir)
				clones = append(clones, dir)
			}
			outs := runLoops(t, h, clones)
			all := strings.Join(outs, "\n")
			if n := strings.Count(all, "▶ session"); n != tasks {
				t.Errorf("%d sessions, want %d:\n%s", n, tasks, all)
			}
			checkSynced(t, h, url, clones, tasks)
		})
	}
}

// TestSyncRemoteAway: the git server stops during a session. The session's
// commit stays in the clone, the run says so and stops before the next claim,
// strom status counts the commit not pushed; with the server back, the next run
// pushes it with its first claim, and nothing is lost.
func TestSyncRemoteAway(t *testing.T) {
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
		cmd := exec.Command(h.strom, "run", "--loop", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
		cmd.Dir = clone
		cmd.Env = append(slices.Clip(h.env), "STROM_HOST=laptop", "KILLED="+filepath.Join(h.dir, "killed"),
			fmt.Sprintf("DAEMON=%d", d.cmd.Process.Pid))
		out, err := cmd.CombinedOutput()
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
	if st := h.mustIn(t, clone, "status"); !strings.Contains(st, "sync: 1 session commits not pushed yet") {
		t.Errorf("strom status:\n%s", st)
	}
	if got := h.mustIn(t, clone, "log"); !strings.Contains(got, "@laptop") {
		t.Errorf("strom log does not show the host:\n%s", got)
	}

	startGitDaemon(t, h, h.dir, d.port)
	if out, err := run(); err != nil {
		t.Fatalf("the run with the remote back: %v\n%s", err, out)
	}
	checkSynced(t, h, d.url("remote.git"), []string{clone}, tasks)
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
	t.Parallel()
	h := syncSetup(t, syncAgent, 2)
	url := "file://" + filepath.Join(h.dir, "remote.git")
	laptop, desktop := filepath.Join(h.dir, "laptop"), filepath.Join(h.dir, "desktop")
	for _, dir := range []string{laptop, desktop} {
		h.gitIn(t, h.dir, "clone", "-q", url, dir)
		if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte(filepath.Base(dir)+" wrote this\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		h.gitIn(t, dir, "add", "notes.md")
		h.gitIn(t, dir, "commit", "-q", "-m", "notes of "+filepath.Base(dir))
	}
	h.gitIn(t, desktop, "push", "-q", "origin", "main")
	head := h.gitIn(t, laptop, "rev-parse", "HEAD")

	cmd := exec.Command(h.strom, "run", "--loop", "--agent", "command", "--", "sh", filepath.Join(h.dir, "agent.sh"))
	cmd.Dir, cmd.Env = laptop, h.env
	out, err := cmd.CombinedOutput()
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
	if q := h.gitIn(t, h.dir, "--git-dir="+filepath.Join(h.dir, "remote.git"), "show", "main:.strom/queue.json"); strings.Contains(q, "started") {
		t.Errorf("a claim reached the remote:\n%s", q)
	}
}
