package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// TestKeptSessionsRoundTrip: every field of a session, with tabs, line feeds,
// backslashes and any text in it, reads back as written, its time the same
// instant in the same offset; bytes of any other shape are no answer.
func TestKeptSessionsRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 23, 59, 58, 123456789, time.FixedZone("", -(3*3600+30*60)))
	in := keptSessions{history: "0123456789abcdef0123456789abcdef01234567 shallow 41 1700000000000000000", max: 3, entries: []SessionEntry{
		{Session: "20261130T235958Z-a1b2", Task: "T-12", End: "done", Agent: "claude", Check: "passed", Host: "lab\tpc", When: at,
			Subject: "strom: T-12 a\ttab, a \\ backslash,\r\n a line feed and Nováková", Commit: strings.Repeat("ab", 20), Records: 7},
		{Session: "S", Task: "T-1", End: "limit", When: time.Unix(0, 0).UTC(), Records: -1},
		{},
	}}
	out, ok := decodeKeptSessions(encodeKeptSessions(in))
	if !ok || out.history != in.history || out.max != in.max || len(out.entries) != len(in.entries) {
		t.Fatalf("read back as %+v, %v", out, ok)
	}
	for i, e := range out.entries {
		w := in.entries[i]
		_, wo := w.When.Zone()
		_, eo := e.When.Zone()
		if !e.When.Equal(w.When) || eo != wo {
			t.Errorf("entry %d: time %v, want %v", i, e.When, w.When)
		}
		e.When, w.When = time.Time{}, time.Time{}
		if !reflect.DeepEqual(e, w) {
			t.Errorf("entry %d = %+v, want %+v", i, e, w)
		}
	}
	good := string(encodeKeptSessions(in))
	for _, bad := range []string{"", "strom sessions kept 2\n" + good[len(keptSessionsHeader)+1:], good[:len(good)-1], good + "x\n",
		strings.Replace(good, "\tlimit\t", "\tlimit\t\t", 1), strings.Replace(good, "\\t", "\\q", 1), strings.Replace(good, "\t3\n", "\t0\n", 1)} {
		if k, ok := decodeKeptSessions([]byte(bad)); ok {
			t.Errorf("%q read as %+v", bad, k)
		}
	}
	// A file cut anywhere, or with any byte changed (a read that met a write under
	// way), is no answer.
	for n := range len(good) {
		if k, ok := decodeKeptSessions([]byte(good[:n])); ok {
			t.Fatalf("the file cut to %d bytes read as %+v", n, k)
		}
		for _, flip := range []byte{1, 0x20, 0x80} {
			b := []byte(good)
			b[n] ^= flip
			if k, ok := decodeKeptSessions(b); ok {
				t.Fatalf("the file with byte %d changed read as %+v", n, k)
			}
		}
	}
}

// FuzzKeptSessions: any bytes read as a kept file or as nothing, and what reads
// writes back as bytes that read as the same answer.
func FuzzKeptSessions(f *testing.F) {
	f.Add(encodeKeptSessions(keptSessions{history: "h", max: 2, entries: []SessionEntry{{Session: "a\tb", When: time.Unix(5, 6).UTC(), Records: 2}}}))
	f.Add([]byte(keptSessionsHeader + "\nh\t1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, ok := decodeKeptSessions(b)
		if !ok {
			return
		}
		again := encodeKeptSessions(k)
		k2, ok := decodeKeptSessions(again)
		if !ok || k2.history != k.history || k2.max != k.max || len(k2.entries) != len(k.entries) {
			t.Fatalf("%q read as %+v, which writes back as %q", b, k, again)
		}
		for i, e := range k2.entries {
			w := k.entries[i]
			_, wo := w.When.Zone()
			_, eo := e.When.Zone()
			if !e.When.Equal(w.When) || eo != wo {
				t.Fatalf("%q: entry %d's time %v writes back as %v", b, i, w.When, e.When)
			}
			e.When, w.When = time.Time{}, time.Time{}
			if e != w {
				t.Fatalf("%q: entry %d %+v writes back as %+v", b, i, w, e)
			}
		}
	})
}

