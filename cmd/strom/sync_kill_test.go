package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// campaignAgent works a task in a random short time: a file of its own and a
// record first, then a pause of up to half a second, then, while $FOLLOW exists,
// a follow-up task, and the task's end. A kill may find it anywhere in that.
const campaignAgent = `#!/bin/sh
mkdir -p notes
echo "$STROM_TASK on $STROM_HOST" > "notes/$STROM_TASK-$STROM_SESSION.txt"
strom record "worked on $STROM_TASK" >/dev/null
r=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
sleep "$(printf '0.%03d' $((r * 2)))"
if [ -e "$FOLLOW" ]; then
	strom task add "Follow-up of $STROM_TASK in $STROM_SESSION" >/dev/null
fi
strom done >/dev/null
`

// campaignClone is one machine of the kill campaign: a clone running strom run
// --loop again and again.
type campaignClone struct {
	dir, host string

	mu      sync.Mutex
	cmd     *exec.Cmd // the run going on, nil between runs
	hit     bool      // the run going on got a kill
	stopped bool      // no further run
}

// campaign is the state of TestSyncKillCampaign: the research, its remote, its
// clones and what happened to them.
type campaign struct {
	h      *cliHarness
	d      *gitDaemon
	bare   string // the bare repo both kinds of remote serve
	follow string // the file whose existence makes agents add follow-ups
	mark   string // in the environment of every process of the campaign
	clones []*campaignClone
	logs   string // with STROM_TEST_CAMPAIGN_LOGS: the folder where each run's output and each kill is kept

	mu       sync.Mutex
	away     bool // the remote is away now
	outages  int  // outages begun so far
	runs     int
	reruns   int // runs after a kill of the clone's run
	awayEnds int // runs that ended for the remote away
	wedged   []string
}

