// Package remote syncs a research with the git remote several machines share
// (sync.remote): it integrates the remote's branch and claims before a task is
// claimed and after a session, claims a task by creating its ref on the remote,
// and pushes session commits. git's atomic ref update on the remote is the lock:
// a claim is the ref refs/strom/claims/<task>, created by a push whose lease
// expects none, so of two claims of one task the one pushed first holds, the other
// machine takes back its own and tries the next task, and claims of different
// tasks never meet. A session's push deletes its claim in the same atomic push,
// so a claim lives as long as its session's end is not on the branch. A remote
// that cannot be reached never loses a commit: commits stay in the clone and are
// pushed by the next Publish.
package remote

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/internal/clock"
)

// MaxStuck bounds the rounds of integrate, claim and push whose push the remote
// refused although its branch had not moved since the round before: a refusal
// that is not another machine's progress (a hook on the remote that declines, a
// branch it protects). Rounds whose refusal another machine's push explains are
// not counted: a machine never gives up because others made progress.
const MaxStuck = 5

// Backoff is the longest wait before the second round after a refused push;
// each further round may wait twice as long, up to MaxBackoff. The wait is a
// random part of it, so that machines that met stop meeting.
const (
	Backoff    = 50 * time.Millisecond
	MaxBackoff = 2 * time.Second
)

// ErrNoRemote means sync.remote names a remote this clone's git config lacks.
var ErrNoRemote = errors.New("no such git remote")

// ErrBusy means the remote refused MaxStuck pushes in a row while its branch
// did not move.
var ErrBusy = errors.New("the remote refused the push though its branch did not move")

// Sync is a research synced with one branch of one remote.
type Sync struct {
	Git    *gitrepo.Repo
	Remote string // the remote's name in the clone's git config
	Branch string // the remote's branch
	Host   string // this machine's name, for claims and Strom-Host trailers
	// BeforeMerge, when set, runs after each fetch and before the remote's branch
	// is merged in (the harness renumbers this clone's new tasks there).
	BeforeMerge func(ctx context.Context) error
	// AfterMerge, when set, runs after the remote's branch was merged in: the
	// harness makes queue.json follow the tasks' files, merged apart.
	AfterMerge func(ctx context.Context) error
	// Clock waits between rounds (nil: the real clock).
	Clock clock.Clock
	// Ended, when set, tells a claim of this machine's whose session ended in
	// this clone: a claim round's push deletes it (Publish's ended).
	Ended func(Held) bool

	fresh  bool            // the claims and the branch were just integrated (Fresh)
	merged string          // the remote's branch as this clone merged it last
	held   map[string]Held // the remote's claims as the last fetch of them saw them
	won    []Held          // claims this clone made since, not yet deleted
}

