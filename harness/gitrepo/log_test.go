package gitrepo

import (
	"bufio"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// assertLogsAgree compares Log with `git log` for a range of options.
func assertLogsAgree(t *testing.T, r *Repo) {
	t.Helper()
	for _, opts := range []LogOptions{
		{}, {Max: 1}, {Max: 3}, {TrailerKey: "Strom-Session"}, {TrailerKey: "strom-session", Max: 2},
		{TrailerKey: "Strom-Mode"}, {TrailerKey: "Nope"},
	} {
		got, err := r.Log(ctxT(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		// git itself: same hashes in the same order.
		args := []string{"log", "--format=%H%x09%(trailers:only,unfold,separator=%x2c)"}
		var want []string
		for _, l := range splitLines(gitIn(t, r.Root, args...)) {
			h, tr, _ := strings.Cut(l, "\t")
			if opts.TrailerKey != "" && !strings.Contains(strings.ToLower(tr), strings.ToLower(opts.TrailerKey)+":") {
				continue
			}
			want = append(want, h)
		}
		if opts.Max > 0 && len(want) > opts.Max {
			want = want[:opts.Max]
		}
		var hashes []string
		for _, c := range got {
			hashes = append(hashes, c.Hash)
		}
		if !cmp.Equal(hashes, want) {
			t.Errorf("%+v: Log = %v, git log = %v", opts, hashes, want)
		}
	}
}

// historyRepo builds a history with merges, equal and out-of-order dates, time
// zones, and commits with and without trailers.
func historyRepo(t *testing.T) *Repo {
	t.Helper()
	r := newRepo(t)
	n := 0
	commit := func(date string, msg string) {
		n++
		writeFile(t, r.Root, "f.txt", fmt.Sprint(n))
		gitIn(t, r.Root, "add", "-A")
		env := []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}
		if _, err := gitEnvIn(r.Root, env, msg, "commit", "-q", "--cleanup=verbatim", "-F", "-"); err != nil {
			t.Fatal(err)
		}
	}
	session := func(i int, end string) string {
		return sessionMessageN(i, end).String()
	}
	commit(testDate, session(1, "done"))
	commit(testDate, "agent's own commit\n\nNote: not a trailer block? it is one\n")
	gitIn(t, r.Root, "checkout", "-q", "-b", "side")
	commit("1795000500 +0530", session(2, "time-limit"))
	commit("1794999000 -0700", "older date on the side\n")
	gitIn(t, r.Root, "checkout", "-q", "main")
	commit(testDate, session(3, "closed"))
	commit(testDate, "mode switch\n\nStrom-Mode: archive\n")
	env := []string{"GIT_AUTHOR_DATE=" + testDate, "GIT_COMMITTER_DATE=" + testDate}
	if _, err := gitEnvIn(r.Root, env, "", "merge", "-q", "--no-ff", "-X", "ours", "-m", "merge side", "side"); err != nil {
		t.Fatal(err)
	}
	// Two parents with the same date: git takes the first parent first.
	gitIn(t, r.Root, "checkout", "-q", "-b", "tie")
	commit(testDate, "tie on the branch\n")
	gitIn(t, r.Root, "checkout", "-q", "main")
	commit(testDate, "tie on main\n")
	if _, err := gitEnvIn(r.Root, env, "", "merge", "-q", "--no-ff", "-X", "ours", "-m", "merge tie", "tie"); err != nil {
		t.Fatal(err)
	}
	commit("1795001000 +0000", "Ünïcödé subject\nsecond subject line\n\nbody\n\n"+session(4, "crashed")[len("strom: T-4 x\n\n"):])
	commit(testDate, session(5, "done"))
	return r
}

func sessionMessageN(i int, end string) Message {
	return Message{
		Subject: fmt.Sprintf("strom: T-%d x", i),
		Body:    "record one\nrecord two: with colon",
		Trailers: []Trailer{
			{"Strom-Session", fmt.Sprintf("S-%d", i)},
			{"Strom-Task", fmt.Sprintf("T-%d", i)},
			{"Strom-End", end},
		},
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	r := historyRepo(t)
	assertLogsAgree(t, r)

	all, err := r.Log(ctxT(t), LogOptions{TrailerKey: "Strom-Session"})
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, c := range all {
		v, _ := c.Message.Trailer("Strom-End")
		ends = append(ends, v)
	}
	// git's order, not a sort by date: the side branch's newer commit comes after
	// main's older ones because its child is older still.
	if want := []string{"done", "crashed", "closed", "done", "time-limit"}; !cmp.Equal(ends, want) {
		t.Errorf("Strom-End of the sessions = %v, want %v", ends, want)
	}
	c := all[1]
	if c.Subject != "Ünïcödé subject second subject line" || c.Message.Body != "body\n\nrecord one\nrecord two: with colon" {
		t.Errorf("commit read as %+v", c)
	}
	if c.Author != "Test Person <test@example.org>" || !c.When.Equal(time.Unix(1795001000, 0)) {
		t.Errorf("author %q at %v", c.Author, c.When)
	}
	if _, off := all[4].When.Zone(); off != 5*3600+30*60 {
		t.Errorf("time zone offset %d, want +0530", off)
	}

	last, err := lastWithTrailer(t, r, "Strom-Mode")
	if err != nil || last == nil || last.Subject != "mode switch" {
		t.Errorf("the last commit with the trailer(Strom-Mode) = %+v, %v", last, err)
	}
	if last, err := lastWithTrailer(t, r, "Strom-Nothing"); last != nil || err != nil {
		t.Errorf("the last commit with the trailer of a missing key = %+v, %v", last, err)
	}
}

// TestLogTrailerPrefilter covers the `git log --grep` pre-filter: a key mentioned
// in a body, in another case, or with white space before the colon reads as the
// message's trailers say.
func TestLogTrailerPrefilter(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	n := 0
	commit := func(msg string) {
		n++
		writeFile(t, r.Root, "f.txt", fmt.Sprint(n))
		gitIn(t, r.Root, "add", "-A")
		env := []string{"GIT_AUTHOR_DATE=" + testDate, "GIT_COMMITTER_DATE=" + testDate}
		if _, err := gitEnvIn(r.Root, env, msg, "commit", "-q", "--cleanup=verbatim", "-F", "-"); err != nil {
			t.Fatal(err)
		}
	}
	commit("a real one\n\nstrom-session: S-1\n")
	commit("spaced key\n\nStrom-Session : S-2\nStrom-End: done\n")
	commit("body only\n\nThe Strom-Session: trailer is explained here.\n\nNot a trailer block.\n")
	commit("subject Strom-Session: S-9\n")
	commit("nothing at all\n")
	assertLogsAgree(t, r)
	last, err := lastWithTrailer(t, r, "Strom-Session")
	if err != nil || last == nil || last.Subject != "spaced key" {
		t.Errorf("the last commit with the trailer = %+v, %v", last, err)
	}
}

func TestLogUnborn(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	for _, opts := range []LogOptions{{}, {Max: 1}} {
		if got, err := r.Log(ctxT(t), opts); err != nil || len(got) != 0 {
			t.Errorf("Log(%+v) on an unborn branch = %v, %v", opts, got, err)
		}
	}
	if last, err := lastWithTrailer(t, r, "Strom-Session"); last != nil || err != nil {
		t.Errorf("the last commit with the trailer = %v, %v", last, err)
	}
}

// TestLogExtensions: every repository format git reads is read, with git's result.
func TestLogExtensions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		config     [][2]string
		objectSHA2 bool
	}{
		{name: "plain"},
		{name: "noop", config: [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.noop", "true"}}},
		{name: "worktreeConfig", config: [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.worktreeConfig", "true"}}},
		{name: "preciousObjects", config: [][2]string{{"extensions.preciousObjects", "true"}}},
		{name: "objectFormat sha1", config: [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.objectFormat", "sha1"}}},
		{name: "sha256", objectSHA2: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			if tc.objectSHA2 {
				r = newRepoArgs(t, "--object-format=sha256")
			}
			for i := range 3 {
				writeFile(t, r.Root, "a.txt", fmt.Sprint(i, "\n"))
				commitAll(t, r.Root, sessionMessageN(i, "done").String())
			}
			for _, kv := range tc.config {
				gitIn(t, r.Root, "config", kv[0], kv[1])
			}
			assertLogsAgree(t, r)
			if got, _ := r.Log(ctxT(t), LogOptions{}); len(got) != 3 {
				t.Errorf("Log read %d commits, want 3", len(got))
			}
		})
	}
}

// TestLogPacked: a history in loose objects, in a pack with commits stored as
// deltas, and in both, reads as git log reads it; so does a session far below
// HEAD, under more of the agent's commits than a bounded read's first git log
// gives.
func TestLogPacked(t *testing.T) {
	t.Parallel()
	r := historyRepo(t)
	for i := range 8 {
		// Long, nearly equal messages, so that a repack stores commits as deltas.
		body := strings.Repeat(fmt.Sprintf("line %d of a long record that repeats\n", i%3), 40)
		writeFile(t, r.Root, "f.txt", fmt.Sprint("n", i))
		m := sessionMessageN(100+i, "done")
		m.Body += "\n" + body
		commitAll(t, r.Root, m.String())
	}
	assertLogsAgree(t, r)
	gitIn(t, r.Root, "repack", "-a", "-d", "-f", "--depth=50", "--window=250")
	if v := gitIn(t, r.Root, "verify-pack", "-v", mustGlob(t, r.CommonDir, "objects/pack/*.idx")); !strings.Contains(v, " commit ") || !regexpDeltaCommit.MatchString(v) {
		t.Fatalf("the repack stored no commit as a delta:\n%s", v)
	}
	assertLogsAgree(t, r)
	writeFile(t, r.Root, "f.txt", "after the pack")
	commitAll(t, r.Root, sessionMessageN(999, "done").String())
	assertLogsAgree(t, r)

	// One session under many commits that mention the key without the trailer:
	// git's --grep passes them, and Log reads on until it finds the session.
	sparse := newRepo(t)
	err := fastImport(sparse.Root, func(w *bufio.Writer) {
		for i := range 100 {
			fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.org> %d +0000\n", i+1, 1795000000+i)
			msg := "agent's commit, not a Strom-Session: trailer\n"
			if i == 0 {
				msg = sessionMessageN(1, "done").String()
			}
			data(w, msg)
			if i > 0 {
				fmt.Fprintf(w, "from :%d\n", i)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if last, err := lastWithTrailer(t, sparse, "Strom-Session"); err != nil || last == nil || last.Subject != "strom: T-1 x" {
		t.Errorf("the last commit with the trailer far below HEAD = %+v, %v", last, err)
	}
}

// regexpDeltaCommit matches a line of git verify-pack -v for a commit stored as a
// delta: "<hash> commit <size> <packed> <offset> <depth> <base>".
var regexpDeltaCommit = regexp.MustCompile(`(?m)^[0-9a-f]{40} commit +\d+ \d+ \d+ \d+ [0-9a-f]{40}$`)

func mustGlob(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(m) != 1 {
		t.Fatalf("%s: %v, %v", pattern, m, err)
	}
	return m[0]
}

// TestLogShallowFileEnv: a shallow file named by the environment makes git stop at
// its commit, and Log gives what git gives.
func TestLogShallowFileEnv(t *testing.T) {
	r := newRepo(t)
	for i := range 3 {
		writeFile(t, r.Root, "a.txt", fmt.Sprint(i))
		commitAll(t, r.Root, sessionMessageN(i, "done").String())
	}
	dir := t.TempDir()
	writeFile(t, dir, "shallow", gitIn(t, r.Root, "rev-parse", "HEAD~1")+"\n")
	t.Setenv("GIT_SHALLOW_FILE", filepath.Join(dir, "shallow"))
	got, err := r.Log(ctxT(t), LogOptions{Max: 5})
	if err != nil || len(got) != 2 {
		t.Errorf("Log with GIT_SHALLOW_FILE = %d commits, %v; want the 2 git reads", len(got), err)
	}
}

// lastWithTrailer is the newest commit that carries the trailer key, as a bounded
// log of one commit reads it (strom status's last session); nil when none does.
func lastWithTrailer(t *testing.T, r *Repo, key string) (*Commit, error) {
	t.Helper()
	cs, err := r.Log(ctxT(t), LogOptions{Max: 1, TrailerKey: key})
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	return &cs[0], nil
}

// TestLogOddCommit: a commit in a layout git reads leniently (two author lines, a
// tab before the address) reads as git reads it.
func TestLogOddCommit(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a")
	base := commitAll(t, r.Root, sessionMessageN(1, "done").String())
	for _, headers := range []string{
		"author A <a@example.org> 1795000000 +0000\ncommitter C <c@example.org> 1795000000 +0000\nauthor B <b@example.org> 1795000000 +0000\n",
		"author A\t<a@example.org> 1795000000 +0000\ncommitter C <c@example.org> 1795000000 +0000\n",
	} {
		raw := "tree " + gitIn(t, r.Root, "rev-parse", "HEAD^{tree}") + "\nparent " + base + "\n" + headers + "\n" + sessionMessageN(2, "done").String()
		odd, err := gitEnvIn(r.Root, nil, raw, "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		gitIn(t, r.Root, "update-ref", "HEAD", odd)
		got, err := r.Log(ctxT(t), LogOptions{Max: 5})
		if err != nil || len(got) != 2 || got[0].Hash != odd || got[0].Author != gitIn(t, r.Root, "log", "-1", "--format=%an <%ae>") {
			t.Errorf("%q: Log = %+v, %v", headers, got, err)
		}
	}
}
