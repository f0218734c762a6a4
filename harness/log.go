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
	Session string `json:"session"`
	Task    string `json:"task"`
	End     string `json:"end"`
	Agent   string `json:"agent,omitempty"`
	// AgentVersion and Model: the agent's client version and the model it worked
	// with, where the session's commit names them.
	AgentVersion string `json:"agent_version,omitempty"`
	Model        string `json:"model,omitempty"`
	Check        string `json:"check,omitempty"`
	// CheckFailed is why the session's exit check failed (its first
	// "Strom-Check: failed: …" trailer), "" when it passed.
	CheckFailed string    `json:"check_failed,omitempty"`
	Host        string    `json:"host,omitempty"` // the machine, in a research synced with a remote
	When        time.Time `json:"when"`
	Subject     string    `json:"subject"`
	Commit      string    `json:"commit"`
	Records     int       `json:"records"` // records the session made: its Strom-Records trailer (older commits: the body's lines)
}

// Sessions lists sessions from the history's trailers, newest first; max 0 = all.
func Sessions(ctx context.Context, r *research.Research, max int) ([]SessionEntry, error) {
	// Finding the repository by its files spares the rev-parse that Open starts.
	g, found := gitrepo.Discover(r.Tree.Root)
	if !found {
		var err error
		if g, err = r.Git(ctx); err != nil {
			return nil, err
		}
	}
	commits, err := g.Log(ctx, gitrepo.LogOptions{Max: max, TrailerKey: research.TrailerSession})
	if err != nil {
		return nil, err
	}
	out := make([]SessionEntry, 0, len(commits))
	for _, c := range commits {
		out = append(out, sessionEntry(c))
	}
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
// Sessions(ctx, r, 1)'s entry.
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
		case research.TrailerAgentVersion:
			e.AgentVersion = t.Value
		case research.TrailerModel:
			e.Model = t.Value
		case research.TrailerCheck:
			e.Check = t.Value
			if why, ok := strings.CutPrefix(t.Value, "failed: "); ok && e.CheckFailed == "" {
				e.CheckFailed = why
			}
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