// backoff waits a random part of the try's backoff, or until ctx ends.
func (s *Sync) backoff(ctx context.Context, try int) error {
	c := s.Clock
	if c == nil {
		c = clock.Real{}
	}
	limit := min(Backoff<<min(try, 10), MaxBackoff)
	select {
	case <-c.After(time.Duration(rand.Int64N(int64(limit)))):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Resolve makes the Sync of the setting sync.remote = name: the branch is the
// current branch's upstream when it tracks that remote, else the current branch's
// own name. nil when name is "" (sync is off).
func Resolve(ctx context.Context, g *gitrepo.Repo, name, host string) (*Sync, error) {
	if name == "" {
		return nil, nil
	}
	cfg, err := g.ConfigMatching(ctx, `^(remote\.|branch\.)`)
	if err != nil {
		return nil, fmt.Errorf("resolve sync.remote: %w", err)
	}
	return ResolveConfig(ctx, g, name, host, cfg)
}

// ResolveConfig is Resolve given the clone's git config (its remote.* and
// branch.* keys at least, as ConfigMatching reads them).
func ResolveConfig(ctx context.Context, g *gitrepo.Repo, name, host string, cfg map[string]string) (*Sync, error) {
	if name == "" {
		return nil, nil
	}
	if cfg["remote."+name+".url"] == "" {
		return nil, fmt.Errorf("resolve sync.remote: %w: %q is not a remote of this clone: add it (git remote add %s URL) or set sync.remote to one git remote lists", ErrNoRemote, name, name)
	}
	b, err := g.Branch(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve sync.remote: %w", err)
	}
	if b == "" {
		return nil, fmt.Errorf("resolve sync.remote: %w", gitrepo.ErrDetachedHead)
	}
	if up := strings.TrimPrefix(cfg["branch."+b+".merge"], "refs/heads/"); cfg["branch."+b+".remote"] == name && up != "" {
		b = up
	}
	return &Sync{Git: g, Remote: name, Branch: b, Host: host}, nil
}

// Ref is the local ref that follows the remote's branch.
func (s *Sync) Ref() string { return gitrepo.TrackingRef(s.Remote, s.Branch) }

// ClaimsPrefix is where the remote keeps its claims: a ref per task
// (refs/strom/claims/T-17), naming the claim commit of the session that holds it.
// A claim is made by creating its ref, which git does for one push alone (the
// lease expects no such ref); claims of different tasks never meet. The ref goes
// in the same atomic push that brings the session's end to the branch.
const ClaimsPrefix = "refs/strom/claims/"

// Held is a claim on the remote, as the last fetch saw it.
type Held struct {
	Task    string
	Commit  string // the claim commit the ref names
	Host    string // the machine that made it
	Session string // the session it is for
}

// trackedClaims is where a fetch keeps the remote's claims in this clone.
func (s *Sync) trackedClaims() string { return "refs/strom/remote-claims/" + s.Remote + "/" }

// Integrate fetches the remote's branch and merges it into the current one, with
// strom's merge drivers for its own files. A remote away gives an error wrapping
// gitrepo.ErrRemoteAway; files of the research's own that both sides changed give
// a *gitrepo.ConflictError, with the merge taken back (nothing lost). A remote
// branch that does not exist yet is nothing to merge.
func (s *Sync) Integrate(ctx context.Context) error { return s.integrate(ctx, false) }

// IntegrateClaims is Integrate that also brings the remote's claims (Claims).
func (s *Sync) IntegrateClaims(ctx context.Context) error { return s.integrate(ctx, true) }

func (s *Sync) integrate(ctx context.Context, claims bool) error {
	// The claims come in the same fetch as the branch: a claim deleted just
	// then is caught by the look after the claim (verify).
	prefix, into := "", ""
	if claims {
		prefix, into = ClaimsPrefix, s.trackedClaims()
	}
	if err := s.Git.FetchWith(ctx, s.Remote, s.Branch, prefix, into); err != nil {
		exists, lerr := s.Git.RemoteHasBranch(ctx, s.Remote, s.Branch)
		if lerr != nil || exists {
			return err
		}
		if claims {
			// No branch yet: the claims alone.
			if err := s.Git.FetchRefs(ctx, s.Remote, prefix, into); err != nil {
				return err
			}
			return s.readClaims(ctx)
		}
		return nil
	}
	if claims {
		if err := s.readClaims(ctx); err != nil {
			return err
		}
	}
	// A branch this clone merged last and that has not moved since is nothing
	// to merge: no git is started for it.
	tip, _ := s.Git.Tip(ctx, s.Ref())
	if tip != "" && tip == s.merged {
		return nil
	}
	if s.BeforeMerge != nil {
		if err := s.BeforeMerge(ctx); err != nil {
			return err
		}
	}
	if err := s.Git.Merge(ctx, s.Ref(), "strom: merge "+s.Remote+"/"+s.Branch, "strom", "strom@localhost"); err != nil {
		return err
	}
	s.merged = tip
	if s.AfterMerge != nil {
		return s.AfterMerge(ctx)
	}
	return nil
}

// Fresh says that the claims and the branch were just integrated, with nothing
// done since: the next Claim starts from them.
func (s *Sync) Fresh() { s.fresh = true }

// readClaims reads the claims the last fetch brought.
func (s *Sync) readClaims(ctx context.Context) error {
	refs, err := s.Git.RefsUnder(ctx, s.trackedClaims())
	if err != nil {
		return err
	}
	s.held = map[string]Held{}
	for _, rc := range refs {
		task := strings.TrimPrefix(rc.Ref, s.trackedClaims())
		if v, ok := rc.Message.Trailer(TrailerClaim); !ok || v != task {
			continue // not a claim commit of strom's
		}
		h := Held{Task: task, Commit: rc.Hash}
		h.Host, _ = rc.Message.Trailer(TrailerHost)
		for _, l := range strings.Split(rc.Message.Body, "\n") {
			if id, ok := strings.CutPrefix(strings.TrimSpace(l), "session "); ok {
				h.Session = id
				break
			}
		}
		s.held[task] = h
	}
	// A claim of this clone's the remote no longer holds as it was made went
	// (another machine took its task over).
	s.won = slices.DeleteFunc(s.won, func(w Held) bool { return s.held[w.Task].Commit != w.Commit })
	return nil
}

// FetchedClaims reads the claims the last fetch of them brought into this
// clone, by task, without asking the remote.
func (s *Sync) FetchedClaims(ctx context.Context) (map[string]Held, error) {
	if err := s.readClaims(ctx); err != nil {
		return nil, err
	}
	return s.held, nil
}

// Claims are the claims on the remote as the last fetch of them saw them, with
// this clone's own won since, by task.
func (s *Sync) Claims() map[string]Held {
	m := make(map[string]Held, len(s.held)+len(s.won))
	for k, v := range s.held {
		m[k] = v
	}
	for _, h := range s.won {
		m[h.Task] = h
	}
	return m
}

// Trailers of claim commits: the task taken and the machine that took it. The
// commit's body names the session ("session <id>").
const (
	TrailerClaim = "Strom-Claim"
	TrailerHost  = "Strom-Host"
)

// ErrMoving means the remote's branch moved on in each of the rounds Publish
// was given: the commits stay in the clone for a later push.
var ErrMoving = errors.New("the remote's branch kept moving")

// Publish pushes the clone's commits to the remote's branch, integrating first
// whenever the branch moved on: in at most tries rounds (ErrMoving after them),
// or with tries 0 for as long as others' pushes explain each refusal. In the same
// atomic push go the deletions of this machine's claims that ended says have
// ended in the commits pushed (their tasks' sessions reach the branch with it):
// a claim holds its task until then, so a session's commit may wait in the clone
// for a later push while other machines work on. ended nil keeps them all.
// Errors as Integrate's, and ErrBusy.
func (s *Sync) Publish(ctx context.Context, ended func(Held) bool, tries int) error {
	var r rounds
	tipKnown := false
	for try := 0; ; try++ {
		updates := []gitrepo.RefUpdate{{Src: "HEAD", Dst: "refs/heads/" + s.Branch}}
		var drop []Held
		if ended != nil {
			for _, h := range s.Claims() {
				if h.Host == s.Host && ended(h) {
					drop = append(drop, h)
					updates = append(updates, gitrepo.RefUpdate{Dst: ClaimsPrefix + h.Task, Lease: true, Expect: h.Commit})
				}
			}
		}
		rejected, err := s.Git.PushRefs(ctx, s.Remote, len(drop) > 0, updates...)
		if err == nil {
			s.forget(drop)
			if tip, terr := s.Git.Head(ctx); terr == nil {
				s.merged = tip // the branch on the remote is HEAD now
			}
			return nil
		}
		if !errors.Is(err, gitrepo.ErrPushRejected) {
			return err
		}
		if tries > 0 && try+1 >= tries {
			// The last round's refusal: no merge that no push follows.
			return fmt.Errorf("push to %s: %w (%d times)", s.Remote, ErrMoving, tries)
		}
		if !tipKnown {
			r.stuck(ctx, s)
			tipKnown = true
		}
		if err := s.backoff(ctx, try); err != nil {
			return err
		}
		// A claim's lease failed (another machine took the task over): the
		// claims are read again with the branch.
		leaseFailed := false
		for ref, why := range rejected {
			leaseFailed = leaseFailed || (strings.HasPrefix(ref, ClaimsPrefix) && gitrepo.LeaseFailed(why))
		}
		if err := s.integrate(ctx, leaseFailed); err != nil {
			return err
		}
		if r.stuck(ctx, s) {
			return fmt.Errorf("push to %s: %w (%d times)", s.Remote, ErrBusy, MaxStuck)
		}
	}
}

// forget drops claims deleted on the remote from what this clone knows.
func (s *Sync) forget(drop []Held) {
	for _, h := range drop {
		delete(s.held, h.Task)
		s.won = slices.DeleteFunc(s.won, func(w Held) bool { return w.Task == h.Task })
	}
}

// Claim is a task taken in a local commit not pushed yet.
type Claim struct {
	Task    string
	Session string
	Commit  string
	// Over is the claim commit the remote holds for the task, which this claim
	// replaces (a takeover); "" when the remote holds none.
	Over string
	// Undo takes the claim back: its commit and its change of the queue.
	Undo func(context.Context) error
	// Still reports whether the task is still free in the remote's branch at the
	// commit tip, which moved since take looked: a claim deleted just before this
	// one was made may have had its session pushed meanwhile.
	Still func(ctx context.Context, tip string) (bool, error)
}

// Claim integrates the remote's branch and claims, asks take for a claim of the
// first task it may take, and creates the task's claim ref on the remote. A task
// another machine claimed first is added to lost, and take is asked again with
// it: claims of other tasks do not hinder a claim. take returns nil when no task
// is left, given held (the remote's claims by task) and lost. A remote away
// undoes the claim and gives an error wrapping gitrepo.ErrRemoteAway: a claim
// that is not on the remote is no claim.
func (s *Sync) Claim(ctx context.Context, take func(ctx context.Context, held map[string]Held, lost map[string]bool) (*Claim, error)) (bool, error) {
	var r rounds
	stuckKnown := false
	lost := map[string]bool{}
	fetched := true
	// A view of the remote the run's start has just fetched is not fetched
	// again: the lease and the look after the claim keep a claim right.
	if !s.fresh {
		if err := s.IntegrateClaims(ctx); err != nil {
			return false, err
		}
	}
	s.fresh = false
	s.pushMerged(ctx)
	for try := 0; ; try++ {
		c, err := take(ctx, s.Claims(), lost)
		if err != nil {
			return false, err
		}
		if c == nil {
			if fetched {
				return false, nil
			}
			// Every task this view showed was lost to others: look again.
			if err := s.IntegrateClaims(ctx); err != nil {
				return false, err
			}
			clear(lost)
			fetched = true
			continue
		}
		ref := ClaimsPrefix + c.Task
		rejected, err := s.Git.PushRefs(ctx, s.Remote, false, gitrepo.RefUpdate{Src: c.Commit, Dst: ref, Lease: true, Expect: c.Over})
		taken := gitrepo.LeaseFailed(rejected[ref])
		if err == nil {
			still, verr := s.verify(ctx, c)
			if verr == nil && still {
				s.won = append(s.won, Held{Task: c.Task, Commit: c.Commit, Host: s.Host, Session: c.Session})
				return true, nil
			}
			// The task's session reached the branch meanwhile: the claim goes.
			_, _ = s.Git.PushRefs(context.WithoutCancel(ctx), s.Remote, false, gitrepo.RefUpdate{Dst: ref, Lease: true, Expect: c.Commit})
			err, taken = verr, verr == nil
			if taken {
				err = fmt.Errorf("claim %s: %w", c.Task, gitrepo.ErrPushRejected)
			}
		}
		if uerr := c.Undo(context.WithoutCancel(ctx)); uerr != nil {
			return false, fmt.Errorf("take back the claim: %w (after: %w)", uerr, err)
		}
		if !errors.Is(err, gitrepo.ErrPushRejected) {
			return false, err
		}
		if taken {
			// Another machine holds the task: the next one is tried at once.
			// Machines that fetched at once go for the same tasks in the same
			// order, so the claims the remote holds now are asked for (one
			// look, nothing fetched): a task claimed since this view, or claimed
			// anew, is lost too, and the next try is not lost to them as well.
			lost[c.Task] = true
			fetched = false
			s.lostSince(ctx, lost)
			continue
		}
		// The remote refused the claim for another reason (a hook, a ref locked
		// at that moment): another round, for as long as the remote moves.
		if !stuckKnown {
			r.stuck(ctx, s)
			stuckKnown = true
		}
		if err := s.backoff(ctx, try); err != nil {
			return false, err
		}
		if err := s.IntegrateClaims(ctx); err != nil {
			return false, err
		}
		clear(lost)
		fetched = true
		if r.stuck(ctx, s) {
			return false, fmt.Errorf("claim a task on %s: %w (%d times)", s.Remote, ErrBusy, MaxStuck)
		}
	}
}

// lostSince adds to lost the tasks whose claims on the remote are not the ones
// this clone knows: made, or made anew, by another machine since the last fetch
// of them. A remote that does not answer adds none: the claim's lease still
// decides.
func (s *Sync) lostSince(ctx context.Context, lost map[string]bool) {
	refs, err := s.Git.RemoteRefs(ctx, s.Remote, ClaimsPrefix)
	if err != nil {
		return
	}
	known := s.Claims()
	for ref, hash := range refs {
		task := strings.TrimPrefix(ref, ClaimsPrefix)
		if h, ok := known[task]; !ok || h.Commit != hash {
			lost[task] = true
		}
	}
}

// pushMerged pushes, once, the commits this clone has that the remote's branch
// it just merged lacks (sessions whose push met others' pushes), with the
// deletions of the claims they end: right after the merge the branch has the
// best chance not to have moved. A refusal leaves them for the next round; a
// session's push never fetches and merges again for itself, so machines that
// end sessions at once do not merge each other's pushes over and over.
func (s *Sync) pushMerged(ctx context.Context) {
	if s.InSync(ctx) {
		return
	}
	_ = s.Publish(ctx, s.Ended, 1)
}

// verify fetches the remote's branch after a claim was made and asks c.Still
// when it moved since it was merged.
func (s *Sync) verify(ctx context.Context, c *Claim) (bool, error) {
	// Asking for the branch's tip costs no fetch when it has not moved.
	if tip, err := s.Git.RemoteTip(ctx, s.Remote, s.Branch); err != nil {
		return false, err
	} else if tip == "" || tip == s.merged {
		return true, nil
	}
	if err := s.Git.Fetch(ctx, s.Remote, s.Branch); err != nil {
		if exists, lerr := s.Git.RemoteHasBranch(ctx, s.Remote, s.Branch); lerr == nil && !exists {
			return true, nil
		}
		return false, err
	}
	tip, _ := s.Git.Tip(ctx, s.Ref())
	if tip == s.merged || c.Still == nil {
		return true, nil
	}
	return c.Still(ctx, tip)
}

// rounds follows the remote's branch from one round of integrate and push to
// the next, to tell a refusal that others' progress explains from one it does not.
type rounds struct {
	tip     string
	started bool
	still   int
}

// stuck reports, after a round's integrate, whether the remote refused MaxStuck
// pushes in a row while its branch stayed where it was.
func (r *rounds) stuck(ctx context.Context, s *Sync) bool {
	tip, _ := s.Git.Tip(ctx, s.Ref())
	switch {
	case !r.started:
		r.started = true
	case tip == r.tip:
		r.still++
	default:
		r.still = 0
	}
	r.tip = tip
	return r.still >= MaxStuck
}

// InSync reports, without starting git, whether this clone's HEAD is the
// remote's branch as this clone last merged or pushed it: nothing to push.
func (s *Sync) InSync(ctx context.Context) bool {
	head, err := s.Git.Head(ctx)
	if err != nil || head != s.merged {
		return false
	}
	tip, _ := s.Git.Tip(ctx, s.Ref())
	return tip == head
}

// Unpushed counts the clone's commits with trailer key that the remote's branch
// does not have, as far as the last fetch or push knows.
func (s *Sync) Unpushed(ctx context.Context, key string) (int, error) {
	return s.Git.CountAhead(ctx, s.Ref(), key)
}