// TestSyncKillCampaign: 3 to 5 clones of one research, half of them over the
// bare repo's path and half over a git daemon on loopback, run strom run --loop
// at once while a driver kills (kill -9) at random a run's strom, its agent, both,
// or a git strom started (with its strom or alone), and takes the remote away
// (the daemon stopped, the bare repo renamed) and brings it back at random. A
// killed run runs again at once. 20 kills (1,000 with -soak: make soak, which
// stops killing 15 minutes before the test's deadline; STROM_TEST_CAMPAIGN_KILLS
// sets another number). No rerun may be refused
// (a merge, a lock, anything a person would mend), and no run may end in an
// error its own kill or the remote's absence does not explain. Then every clone
// runs to no open tasks with the remote present, and on the remote: every task
// done, none worked twice (two sessions that ended done, or two sessions held at
// once), every session commit of every clone there, no temporary file of strom or
// git in any commit, git fsck --strict clean, no claim left.
func TestSyncKillCampaign(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	kills, machines := 20, 3
	if *soak {
		kills, machines = 1000, 5
	}
	// STROM_TEST_CAMPAIGN_KILLS sets the number of kills (a shorter soak).
	if n, err := strconv.Atoi(os.Getenv("STROM_TEST_CAMPAIGN_KILLS")); err == nil && n > 0 {
		kills = n
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seed := rng.Int63()
	rng = rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)

	h := syncSetup(t, campaignAgent, 3*machines)
	c := &campaign{h: h, bare: filepath.Join(h.dir, "remote.git"), follow: filepath.Join(h.dir, "follow"), mark: "STROM_TEST_CAMPAIGN=" + h.dir}
	c.d = startGitDaemon(t, h, h.dir, 0)
	if c.logs = os.Getenv("STROM_TEST_CAMPAIGN_LOGS"); c.logs != "" {
		if err := os.MkdirAll(c.logs, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.killLeftovers)
	for i := 1; i <= machines; i++ {
		cl := &campaignClone{dir: filepath.Join(h.dir, fmt.Sprintf("machine%d", i)), host: fmt.Sprintf("machine%d", i)}
		url := c.bare
		if i%2 == 0 {
			url = c.d.url("remote.git")
		}
		h.gitIn(t, h.dir, "clone", "-q", url, cl.dir)
		c.clones = append(c.clones, cl)
	}
	if err := os.WriteFile(c.follow, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for _, cl := range c.clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.runAgainAndAgain(ctx, cl)
		}()
	}

	// The driver: a kill in each round, an outage now and then.
	stopAt := time.Time{}
	if dl, ok := t.Deadline(); ok {
		stopAt = dl.Add(-15 * time.Minute)
	}
	done := map[string]int{}
	missed, rounds := 0, 0
	var backAt time.Time
	awayKind := ""
	outages := map[string]int{}
	begun := time.Now()
	for n := 0; n < kills; rounds++ {
		if !stopAt.IsZero() && time.Now().After(stopAt) {
			t.Logf("the test's deadline is near: killing stops after %d kills", n)
			break
		}
		if awayKind != "" && time.Now().After(backAt) {
			c.bringBack(t, awayKind)
			c.log("driver", "remote back: "+awayKind)
			awayKind = ""
		}
		if awayKind == "" && rng.Intn(8) == 0 {
			awayKind = []string{"daemon", "rename"}[rng.Intn(2)]
			backAt = time.Now().Add(time.Duration(500+rng.Intn(6000)) * time.Millisecond)
			c.takeAway(t, awayKind)
			c.log("driver", "remote away: "+awayKind)
			outages[awayKind]++
		}
		if rounds%5 == 0 {
			c.steerFollowUps(len(c.clones))
		}
		cl := c.clones[rng.Intn(len(c.clones))]
		time.Sleep(time.Duration(20+rng.Intn(800)) * time.Millisecond)
		kind := []string{"strom", "agent", "both", "git"}[rng.Intn(4)]
		what := c.kill(cl, kind, rng)
		if what == "" {
			missed++
			continue
		}
		done[what]++
		c.log("driver", fmt.Sprintf("kill %s in %s", what, cl.host))
		if n++; n%100 == 0 {
			t.Logf("%d kills in %s", n, time.Since(begun).Round(time.Second))
		}
	}
	if awayKind != "" {
		c.bringBack(t, awayKind)
	}
	killing := time.Since(begun)

	// The end: no more follow-ups; the runs going on end by themselves, then
	// every clone runs to no open tasks, one after the other, until none works.
	os.Remove(c.follow)
	for _, cl := range c.clones {
		cl.mu.Lock()
		cl.stopped = true
		cl.mu.Unlock()
	}
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Minute):
		t.Error("the clones' runs did not end within 5 minutes of the last kill")
		cancel()
		<-waited
	}
	for pass := 0; pass < 5; pass++ {
		worked := 0
		for _, cl := range c.clones {
			out, err := h.syncRun(context.Background(), cl.dir, "STROM_HOST="+cl.host, "FOLLOW="+c.follow, c.mark).CombinedOutput()
			if err != nil {
				c.wedge(cl, "the last runs", string(out))
				continue
			}
			worked += strings.Count(string(out), "▶ session")
		}
		if worked == 0 {
			break
		}
	}

	f := c.check(t)
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Logf("%d clones (%d over the path, %d over git daemon), %d rounds in %s: %d kills (strom %d, agent %d, both %d, git %d, git with its strom %d), %d rounds without the process to kill; %d outages (daemon stopped %d, repo renamed %d)",
		len(c.clones), (len(c.clones)+1)/2, len(c.clones)/2, rounds, killing.Round(time.Second), got(done),
		done["strom"], done["agent"], done["both"], done["git"], done["git+strom"], missed, outages["daemon"]+outages["rename"], outages["daemon"], outages["rename"])
	t.Logf("%d runs, %d reruns after a kill, %d ended for the remote away: %d wedged reruns, %d sessions (%d crashed) on %d tasks (%d parked after their agent was killed twice), %d sessions lost, %d tasks worked twice, %d temporary files in commits, fsck: %s, %d claims left",
		c.runs, c.reruns, c.awayEnds, len(c.wedged), f.sessions, f.crashed, f.tasks, f.parked, f.lost, f.twice, f.temps, f.fsck, f.claims)
	for _, w := range c.wedged {
		t.Errorf("wedged: %s", w)
	}
}

// got is the number of kills done.
func got(done map[string]int) int {
	n := 0
	for _, v := range done {
		n += v
	}
	return n
}

