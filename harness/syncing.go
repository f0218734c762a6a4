package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/merge"
	"github.com/strom-research/strom/harness/remote"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Trailers of a research synced with a remote (sync.remote).
const (
	TrailerClaim = "Strom-Claim" // the task a claim commit takes
	// TrailerTakeover is on a claim of a task another claim held too long:
	// "<old session>@<old host>".
	TrailerTakeover = "Strom-Takeover"
)

// StaleGrace is how long past the session limit (run.minutes) a claim holds its
// task: a claim older than both is a machine that died mid-session, and another
// machine may take the task over.
const StaleGrace = 10 * time.Minute

// staleClaim reports whether t is started under a claim older than pk.stale: its
// session began (the session id says when; the task's last change where the id
// does not) longer ago than the session limit plus StaleGrace. Only a synced run
// sees stale claims: alone, a clone's crashed session returns its task itself.
func staleClaim(r *research.Research, pk *picker, t *statefiles.Task) bool {
	if pk.stale <= 0 || t.State != statefiles.Started {
		return false
	}
	return r.Now().Sub(claimTime(*t)) > pk.stale
}

// claimTime is when the claim of a started task was made: the time its session
// id begins with, else the task's last change.
func claimTime(t statefiles.Task) time.Time {
	if len(t.Session) >= 16 {
		if at, err := time.Parse("20060102T150405Z", t.Session[:16]); err == nil {
			return at
		}
	}
	return t.Updated
}

// syncOf is the research's sync with its remote as the settings s say, nil when
// sync.remote is unset. It registers strom's merge drivers in the clone (strom
// is this binary): integrating the remote's branch needs them.
func syncOf(ctx context.Context, r *research.Research, s statefiles.Settings, strom string) (*remote.Sync, error) {
	v, err := s.Resolve("sync.remote", "")
	if err != nil || v.Value == "" {
		return nil, err
	}
	g, err := r.Git(ctx)
	if err != nil {
		return nil, err
	}
	sy, err := remote.Resolve(ctx, g, v.Value, r.Host())
	if err != nil || sy == nil {
		return nil, err
	}
	if strom != "" {
		if _, err := merge.Install(ctx, g, r.Tree, strom); err != nil {
			return nil, err
		}
	}
	sy.BeforeMerge = func(ctx context.Context) error { return renumberNew(ctx, r, r.SyncOut) }
	sy.AfterMerge = func(ctx context.Context) error { return r.Tree.HealQueue() }
	sy.Clock = r.Clock
	return sy, nil
}

