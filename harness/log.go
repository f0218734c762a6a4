package harness

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
)

// SessionEntry is one session as the history tells it.
type SessionEntry struct {
	Session string    `json:"session"`
	Task    string    `json:"task"`
	End     string    `json:"end"`
	Agent   string    `json:"agent,omitempty"`
	Check   string    `json:"check,omitempty"`
	Host    string    `json:"host,omitempty"` // the machine, in a research synced with a remote
	When    time.Time `json:"when"`
	Subject string    `json:"subject"`
	Commit  string    `json:"commit"`
	Records int       `json:"records"` // records the session made: its Strom-Records trailer (older commits: the body's lines)
}

// Sessions lists sessions from the history's trailers, newest first; max 0 = all.
// The answer for a count up to keptSessionsMax is kept for the history it was read
// from (logkept.go).
func Sessions(ctx context.Context, r *research.Research, max int) ([]SessionEntry, error) {
	// A bounded read costs no git process where strom reads the object files (one
	// git log where it does not); finding the repository by its files spares the
	// rev-parse that Open starts.
	g, found := gitrepo.Discover(r.Tree.Root)
	head, key := "", ""
	if found && max > 0 {
		head = headOf(ctx, g)
		key = historyKey(g, head)
		if kept, ok := keptSessionsFor(ctx, r, g, head, key, max); ok {
			return kept, nil
		}
	}
	if !found || max <= 0 {
		var err error
		if g, err = r.Git(ctx); err != nil {
			return nil, err
		}
	}
	opts := gitrepo.LogOptions{Max: max, TrailerKey: research.TrailerSession}
	var commits []gitrepo.Commit
	var err error
	if head != "" {
		commits, err = g.LogFrom(ctx, head, opts)
	} else {
		commits, err = g.Log(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	out := make([]SessionEntry, 0, len(commits))
	for _, c := range commits {
		out = append(out, sessionEntry(c))
	}
	keepSessions(r, key, max, out)
	return out, nil
}

// HeadCommit is the commit HEAD names, read from the ref files without starting
// git; "" when strom does not read this layout itself. What the history says
// cannot change while it stays the same.
func HeadCommit(ctx context.Context, r *research.Research) string {
	g, found := gitrepo.Discover(r.Tree.Root)
	if !found {
		return ""
	}
	return headOf(ctx, g)
}

func headOf(ctx context.Context, g *gitrepo.Repo) string {
	h, err := g.Head(ctx)
	if err != nil {
		return ""
	}
	return h
}

// LastSession is the newest session of the history, or nil when there is none:
// Sessions(ctx, 1)'s entry. strom status asks for it on every call, and so it
// comes from the answer Sessions keeps for the history (logkept.go): while HEAD
// names the same commit, no commit is read, and after a session's commit only
// that commit is.
func LastSession(ctx context.Context, r *research.Research) (*SessionEntry, error) {
	es, err := Sessions(ctx, r, 1)
	if err != nil || len(es) == 0 {
		return nil, err
	}
	return &es[0], nil
}

// sessionEntry reads a session commit's trailers.
func sessionEntry(c gitrepo.Commit) SessionEntry {
	e := SessionEntry{When: c.When, Subject: c.Subject, Commit: c.Hash, Records: -1}
	for _, t := range c.Message.Trailers {
		switch t.Key {
		case research.TrailerSession:
			e.Session = t.Value
		case research.TrailerTask:
			e.Task = t.Value
		case research.TrailerEnd:
			e.End = t.Value
		case research.TrailerAgent:
			e.Agent = t.Value
		case research.TrailerCheck:
			e.Check = t.Value
		case research.TrailerHost:
			e.Host = t.Value
		case research.TrailerRecords:
			if n, err := strconv.Atoi(t.Value); err == nil && n >= 0 && e.Records < 0 {
				e.Records = n
			}
		}
	}
	if e.Records < 0 {
		// A commit from before the trailer: a record a line of the body.
		e.Records = bodyRecords(c.Message.Body)
	}
	return e
}

// bodyRecords counts the records in the body of a session commit made before the
// Strom-Records trailer: one a line (a record of several lines counted as many);
// the line that says the session recorded nothing, in any language, is none.
func bodyRecords(body string) int {
	n := 0
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l != "" && !nothingRecorded(l) {
			n++
		}
	}
	return n
}

func nothingRecorded(line string) bool { return nothingRecordedLines()[line] }

// nothingRecordedLines are the line of an empty session's commit in every language,
// looked up once per process in the catalogs' data (no printer is built for it).
var nothingRecordedLines = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, line := range messages.Everywhere("commit.nothing_recorded") {
		m[line] = true
	}
	return m
})

// rememberSession reads a session just committed back once, so that the next
// strom status (often the agent's, in the next session) finds it kept for this
// HEAD: one commit read, put before the sessions kept for the one before.
func rememberSession(ctx context.Context, r *research.Research, commit string) {
	if commit != "" {
		_, _ = LastSession(ctx, r)
	}
}