// runAgainAndAgain runs strom run --loop in the clone until the clone is
// stopped: a run that ends runs again, at once after a kill, after a pause
// otherwise. A run that ends in an error its kill or the remote's absence does
// not explain is a wedge.
func (c *campaign) runAgainAndAgain(ctx context.Context, cl *campaignClone) {
	afterKill := false
	for ctx.Err() == nil {
		cl.mu.Lock()
		if cl.stopped {
			cl.mu.Unlock()
			return
		}
		var out bytes.Buffer
		cmd := c.h.syncRun(ctx, cl.dir, "STROM_HOST="+cl.host, "FOLLOW="+c.follow, c.mark)
		cmd.Stdout, cmd.Stderr = &out, &out
		c.mu.Lock()
		awayBefore, outagesBefore := c.away, c.outages
		c.runs++
		if afterKill {
			c.reruns++
		}
		c.mu.Unlock()
		if err := cmd.Start(); err != nil {
			cl.mu.Unlock()
			c.wedge(cl, "start", err.Error())
			return
		}
		cl.cmd, cl.hit = cmd, false
		cl.mu.Unlock()

		err := cmd.Wait()
		cl.mu.Lock()
		hit := cl.hit
		cl.cmd = nil
		cl.mu.Unlock()
		c.mu.Lock()
		awayMeanwhile := awayBefore || c.away || c.outages != outagesBefore
		c.mu.Unlock()
		text := out.String()
		c.log(cl.host, fmt.Sprintf("run ended (%v, hit %v):\n%s", err, hit, text))
		var ee *exec.ExitError
		status := 0
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			status = -2
		}
		what := "a run"
		if afterKill {
			what = "a rerun after a kill"
		}
		switch {
		case wedgeWords.MatchString(mendLines.ReplaceAllString(text, "")):
			c.wedge(cl, what, text)
		case hit || status == 0:
		case status == 1 && awayWords.MatchString(text):
			c.mu.Lock()
			c.awayEnds++
			c.mu.Unlock()
			if !awayMeanwhile {
				c.wedge(cl, what+" ended for the remote away while it was there", text)
			}
		default:
			c.wedge(cl, fmt.Sprintf("%s ended with exit status %d", what, status), text)
		}
		afterKill = hit
		if !hit {
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(200+rand.Intn(600)) * time.Millisecond):
			}
		}
	}
}

// log appends a line to the campaign's log of who (a clone, the driver), when
// STROM_TEST_CAMPAIGN_LOGS names a folder.
func (c *campaign) log(who, line string) {
	if c.logs == "" {
		return
	}
	f, err := os.OpenFile(filepath.Join(c.logs, who+".log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", time.Now().Format("15:04:05.000"), line)
}

// wedgeWords are the refusals a person would have to mend.
var wedgeWords = regexp.MustCompile(`is in progress|another git process holds|by hand|is locked by another strom|another strom run is working|\.lock\b`)

// mendLines are the lines of a run that say what it finished or undid of a
// killed strom's git: no refusal.
var mendLines = regexp.MustCompile(`(?m)^.*(left by the git of a strom that was stopped|a stopped strom had|of a stopped strom had).*$`)

// awayWords are the ends of a run the remote's absence explains.
var awayWords = regexp.MustCompile(`the remote origin cannot be reached|stays? in this clone, not on origin`)

func (c *campaign) wedge(cl *campaignClone, what, out string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(out) > 4000 {
		out = "…" + out[len(out)-4000:]
	}
	c.wedged = append(c.wedged, fmt.Sprintf("%s in %s:\n%s", what, cl.host, out))
}

// kill kills, in the clone's run going on, what kind names: its strom, its
// agent, both, or a git its strom started (and, at random, that strom with it).
// It returns what it killed, "" when the run had no such process in time.
func (c *campaign) kill(cl *campaignClone, kind string, rng *rand.Rand) string {
	cl.mu.Lock()
	cmd := cl.cmd
	cl.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return ""
	}
	strom := cmd.Process.Pid
	hit := func(pids ...int) {
		cl.mu.Lock()
		if cl.cmd == cmd {
			cl.hit = true
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
		cl.mu.Unlock()
	}
	find := func(wait time.Duration, match func(p procInfo) bool) int {
		for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			for _, p := range descendants(strom) {
				if match(p) {
					return p.pid
				}
			}
			cl.mu.Lock()
			gone := cl.cmd != cmd
			cl.mu.Unlock()
			if gone {
				return 0
			}
		}
		return 0
	}
	isAgent := func(p procInfo) bool { return strings.Contains(p.cmdline, "agent.sh") }
	switch kind {
	case "strom":
		hit(strom)
	case "agent", "both":
		a := find(2*time.Second, isAgent)
		if a == 0 {
			return ""
		}
		if kind == "both" {
			hit(strom, a)
		} else {
			hit(a)
		}
	case "git":
		g := find(3*time.Second, func(p procInfo) bool { return p.ppid == strom && p.comm == "git" })
		if g == 0 {
			return ""
		}
		if rng.Intn(2) == 0 {
			hit(strom, g)
			return "git+strom"
		}
		hit(g)
	}
	return kind
}