// SyncState is what strom status says of the sync with a remote.
type SyncState struct {
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

// HostName is this machine's name in claims and Strom-Host trailers.
func HostName(r *research.Research) string { return r.Host() }

// ClaimTime is when the claim of a started task was made.
func ClaimTime(t statefiles.Task) time.Time { return claimTime(t) }

// ClaimedElsewhere reports whether t is started under another machine's claim.
func ClaimedElsewhere(r *research.Research, t statefiles.Task) bool {
	return t.State == statefiles.Started && t.Host != "" && t.Host != r.Host()
}

// SyncStatus reads the sync's state without asking the remote: the commits not
// pushed are counted against what the last fetch or push saw.
func SyncStatus(ctx context.Context, r *research.Research) SyncState {
	s, err := r.Settings()
	if err != nil {
		return SyncState{}
	}
	return syncStatusOf(ctx, r, s)
}

// syncStatusOf is SyncStatus under settings the caller has read.
func syncStatusOf(ctx context.Context, r *research.Research, s statefiles.Settings) SyncState {
	v, err := s.Resolve("sync.remote", "")
	if err != nil || v.Value == "" {
		return SyncState{}
	}
	st := SyncState{On: true, Remote: v.Value}
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
	if started, _, err := r.Tree.QueuePage(ctx, statefiles.Started, 0, 1<<30); err == nil {
		for _, t := range started {
			if ClaimedElsewhere(r, t) && len(st.Claims) < maxClaimsShown {
				st.Claims = append(st.Claims, ClaimInfo{Task: t.ID, Host: t.Host, Session: t.Session, Since: claimTime(t)})
			}
		}
	}
	return st
}

// claim takes task, or the first open task after the remote's branch is merged
// in, for a session: it marks the task started by a new session, commits that
// and pushes it. It returns the task and the session's id; nil when no task is
// left to take. While the remote cannot be reached no task is claimed: the run
// stops with a sentence (a claim that is not on the remote could be a second
// machine's work on the same task).
func claim(ctx context.Context, r *research.Research, pk *picker, out io.Writer) (*statefiles.Task, string, error) {
	sy := r.Sync
	var task *statefiles.Task
	var id string
	first := true
	take := func(ctx context.Context) (*remote.Claim, error) {
		t, _, lines, err := next(ctx, r, pk)
		for _, s := range lines {
			fmt.Fprintln(out, s)
		}
		if err != nil || t == nil {
			task = nil
			return nil, err
		}
		if !first {
			fmt.Fprintln(out, r.Messages().Say("sync.retry", messages.Args{"Remote": sy.Remote}))
		}
		first = false
		id = research.NewSessionID(r.Now())
		rel := statefiles.ShardFile(t.ID)
		paths := []string{statefiles.DirName + "/" + rel, statefiles.DirName + "/" + statefiles.QueueFile}
		var c remote.Claim
		err = r.Tree.Locked(ctx, func() error {
			if err := r.Tree.MigrateQueue(); err != nil {
				return err
			}
			before, err := readFiles(r, rel, statefiles.QueueFile)
			if err != nil {
				return fmt.Errorf("claim task: %w", err)
			}
			var takeover string
			claimed, err := r.Tree.UpdateTaskLocked(t.ID, func(qt *statefiles.Task) error {
				switch {
				case qt.State == statefiles.Open:
				case staleClaim(r, pk, qt):
					takeover = qt.Session + "@" + qt.Host
					fmt.Fprintln(out, r.Messages().Say("sync.takeover", messages.Args{"Task": qt.ID, "Session": qt.Session,
						"Host": hostOrUnknown(r.Messages(), qt.Host), "Since": claimTime(*qt).Local().Format("2006-01-02 15:04")}))
				default:
					return fmt.Errorf("task %s is %s now, not open", qt.ID, qt.State)
				}
				qt.State, qt.Session, qt.Host, qt.Updated = statefiles.Started, id, sy.Host, r.Now().UTC()
				return nil
			})
			if err != nil {
				return err
			}
			task = &claimed
			msg := gitrepo.Message{
				Subject: r.Messages().Say("sync.claim_subject", messages.Args{"Task": t.ID, "Host": sy.Host}),
				Body:    "session " + id,
				Trailers: []gitrepo.Trailer{
					{Key: TrailerClaim, Value: t.ID},
					{Key: research.TrailerHost, Value: sy.Host},
				},
			}
			if takeover != "" {
				msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: TrailerTakeover, Value: takeover})
			}
			c.Commit, err = r.CommitPaths(ctx, msg, paths)
			if err != nil {
				_ = restoreFiles(r, before)
				return err
			}
			c.Undo = func(ctx context.Context) error {
				return r.Tree.Locked(ctx, func() error {
					if err := sy.Git.UndoCommit(ctx, c.Commit, paths...); err != nil {
						return err
					}
					return restoreFiles(r, before)
				})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("claim task %s: %w", t.ID, err)
		}
		return &c, nil
	}
	ok, err := sy.Claim(ctx, take)
	var ce *gitrepo.ConflictError
	if errors.As(err, &ce) {
		// Session commits an earlier run could not push meet the remote's: they
		// go to a branch of their own, and the claim is made on the remote's state.
		if derr := divert(ctx, r, ce, out); derr == nil {
			if err = publish(ctx, r, out); err == nil {
				ok, err = sy.Claim(ctx, take)
			}
		} else if !errors.Is(derr, errNotDiverted) {
			err = derr
		}
	}
	if err != nil {
		return nil, "", syncError(r, err)
	}
	if !ok {
		return nil, "", nil
	}
	fmt.Fprintln(out, r.Messages().Say("sync.claimed", messages.Args{"Task": task.ID, "Remote": sy.Remote, "Branch": sy.Branch, "Host": sy.Host}))
	return task, id, nil
}

// syncStart begins a synced run: the commits an earlier run left in this clone
// are pushed (a crashed session's commit among them), or else the remote's
// branch is merged in, so that the run picks from the remote's queue. A remote
// away is said by the first claim.
func syncStart(ctx context.Context, r *research.Research, out io.Writer) error {
	if n, _ := r.Sync.Unpushed(ctx, research.TrailerSession); n > 0 {
		return publish(ctx, r, out)
	}
	err := r.Sync.Integrate(ctx)
	if err == nil || errors.Is(err, gitrepo.ErrRemoteAway) {
		return nil
	}
	return syncError(r, err)
}

// publish pushes the session's commit (and any left from before) to the remote,
// merging the remote's branch first whenever it moved on. It never fails the
// run: a remote away leaves the commits here, said in a line, and the next claim
// stops the run; a conflict is returned for the run to stop on.
func publish(ctx context.Context, r *research.Research, out io.Writer) error {
	sy := r.Sync
	err := sy.Publish(ctx)
	if err == nil {
		return nil
	}
	// A branch that kept moving is as good as away for this push: the commits
	// wait here for the next claim's push.
	if errors.Is(err, gitrepo.ErrRemoteAway) || errors.Is(err, remote.ErrBusy) {
		id := "sync.not_pushed"
		if errors.Is(err, remote.ErrBusy) {
			id = "sync.busy"
		}
		n, _ := sy.Unpushed(ctx, research.TrailerSession)
		fmt.Fprintln(out, r.Messages().Say(id, messages.Args{"Remote": sy.Remote, "Count": n}))
		return nil
	}
	var ce *gitrepo.ConflictError
	if errors.As(err, &ce) {
		// The session's files meet the remote's: its commit goes to a branch of
		// its own and its task to a person; the run goes on.
		if derr := divert(ctx, r, ce, out); derr == nil {
			return publish(ctx, r, out)
		} else if !errors.Is(derr, errNotDiverted) {
			return syncError(r, derr)
		}
	}
	return syncError(r, err)
}

// syncError turns a sync failure into the run's sentence.
func syncError(r *research.Research, err error) error {
	sy := r.Sync
	p := r.Messages()
	var ce *gitrepo.ConflictError
	switch {
	case errors.As(err, &ce):
		return errors.New(p.Say("sync.conflict", messages.Args{"Remote": sy.Remote, "Branch": sy.Branch, "Paths": strings.Join(ce.Paths, ", ")}))
	case errors.Is(err, gitrepo.ErrRemoteAway):
		return errors.New(p.Say("sync.away", messages.Args{"Remote": sy.Remote, "Cause": gitCause(err)}))
	}
	return err
}

// gitCause is git's own last line of a failed command, or the error.
func gitCause(err error) string {
	var ge *gitrepo.GitError
	if errors.As(err, &ge) {
		lines := strings.Split(strings.TrimSpace(ge.Stderr), "\n")
		if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
			return l
		}
	}
	return err.Error()
}

