package machines

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
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/remote"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
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

// Claims is what a run's picking of tasks knows of claims: how old a claim may
// grow, the remote's claims and the tasks lost or not published in the round of
// claiming under way. The zero Claims is a run alone.
type Claims struct {
	// Stale is how old a claim of a started task may grow before a synced run
	// takes the task over (the session limit plus StaleGrace); 0 without sync.
	Stale time.Duration
	// held are the remote's claims by task (a synced run), lost the tasks
	// another machine claimed first in this round of claiming.
	held map[string]remote.Held
	lost map[string]bool
	// unpublished are tasks of this clone that the remote's branch did not
	// hold even after the queue was shared: no claim can name them yet.
	unpublished map[string]bool
}

// Takeable reports whether the run may take t: open, or started under a claim
// older than c.Stale (a machine that died, or a session that never began); in a
// synced run, not claimed on the remote by another session unless that claim is
// older than c.Stale, and not lost to another machine in this round.
func (c *Claims) Takeable(r *research.Research, t *statefiles.Task) bool {
	if c.lost[t.ID] || c.unpublished[t.ID] {
		return false
	}
	if h, ok := c.held[t.ID]; ok && !ownEnded(r, h) && !staleHeld(r, c, h) {
		return false
	}
	return t.State == statefiles.Open || staleClaim(r, c, t)
}

// staleClaim reports whether t is started under a claim older than c.Stale: its
// session began (the session id says when; the task's last change where the id
// does not) longer ago than the session limit plus StaleGrace. Only a synced run
// sees stale claims: alone, a clone's crashed session returns its task itself.
func staleClaim(r *research.Research, c *Claims, t *statefiles.Task) bool {
	if c.Stale <= 0 || t.State != statefiles.Started {
		return false
	}
	return r.Now().Sub(ClaimTime(*t)) > c.Stale
}

// ClaimTime is when the claim of a started task was made: the time its session
// id begins with, else the task's last change.
func ClaimTime(t statefiles.Task) time.Time {
	if at, ok := sessionTime(t.Session); ok {
		return at
	}
	return t.Updated
}

// sessionTime is the time a session id begins with.
func sessionTime(id string) (time.Time, bool) {
	if len(id) >= 16 {
		if at, err := time.Parse("20060102T150405Z", id[:16]); err == nil {
			return at, true
		}
	}
	return time.Time{}, false
}

// staleHeld reports whether a claim on the remote is older than c.Stale: its
// machine died mid-session, and another may take the task over. A claim whose
// session id tells no time is never stale.
func staleHeld(r *research.Research, c *Claims, h remote.Held) bool {
	at, ok := sessionTime(h.Session)
	return ok && c.Stale > 0 && r.Now().Sub(at) > c.Stale
}

// ownClaimsEnded reports whether the remote holds, as the last fetch saw it, a
// claim of this machine's that holds its task no more (ownEnded).
func ownClaimsEnded(r *research.Research) bool {
	if r.Sync == nil {
		return false
	}
	for _, h := range r.Sync.Claims() {
		if h.Host == r.Sync.Host && ownEnded(r, h) {
			return true
		}
	}
	return false
}

// ownEnded reports whether h is this machine's claim of a session that ended in
// this clone (the task is not started by it here): it holds the task no more, and
// the next push deletes it with the session's end.
func ownEnded(r *research.Research, h remote.Held) bool {
	if r.Sync == nil || h.Host != r.Sync.Host {
		return false
	}
	t, err := r.Tree.FindTask(context.Background(), h.Task)
	if err != nil {
		return errors.Is(err, statefiles.ErrUnknownTask)
	}
	return t.State != statefiles.Started || t.Session != h.Session
}

// Of is the research's sync with its remote as the settings s say, nil when
// sync.remote is unset. It registers strom's merge drivers in the clone (strom
// is this binary): integrating the remote's branch needs them.
func Of(ctx context.Context, r *research.Research, s statefiles.Settings, strom string) (*remote.Sync, error) {
	v, err := s.Resolve("sync.remote", "")
	if err != nil || v.Value == "" {
		return nil, err
	}
	g, err := r.Git(ctx)
	if err != nil {
		return nil, err
	}
	// One git process reads the remote, the branch's upstream and the merge
	// drivers registered.
	cfg, err := g.ConfigMatching(ctx, `^(remote\.|branch\.|merge\.strom-)`)
	if err != nil {
		return nil, err
	}
	sy, err := remote.ResolveConfig(ctx, g, v.Value, r.Host(), cfg)
	if err != nil || sy == nil {
		return nil, err
	}
	if strom != "" {
		if _, err := merge.InstallHaving(ctx, g, r.Tree, strom, cfg); err != nil {
			return nil, err
		}
	}
	sy.BeforeMerge = func(ctx context.Context) error { return renumberNew(ctx, r, r.SyncOut) }
	sy.AfterMerge = func(ctx context.Context) error { return r.Tree.HealQueue() }
	sy.Clock = r.Clock
	sy.Ended = func(h remote.Held) bool { return ownEnded(r, h) }
	return sy, nil
}

