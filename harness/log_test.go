package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// historyRepo makes a research repo for the tests of the sessions read back:
// its folder, the Env to open it with, a git in it, and a commit of a session
// of the id given on T-1.
func historyRepo(t *testing.T) (string, research.Env, func(...string) string, func(string)) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, ".config-home"))
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("config", "user.name", "T")
	git("config", "user.email", "t@example.com")
	env := research.Env{Clock: clock.Real{}}
	if _, err := mode.Init(context.Background(), root, mode.InitOptions{Agent: "command"}, env, nil); err != nil {
		t.Fatal(err)
	}
	session := func(id string) {
		t.Helper()
		git("commit", "-q", "--allow-empty", "-m", "strom: T-1 "+id, "-m", "Strom-Session: "+id+"\nStrom-Task: T-1\nStrom-End: done")
	}
	return root, env, git, session
}

// TestLastSessionFollowsHead: LastSession is the newest session of the history
// HEAD names — forward, back, detached, after refs are packed, right after the
// harness's own session commit — and the answers earlier stroms kept under
// .strom/run/ (sessions.kept, last-session.json, last-session.kept) are not read.
func TestLastSessionFollowsHead(t *testing.T) {
	root, env, git, session := historyRepo(t)
	check := func(want string) {
		t.Helper()
		r, err := research.Open(root, env)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LastSession(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && got != nil:
			t.Fatalf("LastSession = %s, want none", got.Session)
		case want == "":
		case got == nil || got.Session != want || got.End != "done" || got.Task != "T-1":
			t.Fatalf("LastSession = %+v, want %s", got, want)
		case got.Commit != git("log", "-1", "--format=%H", "--grep=Strom-Session: "+want):
			t.Fatalf("LastSession's commit %s is not the one git finds", got.Commit)
		}
	}

	check("")
	session("S-1")
	check("S-1")
	git("commit", "-q", "--allow-empty", "-m", "a person's commit")
	check("S-1")
	session("S-2")
	check("S-2")
	git("reset", "-q", "--hard", "HEAD~1")
	check("S-1")
	git("pack-refs", "--all")
	check("S-1")
	git("checkout", "-q", "--detach", "HEAD~1")
	check("S-1")

	// A session commit made by the harness.
	r0, err := research.Open(root, env)
	if err != nil {
		t.Fatal(err)
	}
	msg := gitrepo.Message{Subject: "strom: T-1 S-3", Trailers: []gitrepo.Trailer{
		{Key: research.TrailerSession, Value: "S-3"}, {Key: research.TrailerTask, Value: "T-1"}, {Key: research.TrailerEnd, Value: "done"}}}
	if err := r0.Tree.Locked(t.Context(), func() error { _, err := r0.CommitLocked(t.Context(), msg); return err }); err != nil {
		t.Fatal(err)
	}
	check("S-3")

	// The answers earlier stroms kept, here saying there is no session or an
	// older one, are not read.
	head := git("rev-parse", "HEAD")
	earlier := map[string]string{
		"sessions.kept":     "strom sessions kept 1\n" + head + "\t1\ncrc 00000000\n",
		"last-session.json": `{"version":2,"head":"` + head + `","session":null}`,
		"last-session.kept": "strom sessions kept 1\n" + head + "\t1\n",
	}
	for name, b := range earlier {
		if err := os.WriteFile(r0.Tree.Path(statefiles.RunDir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("S-3")
}

// TestBodyRecords: a session commit's body counts a record a line; the line an
// empty session's commit says, in any of the three languages, counts none.
func TestBodyRecords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want int
	}{
		{"", 0},
		{"(the session recorded nothing)", 0},
		{"(die Sitzung hat nichts erfasst)\n", 0},
		{"(sezení nic nezapsalo)", 0},
		{"Register 12: no entry\nRegister 13: one entry\n", 2},
		{"  Register 12  \n\n(the session recorded nothing) and more\n", 2},
	} {
		if got := bodyRecords(tc.body); got != tc.want {
			t.Errorf("bodyRecords(%q) = %d, want %d", tc.body, got, tc.want)
		}
	}
}

// TestSessionEntryRecords: the Strom-Records trailer is the count where it is a
// number; a commit without it (or with a value that is not one) counts its body.
func TestSessionEntryRecords(t *testing.T) {
	t.Parallel()
	body := "Register 12, page 3:\nno baptism\nRegister 13"
	for _, tc := range []struct {
		trailer string
		want    int
	}{{"2", 2}, {"0", 0}, {"", 3}, {"two", 3}, {"-1", 3}} {
		msg := gitrepo.Message{Subject: "strom: T-1 x — done", Body: body, Trailers: []gitrepo.Trailer{{Key: research.TrailerSession, Value: "S-1"}}}
		if tc.trailer != "" {
			msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: research.TrailerRecords, Value: tc.trailer})
		}
		if got := sessionEntry(gitrepo.Commit{Message: msg}).Records; got != tc.want {
			t.Errorf("Strom-Records %q: %d records, want %d", tc.trailer, got, tc.want)
		}
	}
}

// TestSessionEntryCheckFailed: the first "Strom-Check: failed: …" trailer is why the
// session's check failed; a note of the queue's rules is no failure.
func TestSessionEntryCheckFailed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		checks []string
		want   string
	}{
		{nil, ""},
		{[]string{"restored T-2, which the session deleted"}, ""},
		{[]string{"restored T-2", "failed: conflict markers in a.md", "failed: check.command \"x\": exit status 1"}, "conflict markers in a.md"},
	} {
		msg := gitrepo.Message{Subject: "strom: T-1 x — closed", Trailers: []gitrepo.Trailer{{Key: research.TrailerSession, Value: "S-1"}}}
		for _, c := range tc.checks {
			msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: research.TrailerCheck, Value: c})
		}
		if got := sessionEntry(gitrepo.Commit{Message: msg}).CheckFailed; got != tc.want {
			t.Errorf("checks %q: CheckFailed %q, want %q", tc.checks, got, tc.want)
		}
	}
}
