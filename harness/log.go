package harness

import (
	"context"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
)

// Trailer keys of harness commits.
const (
	TrailerSession = "Strom-Session"
	TrailerTask    = "Strom-Task"
	TrailerEnd     = "Strom-End"
	TrailerAgent   = "Strom-Agent"
	TrailerCheck   = "Strom-Check"
	TrailerMode    = "Strom-Mode"
)

// SessionEntry is one session as the history tells it.
type SessionEntry struct {
	Session string    `json:"session"`
	Task    string    `json:"task"`
	End     string    `json:"end"`
	Agent   string    `json:"agent,omitempty"`
	Check   string    `json:"check,omitempty"`
	When    time.Time `json:"when"`
	Subject string    `json:"subject"`
	Commit  string    `json:"commit"`
}

// Sessions lists sessions from the history's trailers, newest first; max 0 = all.
func (r *Research) Sessions(ctx context.Context, max int) ([]SessionEntry, error) {
	g, err := r.Git(ctx)
	if err != nil {
		return nil, err
	}
	commits, err := g.Log(ctx, gitrepo.LogOptions{Max: max, TrailerKey: TrailerSession})
	if err != nil {
		return nil, err
	}
	out := make([]SessionEntry, 0, len(commits))
	for _, c := range commits {
		out = append(out, sessionEntry(c))
	}
	return out, nil
}

// LastSession is the newest session of the history, or nil when there is none: the
// same entry as Sessions(ctx, 1) returns. It reads through one git process, the
// faster path on a big repository (see gitrepo.Repo.LastCommitWithTrailer), because
// strom status asks for it on every call.
func (r *Research) LastSession(ctx context.Context) (*SessionEntry, error) {
	g, err := r.Git(ctx)
	if err != nil {
		return nil, err
	}
	c, err := g.LastCommitWithTrailer(ctx, TrailerSession)
	if err != nil || c == nil {
		return nil, err
	}
	e := sessionEntry(*c)
	return &e, nil
}

// sessionEntry reads a session commit's trailers.
func sessionEntry(c gitrepo.Commit) SessionEntry {
	e := SessionEntry{When: c.When, Subject: c.Subject, Commit: c.Hash}
	for _, t := range c.Message.Trailers {
		switch t.Key {
		case TrailerSession:
			e.Session = t.Value
		case TrailerTask:
			e.Task = t.Value
		case TrailerEnd:
			e.End = t.Value
		case TrailerAgent:
			e.Agent = t.Value
		case TrailerCheck:
			e.Check = t.Value
		}
	}
	return e
}