// procInfo is a process as /proc shows it.
type procInfo struct {
	pid, ppid     int
	comm, cmdline string
}

// descendants are the processes under pid (its children, theirs, …).
func descendants(pid int) []procInfo {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]procInfo{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(string(stat[j+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		children[ppid] = append(children[ppid], procInfo{pid: p, ppid: ppid, comm: string(stat[i+1 : j]), cmdline: string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))})
	}
	var out []procInfo
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, ch := range children[p] {
			out = append(out, ch)
			queue = append(queue, ch.pid)
		}
	}
	return out
}

// takeAway takes the remote away: the git daemon stops listening (what it
// serves already ends as it would), or the bare repo is renamed (both kinds of
// clone lose it).
func (c *campaign) takeAway(t *testing.T, kind string) {
	c.mu.Lock()
	c.away = true
	c.outages++
	c.mu.Unlock()
	switch kind {
	case "daemon":
		// git daemon is git running git-daemon: both go, the services they
		// started finish alone.
		for _, p := range descendants(c.d.cmd.Process.Pid) {
			if p.ppid == c.d.cmd.Process.Pid {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
		syscall.Kill(c.d.cmd.Process.Pid, syscall.SIGKILL)
		c.d.cmd.Wait()
	case "rename":
		if err := os.Rename(c.bare, c.bare+".away"); err != nil {
			t.Fatal(err)
		}
	}
}

// bringBack ends the outage takeAway began.
func (c *campaign) bringBack(t *testing.T, kind string) {
	switch kind {
	case "daemon":
		c.d = startGitDaemon(t, c.h, c.h.dir, c.d.port)
	case "rename":
		if err := os.Rename(c.bare+".away", c.bare); err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	c.away = false
	c.mu.Unlock()
}

// steerFollowUps keeps the remote's open tasks between 2 and 4 a clone: agents
// add follow-ups while there are fewer.
func (c *campaign) steerFollowUps(clones int) {
	cmd := exec.Command("git", "--git-dir="+c.bare, "grep", "-c", `"state": "open"`, "main", "--", ".strom/tasks/")
	cmd.Env = c.h.env
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return // the remote is away, or no task is open
	}
	open := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			n, _ := strconv.Atoi(l[i+1:])
			open += n
		}
	}
	switch {
	case open < 2*clones:
		os.WriteFile(c.follow, nil, 0o644)
	case open > 4*clones:
		os.Remove(c.follow)
	}
}