// Next is the run's pick of the next task to take (nil: none), with the lines
// it says about the tasks it passed over.
type Next func(ctx context.Context) (*statefiles.Task, []string, error)

// Claim takes the first task the run may take after the remote's branch and
// claims are merged in, for a session: it marks the task started by a new
// session, commits that, and creates the task's claim ref on the remote with that
// commit. A task another machine claimed first is passed over for the next. It
// returns the task and the session's id; nil when no task is left to take. While
// the remote cannot be reached no task is claimed: the run stops with a sentence
// (a claim that is not on the remote could be a second machine's work on the
// same task). next is the run's pick of a task cs finds takeable.
func (cs *Claims) Claim(ctx context.Context, r *research.Research, next Next, out io.Writer) (*statefiles.Task, string, error) {
	sy := r.Sync
	var task *statefiles.Task
	var id string
	said := map[string]bool{}
	shared := false
	take := func(ctx context.Context, held map[string]remote.Held, lost map[string]bool) (*remote.Claim, error) {
		cs.held, cs.lost = held, lost
		for _, l := range slices.SortedFunc(maps.Keys(lost), queue.ByIDNumber) {
			if !said[l] {
				said[l] = true
				fmt.Fprintln(out, r.Messages().Say("sync.retry", messages.Args{"Task": l, "Remote": sy.Remote}))
			}
		}
		var t *statefiles.Task
		var err error
		for {
			var lines []string
			t, lines, err = next(ctx)
			for _, s := range lines {
				fmt.Fprintln(out, s)
			}
			if err != nil || t == nil {
				task = nil
				return nil, err
			}
			if publishedTask(ctx, r, t) {
				break
			}
			// A claim names a task by its id on the remote: a task this
			// clone added is shared first, so that its id is the one every
			// machine knows (renumbered when another machine took it).
			if !shared {
				return nil, errUnpublished
			}
			cs.unpublished[t.ID] = true
		}
		id = research.NewSessionID(r.Now())
		rel := statefiles.ShardFile(t.ID)
		// The claim commit holds the queue's files whole: queue.json names no
		// task whose file the commit leaves out.
		paths := r.QueuePaths()
		c := remote.Claim{Task: t.ID, Session: id}
		// A claim the remote holds for the task (a stale one, or this machine's of
		// a session that ended) is replaced.
		h, isHeld := held[t.ID]
		if isHeld {
			c.Over = h.Commit
		}
		err = r.Tree.Locked(ctx, func() error {
			if err := r.Tree.MigrateQueue(); err != nil {
				return err
			}
			// The claim's session is noted before the claim: a kill before the
			// session begins leaves its task to the next run here (session.RecoverCrash).
			if err := runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.Claimed = id }); err != nil {
				return err
			}
			before, err := readFiles(r, rel, statefiles.QueueFile)
			if err != nil {
				return fmt.Errorf("claim task: %w", err)
			}
			var takeover string
			say := func(session, host string, since time.Time) {
				takeover = session + "@" + host
				fmt.Fprintln(out, r.Messages().Say("sync.takeover", messages.Args{"Task": t.ID, "Session": session,
					"Host": hostOrUnknown(r.Messages(), host), "Since": since.Local().Format("2006-01-02 15:04")}))
			}
			claimed, err := r.Tree.UpdateTaskLocked(t.ID, func(qt *statefiles.Task) error {
				switch {
				case isHeld && !ownEnded(r, h) && staleHeld(r, cs, h):
					at, _ := sessionTime(h.Session)
					say(h.Session, h.Host, at)
				case qt.State == statefiles.Open:
				case staleClaim(r, cs, qt):
					say(qt.Session, qt.Host, ClaimTime(*qt))
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
			seen := *t
			c.Still = func(ctx context.Context, tip string) (bool, error) {
				return stillFree(ctx, r, tip, rel, seen), nil
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("claim task %s: %w", t.ID, err)
		}
		return &c, nil
	}
	if err := commitQueue(ctx, r); err != nil {
		return nil, "", err
	}
	cs.unpublished = map[string]bool{}
	ok, err := sy.Claim(ctx, take)
	// Tasks of this clone's that the remote does not hold yet are shared, and
	// shared again while they are all that is left and others' pushes kept the
	// push from happening.
	for try := 0; try < shareTries && (errors.Is(err, errUnpublished) || err == nil && !ok && len(cs.unpublished) > 0); try++ {
		shared = true
		cs.unpublished = map[string]bool{}
		if err = shareQueue(ctx, r, out); err == nil {
			ok, err = sy.Claim(ctx, take)
		}
	}
	var ce *gitrepo.ConflictError
	if errors.As(err, &ce) {
		// Session commits an earlier run could not push meet the remote's: they
		// go to a branch of their own, and the claim is made on the remote's state.
		if derr := divert(ctx, r, ce, out); derr == nil {
			if err = Publish(ctx, r, out); err == nil {
				ok, err = sy.Claim(ctx, take)
			}
		} else if !errors.Is(derr, errNotDiverted) {
			err = derr
		}
	}
	cs.lost = nil
	if err != nil {
		return nil, "", syncError(r, err)
	}
	if !ok {
		return nil, "", nil
	}
	fmt.Fprintln(out, r.Messages().Say("sync.claimed", messages.Args{"Task": task.ID, "Remote": sy.Remote, "Branch": sy.Branch, "Host": sy.Host}))
	return task, id, nil
}

// shareTries is how many times a claim shares the tasks added here while they
// are all it could take.
const shareTries = 5

// errUnpublished is a claim's take meeting a task the remote's branch does not
// hold yet.
var errUnpublished = errors.New("the task is not on the remote yet")

// publishedTask reports whether t is on the remote's branch as this clone last
// fetched it: the same id, made at the same time. A clone in step with the remote
// that wrote no task since knows it without asking git.
func publishedTask(ctx context.Context, r *research.Research, t *statefiles.Task) bool {
	sy := r.Sync
	if sy.InSync(ctx) && !slices.Contains(r.Tree.WrittenTasks(), t.ID) {
		return true
	}
	rel := statefiles.ShardFile(t.ID)
	data, err := sy.Git.ReadBlob(ctx, sy.Ref()+":"+statefiles.DirName+"/"+rel)
	if err != nil {
		return false
	}
	tasks, err := statefiles.ParseShard(rel, rel, data)
	if err != nil {
		return false
	}
	for _, rt := range tasks {
		if rt.ID == t.ID {
			return rt.Created.Equal(t.Created)
		}
	}
	return false
}

// commitQueue commits the queue's files when strom wrote tasks here since the
// last commit (a person's strom task add between sessions): merging the remote's
// branch then meets them as this clone's commit, renumbered where another
// machine gave its tasks the same ids, not as files that block the merge.
func commitQueue(ctx context.Context, r *research.Research) error {
	if len(r.Tree.WrittenTasks()) == 0 {
		return nil
	}
	sy := r.Sync
	err := r.Tree.Locked(ctx, func() error {
		msg := research.SafeMessage(gitrepo.Message{
			Subject:  r.Messages().Say("sync.queue_subject", messages.Args{"Host": sy.Host}),
			Trailers: []gitrepo.Trailer{{Key: research.TrailerHost, Value: sy.Host}},
		})
		_, err := sy.Git.Checkpoint(ctx, msg, gitrepo.CheckpointOptions{
			Only:          r.QueuePaths(),
			NoVerify:      true,
			FallbackName:  "strom",
			FallbackEmail: "strom@localhost",
		})
		if err != nil && !errors.Is(err, gitrepo.ErrNothingToCommit) {
			return err
		}
		// Every task file is in HEAD now.
		r.Tree.ClearWrittenTasks()
		return nil
	})
	if err != nil {
		return fmt.Errorf("commit the tasks added here: %w", err)
	}
	return nil
}

// shareQueue pushes what this clone has not pushed yet, the tasks added here
// among it: they get the ids the remote gives them before one of them is
// claimed. A push that did not happen (the remote away, its branch moving on)
// leaves them unpublished: the claim passes them over this time.
func shareQueue(ctx context.Context, r *research.Research, out io.Writer) error {
	if err := commitQueue(ctx, r); err != nil {
		return err
	}
	return Publish(ctx, r, out)
}

// stillFree reports whether the task seen, in the file of tasks rel, is as it
// was in the remote's branch at tip: no session of another machine's ended on
// it there since. A file that cannot be read says nothing against the claim.
func stillFree(ctx context.Context, r *research.Research, tip, rel string, seen statefiles.Task) bool {
	data, err := r.Sync.Git.ReadBlob(ctx, tip+":"+statefiles.DirName+"/"+rel)
	if err != nil {
		return true
	}
	tasks, err := statefiles.ParseShard(rel, rel, data)
	if err != nil {
		return true
	}
	for _, t := range tasks {
		if t.ID == seen.ID {
			return t.State == seen.State && t.Session == seen.Session
		}
	}
	return true
}

// Start begins a synced run: the commits an earlier run left in this clone
// are pushed (a crashed session's commit among them), or else the remote's
// branch is merged in, so that the run picks from the remote's queue. A remote
// away is said by the first claim.
func Start(ctx context.Context, r *research.Research, out io.Writer) error {
	if err := commitQueue(ctx, r); err != nil {
		return err
	}
	// The claims first: this machine's of sessions a kill ended go with the push.
	err := r.Sync.IntegrateClaims(ctx)
	if errors.Is(err, gitrepo.ErrRemoteAway) {
		return nil
	}
	var ce *gitrepo.ConflictError
	if err != nil && !errors.As(err, &ce) {
		return syncError(r, err)
	}
	// A claim of this machine's whose session ended here, or never began, is
	// deleted by a push even when nothing else waits for one.
	ended := ownClaimsEnded(r)
	if ce == nil && !ended && r.Sync.InSync(ctx) {
		r.Sync.Fresh()
		return nil
	}
	if n, _ := r.Sync.Unpushed(ctx, research.TrailerSession); n > 0 || ce != nil || ended {
		return Publish(ctx, r, out)
	}
	r.Sync.Fresh()
	return nil
}

// Publish pushes the session's commit (and any left from before) to the remote,
// merging the remote's branch first whenever it moved on. It never fails the
// run: a remote away leaves the commits here, said in a line, and the next claim
// stops the run; a conflict is returned for the run to stop on.
func Publish(ctx context.Context, r *research.Research, out io.Writer) error {
	sy := r.Sync
	err := sy.Publish(ctx, sy.Ended, publishTries)
	if err == nil {
		return nil
	}
	if errors.Is(err, remote.ErrMoving) {
		// Other machines pushed in every round: the commits go with a later
		// push, their claims hold their tasks meanwhile, and the run ends only
		// once they are on the remote (LeftBehind).
		n, _ := sy.Unpushed(ctx, research.TrailerSession)
		fmt.Fprintln(out, r.Messages().Say("sync.push_later", messages.Args{"Remote": sy.Remote, "Branch": sy.Branch, "Count": n}))
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
			return Publish(ctx, r, out)
		} else if !errors.Is(derr, errNotDiverted) {
			return syncError(r, derr)
		}
	}
	return syncError(r, err)
}

// publishTries bounds the rounds of the push after a session while other
// machines keep pushing: one. A push the remote refuses because its branch moved
// on is not followed by a fetch and a merge of its own: the next claim's round
// fetches and merges anyway and pushes right after it (remote.Sync.Claim), when
// the branch is least likely to have moved again.
const publishTries = 1

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

// LeftBehind pushes, at the end of a synced run, the session commits still in
// this clone, and says in one sentence what stays behind when it cannot: a run
// ends only with everything it committed on the remote, or with an error that
// says what is not. "" when nothing stays behind (or the research is not synced).
func LeftBehind(ctx context.Context, r *research.Research) string {
	sy := r.Sync
	if sy == nil || sy.InSync(ctx) {
		return ""
	}
	n, err := sy.Unpushed(ctx, research.TrailerSession)
	if err != nil || n == 0 {
		return ""
	}
	err = sy.Publish(ctx, sy.Ended, 0)
	if err == nil {
		return ""
	}
	if left, cerr := sy.Unpushed(context.WithoutCancel(ctx), research.TrailerSession); cerr == nil && left > 0 {
		n = left
	}
	return r.Messages().Say("sync.left_behind", messages.Args{"Count": n, "Remote": sy.Remote, "Cause": gitCause(err)})
}
