package machines

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/remote"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// State is what strom status says of the sync with a remote.
type State struct {
	On       bool   `json:"on"`
	Remote   string `json:"remote,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Unpushed int    `json:"unpushed"`          // session commits the remote's branch does not have yet
	Problem  string `json:"problem,omitempty"` // why sync.remote cannot be used, "" when it can
	// Claims are the started tasks other machines claimed, as far as the last
	// fetch brought them (at most maxClaimsShown).
	Claims []ClaimInfo `json:"claims"`
}

// ClaimInfo is a started task another machine claimed.
type ClaimInfo struct {
	Task    string    `json:"task"`
	Host    string    `json:"host"`
	Session string    `json:"session"`
	Since   time.Time `json:"since"`
}

// maxClaimsShown bounds the claims strom status lists.
const maxClaimsShown = 50

// ClaimedElsewhere reports whether t is started under another machine's claim.
func ClaimedElsewhere(r *research.Research, t statefiles.Task) bool {
	return t.State == statefiles.Started && t.Host != "" && t.Host != r.Host()
}

// ShowClaims is tasks as the remote's claims show them, for a person: an open
// task another machine claimed (as the last fetch saw the claims) is started on
// that machine, in that session. A research alone keeps its tasks as they are.
func ShowClaims(ctx context.Context, r *research.Research, tasks []statefiles.Task) []statefiles.Task {
	s, err := r.Settings()
	if err != nil {
		return tasks
	}
	v, err := s.Resolve("sync.remote", "")
	if err != nil || v.Value == "" {
		return tasks
	}
	g, err := r.Git(ctx)
	if err != nil {
		return tasks
	}
	held, err := (&remote.Sync{Git: g, Remote: v.Value}).FetchedClaims(ctx)
	if err != nil || len(held) == 0 {
		return tasks
	}
	me := r.Host()
	for i, t := range tasks {
		if h, ok := held[t.ID]; ok && t.State == statefiles.Open && h.Host != me {
			tasks[i].State, tasks[i].Session, tasks[i].Host = statefiles.Started, h.Session, h.Host
			if at, ok := sessionTime(h.Session); ok {
				tasks[i].Updated = at
			}
		}
	}
	return tasks
}

// StatusOf reads the sync's state under the settings s without asking the
// remote: the commits not pushed are counted against what the last fetch or push
// saw.
func StatusOf(ctx context.Context, r *research.Research, s statefiles.Settings) State {
	v, err := s.Resolve("sync.remote", "")
	if err != nil || v.Value == "" {
		return State{}
	}
	st := State{On: true, Remote: v.Value}
	g, err := r.Git(ctx)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	sy, err := remote.Resolve(ctx, g, v.Value, "")
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	st.Branch = sy.Branch
	st.Unpushed, _ = sy.Unpushed(ctx, research.TrailerSession)
	st.Claims = []ClaimInfo{}
	me := r.Host()
	seen := map[string]bool{}
	// The claims on the remote as the last fetch saw them, and tasks started
	// under claims made on the branch itself (by an older strom).
	if held, err := sy.FetchedClaims(ctx); err == nil {
		for _, h := range slices.SortedFunc(maps.Values(held), func(a, b remote.Held) int { return queue.ByIDNumber(a.Task, b.Task) }) {
			if h.Host != me && len(st.Claims) < maxClaimsShown {
				at, _ := sessionTime(h.Session)
				st.Claims = append(st.Claims, ClaimInfo{Task: h.Task, Host: h.Host, Session: h.Session, Since: at})
				seen[h.Task] = true
			}
		}
	}
	if started, _, err := r.Tree.QueuePage(ctx, statefiles.Started, 0, 1<<30); err == nil {
		for _, t := range started {
			if ClaimedElsewhere(r, t) && !seen[t.ID] && len(st.Claims) < maxClaimsShown {
				st.Claims = append(st.Claims, ClaimInfo{Task: t.ID, Host: t.Host, Session: t.Session, Since: ClaimTime(t)})
			}
		}
	}
	return st
}