// killLeftovers kills every process of the campaign still running.
func (c *campaign) killLeftovers() {
	ents, _ := os.ReadDir("/proc")
	want := []byte("\x00" + c.mark + "\x00")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// campaignFigures are what the remote holds at the campaign's end.
type campaignFigures struct {
	tasks, sessions, crashed, lost, twice, temps, claims, parked int
	fsck                                                         string
}

// tempFile matches the names of temporary files of strom and git.
var tempFile = regexp.MustCompile(`^(\.merge_file_.*|.*\.lock|\.tmp-.*|.*\.orig|strom-write-check-.*|strom-git-.*)$`)

// check checks the remote at the campaign's end, and counts.
func (c *campaign) check(t *testing.T) campaignFigures {
	t.Helper()
	h := c.h
	var f campaignFigures
	bare := "--git-dir=" + c.bare
	check := filepath.Join(h.dir, "check")
	h.gitIn(t, h.dir, "clone", "-q", c.bare, check)
	var parked []string
	cmd := exec.Command(h.strom, "task", "list", "--all")
	cmd.Dir, cmd.Env = check, h.env
	list, _ := cmd.CombinedOutput()
	for _, l := range strings.Split(string(list), "\n") {
		fs := strings.Fields(l)
		if len(fs) < 2 || !strings.HasPrefix(fs[0], "T-") {
			continue
		}
		f.tasks++
		switch {
		case fs[1] == "parked" && strings.HasSuffix(l, "sessions in a row recorded nothing"):
			// The rule that parks a task whose agent ended twice without a
			// record holds for agents the driver killed too; such a task is
			// checked below to have been killed so.
			parked = append(parked, fs[0])
		case fs[1] != "done":
			t.Errorf("on the remote: %s", l)
		}
	}

	// Every session on the remote's branch: its task, end, host, when it began
	// and when it was committed.
	type session struct {
		task, end, host string
		from, to        time.Time
	}
	byTask := map[string][]session{}
	for _, l := range strings.Split(h.gitIn(t, check, "log", "--format=%(trailers:key=Strom-Task,valueonly,separator=)|%(trailers:key=Strom-End,valueonly,separator=)|%(trailers:key=Strom-Host,valueonly,separator=)|%(trailers:key=Strom-Session,valueonly,separator=)|%ct"), "\n") {
		fs := strings.Split(l, "|")
		if len(fs) != 5 || fs[0] == "" {
			continue
		}
		s := session{task: fs[0], end: fs[1], host: fs[2]}
		s.from, _ = time.Parse("20060102T150405Z", fs[3][:min(16, len(fs[3]))])
		ct, _ := strconv.ParseInt(fs[4], 10, 64)
		s.to = time.Unix(ct, 0)
		byTask[s.task] = append(byTask[s.task], s)
		f.sessions++
		if s.end == "crashed" {
			f.crashed++
		}
	}
	for _, task := range slices.Sorted(maps.Keys(byTask)) {
		ss := byTask[task]
		dones := 0
		for _, s := range ss {
			if s.end == "done" {
				dones++
			}
		}
		slices.SortFunc(ss, func(a, b session) int { return a.from.Compare(b.from) })
		overlap := false
		for i := 1; i < len(ss); i++ {
			// Claim and end are times of seconds: a second of slack.
			if ss[i].host != ss[i-1].host && ss[i].from.Add(time.Second).Before(ss[i-1].to) {
				overlap = true
			}
		}
		if dones > 1 || overlap {
			f.twice++
			t.Errorf("%s worked twice: %+v", task, ss)
		}
	}
	for _, task := range parked {
		failed, other := 0, 0
		for _, s := range byTask[task] {
			switch s.end {
			case "agent-failed":
				failed++
			case "crashed":
			default:
				other++
			}
		}
		if failed < 2 || other > 0 {
			t.Errorf("%s parked for sessions that recorded nothing, but not for agents killed: %+v", task, byTask[task])
			continue
		}
		f.parked++
	}
	lost := lostSessions(t, h, check, cloneDirs(c.clones))
	f.lost = len(lost)
	for _, l := range lost {
		t.Errorf("session commit %s is not on the remote", l)
	}
	for _, p := range strings.Split(h.gitIn(t, h.dir, bare, "log", "--all", "--name-only", "--format="), "\n") {
		if p != "" && tempFile.MatchString(path.Base(p)) {
			f.temps++
			t.Errorf("a temporary file in a commit on the remote: %s", p)
		}
	}
	fsck := exec.Command("git", bare, "fsck", "--strict")
	fsck.Env = h.env
	if out, err := fsck.CombinedOutput(); err != nil {
		f.fsck = "failed"
		t.Errorf("git fsck --strict on the remote: %v\n%s", err, out)
	} else {
		f.fsck = "clean"
	}
	if claims := strings.TrimSpace(h.gitIn(t, h.dir, bare, "for-each-ref", "refs/strom/claims/")); claims != "" {
		f.claims = len(strings.Split(claims, "\n"))
		t.Errorf("claims left on the remote:\n%s", claims)
	}
	locks, _ := filepath.Glob(filepath.Join(c.bare, "refs", "*", "*.lock"))
	for _, l := range locks {
		t.Errorf("a lock file left on the remote: %s", l)
	}
	return f
}

func cloneDirs(clones []*campaignClone) []string {
	var dirs []string
	for _, cl := range clones {
		dirs = append(dirs, cl.dir)
	}
	return dirs
}

// killOnClaimHook is a post-receive hook of the remote: the first time a claim
// ref is created, it kills (kill -9) the strom whose push made it, once the ref
// is there: a strom stopped between its claim and its session.
const killOnClaimHook = `#!/bin/sh
while read old new ref; do
	case "$ref" in
	refs/strom/claims/*)
		if mkdir "$KILLED" 2>/dev/null; then
			p=$PPID
			while [ "$p" -gt 1 ]; do
				if [ "$(cat /proc/$p/comm)" = strom ]; then
					kill -9 "$p"
					break
				fi
				p=$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f2)
			done
		fi
		;;
	esac
done
`

// TestSyncKilledAfterClaim: a clone's strom is killed (kill -9) right after its
// claim of T-1 reached the remote, before the session began. Its rerun returns
// T-1 to the queue by itself, says so, and works it; at the end every task is
// done on the remote, no claim is left and nothing waits for a person or for the
// claim to grow stale.
func TestSyncKilledAfterClaim(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("the remote's hook finds strom through /proc")
	}
	h := syncSetup(t, syncAgent, 2)
	bare := filepath.Join(h.dir, "remote.git")
	if err := os.WriteFile(filepath.Join(bare, "hooks", "post-receive"), []byte(killOnClaimHook), 0o755); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(h.dir, "laptop")
	h.gitIn(t, h.dir, "clone", "-q", bare, clone)
	env := []string{"STROM_HOST=laptop", "KILLED=" + filepath.Join(h.dir, "killed")}
	out, err := h.syncRun(context.Background(), clone, env...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("the run the hook kills: %v\n%s", err, out)
	}
	if claims := h.gitIn(t, h.dir, "--git-dir="+bare, "for-each-ref", "refs/strom/claims/"); !strings.Contains(claims, "refs/strom/claims/T-1") {
		t.Fatalf("the claim of T-1 is not on the remote: %q", claims)
	}
	rerun := h.mustSyncRun(t, clone, env...)
	if !regexp.MustCompile(`↺ T-1 was claimed by session \S+ on this machine, whose strom stopped before the session began: it returns to the queue`).MatchString(rerun) {
		t.Errorf("the rerun does not say it returned T-1:\n%s", rerun)
	}
	if n := strings.Count(rerun, "▶ session"); n != 2 {
		t.Errorf("the rerun worked %d sessions, want 2:\n%s", n, rerun)
	}
	checkSynced(t, h, bare, []string{clone}, 2, 0)
	if claims := h.gitIn(t, h.dir, "--git-dir="+bare, "for-each-ref", "refs/strom/claims/"); claims != "" {
		t.Errorf("claims left on the remote:\n%s", claims)
	}
}