// TestSessionsKeptForHistory: Sessions keeps its answer for the history it read it
// from and answers later calls from it, reading no object, while HEAD stays: for
// the count it was asked or fewer, and for any count when the history holds fewer
// sessions. A larger count, HEAD moved (forward or back), a shallow clone's
// boundary changed or a broken kept file reads the history again, and every
// answer is the history's.
func TestSessionsKeptForHistory(t *testing.T) {
	root, env, git, session := historyRepo(t)
	sessions := func(n int) []SessionEntry {
		t.Helper()
		r, err := research.Open(root, env)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Sessions(t.Context(), r, n)
		if err != nil {
			t.Fatalf("Sessions(%d): %v", n, err)
		}
		return got
	}
	// history is the answer read from the commits, nothing kept.
	history := func(n int) []SessionEntry {
		t.Helper()
		g, ok := gitrepo.Discover(root)
		if !ok {
			t.Fatal("no repository")
		}
		cs, err := g.Log(t.Context(), gitrepo.LogOptions{Max: n, TrailerKey: research.TrailerSession})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]SessionEntry, 0, len(cs))
		for _, c := range cs {
			out = append(out, sessionEntry(c))
		}
		return out
	}
	same := func(a, b []SessionEntry) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			x, y := a[i], b[i]
			if !x.When.Equal(y.When) {
				return false
			}
			x.When, y.When = time.Time{}, time.Time{}
			if !reflect.DeepEqual(x, y) {
				return false
			}
		}
		return true
	}
	check := func(n int) {
		t.Helper()
		got, want := sessions(n), history(n)
		if !same(got, want) {
			t.Fatalf("Sessions(%d) = %+v, want the history's %+v", n, got, want)
		}
	}
	// fromKept answers with the object files out of reach: from the kept file.
	objects := filepath.Join(root, ".git", "objects")
	fromKept := func(n int, want []SessionEntry) {
		t.Helper()
		if err := os.Rename(objects, objects+".away"); err != nil {
			t.Fatal(err)
		}
		defer os.Rename(objects+".away", objects)
		path := os.Getenv("PATH")
		t.Setenv("PATH", t.TempDir())
		defer os.Setenv("PATH", path)
		if got := sessions(n); !same(got, want) {
			t.Fatalf("Sessions(%d) from the kept answer = %+v, want %+v", n, got, want)
		}
	}

	check(2)
	fromKept(2, nil) // no commit: no session, kept
	session("S-1")
	git("commit", "-q", "--allow-empty", "-m", "a person's commit")
	session("S-2")
	session("S-3")
	check(2)
	two := history(2)
	fromKept(2, two)
	fromKept(1, two[:1])
	check(3) // more than kept: read again
	all := history(10)
	check(10) // the history has three: any count is answered
	fromKept(50, all)
	fromKept(3, all)

	// HEAD moved forward by a line of commits: only those are read, and their
	// sessions put before the kept ones (a kept subject marked shows it is used).
	check(2)
	r0, _ := research.Open(root, env)
	keptPath := r0.Tree.Path(statefiles.RunDir, sessionsFile)
	k, ok := readKeptSessions(r0)
	if !ok || len(k.entries) < 2 {
		t.Fatalf("kept %+v, %v", k, ok)
	}
	k.entries[0].Subject = "kept: " + k.entries[0].Subject
	if err := os.WriteFile(keptPath, encodeKeptSessions(k), 0o644); err != nil {
		t.Fatal(err)
	}
	session("S-4")
	if got := sessions(2); len(got) != 2 || got[0].Session != "S-4" || got[1].Subject != "kept: strom: T-1 S-3" {
		t.Fatalf("after a new session commit, Sessions(2) = %+v; want S-4 read and S-3 kept", got)
	}
	fromKept(2, sessions(2))
	check(1)
	git("commit", "-q", "--allow-empty", "-m", "the agent's own commit")
	session("S-5")
	check(1) // kept for 2: both new ones, the line read
	if got := sessions(2); got[0].Session != "S-5" || got[1].Session != "S-4" {
		t.Fatalf("after two commits, Sessions(2) = %+v", got)
	}
	session("S-6")
	session("S-7")
	session("S-8")
	check(2) // more new sessions than asked
	// A merge on the line: the history is read.
	git("checkout", "-q", "-b", "side", "HEAD~1")
	session("S-9")
	git("checkout", "-q", "-")
	git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	check(3)
	git("reset", "-q", "--hard", "HEAD~1")
	check(2)
	fromKept(2, history(2))
	git("reset", "-q", "--hard", "HEAD~4")
	check(2)
	fromKept(2, history(2))
	all = history(10)

	// A shallow clone's boundary is part of the history's name.
	g, _ := gitrepo.Discover(root)
	head := git("rev-parse", "HEAD")
	before := historyKey(g, head)
	if err := os.WriteFile(filepath.Join(root, ".git", "shallow"), []byte(git("rev-parse", "HEAD~1")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if after := historyKey(g, head); after == before {
		t.Fatalf("the history key %q did not change with a shallow boundary", after)
	}
	os.Remove(filepath.Join(root, ".git", "shallow"))

	// A broken kept file, or one of another history, is no answer.
	three := encodeKeptSessions(keptSessions{history: head, max: 2, entries: all[:3]})
	for _, junk := range []string{"{not json", string(three), keptSessionsHeader + "\n" + strings.Repeat("0", 40) + "\t2\n", ""} {
		r, _ := research.Open(root, env)
		if err := os.WriteFile(r.Tree.Path(statefiles.RunDir, sessionsFile), []byte(junk), 0o644); err != nil {
			t.Fatal(err)
		}
		check(2)
		if got := sessions(2); len(got) != 2 || got[0].Session != history(1)[0].Session {
			t.Fatalf("after a kept file %q, Sessions(2) = %+v", junk, got)
		}
	}
	// The kept answer is bounded: a count above keptSessionsMax is not kept.
	r, _ := research.Open(root, env)
	os.Remove(r.Tree.Path(statefiles.RunDir, sessionsFile))
	check(keptSessionsMax + 1)
	if _, err := os.Stat(r.Tree.Path(statefiles.RunDir, sessionsFile)); err == nil {
		t.Fatalf("the answer for %d sessions was kept", keptSessionsMax+1)
	}
}