// hostOrUnknown is a claim's host as a sentence names it.
func hostOrUnknown(p *messages.Printer, host string) string {
	if host == "" {
		return p.Say("sync.host_unknown")
	}
	return host
}

// readFiles reads state files (relative to .strom/) by name, to put back.
func readFiles(r *research.Research, rels ...string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(rels))
	for _, rel := range rels {
		b, err := statefiles.ReadFile(r.Tree.Path(rel))
		if err != nil {
			return nil, err
		}
		out[rel] = b
	}
	return out, nil
}

// restoreFiles puts state files back as readFiles read them before a claim.
func restoreFiles(r *research.Research, before map[string][]byte) error {
	for _, rel := range slices.Sorted(maps.Keys(before)) {
		if err := statefiles.WriteAtomic(r.Tree.Path(rel), before[rel], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// leftBehind pushes, at the end of a synced run, the session commits still in
// this clone, and says in one sentence what stays behind when it cannot: a run
// ends only with everything it committed on the remote, or with an error that
// says what is not. "" when nothing stays behind (or the research is not synced).
func leftBehind(ctx context.Context, r *research.Research) string {
	sy := r.Sync
	if sy == nil {
		return ""
	}
	n, err := sy.Unpushed(ctx, research.TrailerSession)
	if err != nil || n == 0 {
		return ""
	}
	err = sy.Publish(ctx)
	if err == nil {
		return ""
	}
	if left, cerr := sy.Unpushed(context.WithoutCancel(ctx), research.TrailerSession); cerr == nil && left > 0 {
		n = left
	}
	return r.Messages().Say("sync.left_behind", messages.Args{"Count": n, "Remote": sy.Remote, "Cause": gitCause(err)})
}