// breakIndexOnClaimHook is a post-receive hook of the remote: the first time a
// claim ref is created, it spoils the index of the clone $CLONE, so that the run
// that claimed stops with an error before the session begins.
const breakIndexOnClaimHook = `#!/bin/sh
while read old new ref; do
	case "$ref" in
	refs/strom/claims/*)
		if mkdir "$BROKEN" 2>/dev/null; then
			printf 'not an index' > "$CLONE/.git/index"
		fi
		;;
	esac
done
`

// TestSyncErrorAfterClaim: a run stops with an error (git fails) between its
// claim of T-1 and the session, and ends. The next run returns T-1 to the queue
// by itself and works it: the claim does not hold the task until it grows stale.
func TestSyncErrorAfterClaim(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	h := syncSetup(t, syncAgent, 2)
	bare := filepath.Join(h.dir, "remote.git")
	if err := os.WriteFile(filepath.Join(bare, "hooks", "post-receive"), []byte(breakIndexOnClaimHook), 0o755); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(h.dir, "laptop")
	h.gitIn(t, h.dir, "clone", "-q", bare, clone)
	env := []string{"STROM_HOST=laptop", "BROKEN=" + filepath.Join(h.dir, "broken"), "CLONE=" + clone}
	out, err := h.syncRun(context.Background(), clone, env...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || strings.Contains(string(out), "▶ session") {
		t.Fatalf("the run whose index broke after its claim: %v\n%s", err, out)
	}
	// The index mended by hand, as a person would after such an error.
	os.Remove(filepath.Join(clone, ".git", "index"))
	h.gitIn(t, clone, "reset", "-q")
	rerun := h.mustSyncRun(t, clone, env...)
	if !regexp.MustCompile(`↺ T-1 was claimed by session \S+ on this machine, whose strom stopped before the session began: it returns to the queue`).MatchString(rerun) {
		t.Errorf("the rerun does not say it returned T-1:\n%s", rerun)
	}
	checkSynced(t, h, bare, []string{clone}, 2, 0)
	if claims := h.gitIn(t, h.dir, "--git-dir="+bare, "for-each-ref", "refs/strom/claims/"); claims != "" {
		t.Errorf("claims left on the remote:\n%s", claims)
	}
}
