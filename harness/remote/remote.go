// Package remote syncs a research with the git remote several machines share
// (sync.remote): it integrates the remote's branch before a task is claimed and
// after a session, claims a task with a pushed commit, and pushes session commits.
// git's atomic ref update on the remote is the lock: of two claims of one task,
// the one pushed first holds, and the other machine takes back its own and looks
// again. A remote that cannot be reached never loses a commit: commits stay in the
// clone and are pushed by the next Publish.
package remote

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
	if g.RemoteURL(ctx, name) == "" {
		return nil, fmt.Errorf("resolve sync.remote: %w: %q is not a remote of this clone: add it (git remote add %s URL) or set sync.remote to one git remote lists", ErrNoRemote, name, name)
	}
	b, err := g.Branch(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve sync.remote: %w", err)
	}
	if b == "" {
		return nil, fmt.Errorf("resolve sync.remote: %w", gitrepo.ErrDetachedHead)
	}
	if rem, up, err := g.Upstream(ctx); err == nil && rem == name && up != "" {
		b = up
	}
	return &Sync{Git: g, Remote: name, Branch: b, Host: host}, nil
}

// Ref is the local ref that follows the remote's branch.
func (s *Sync) Ref() string { return gitrepo.TrackingRef(s.Remote, s.Branch) }

// Integrate fetches the remote's branch and merges it into the current one, with
// strom's merge drivers for its own files. A remote away gives an error wrapping
// gitrepo.ErrRemoteAway; files of the research's own that both sides changed give
// a *gitrepo.ConflictError, with the merge taken back (nothing lost). A remote
// branch that does not exist yet is nothing to merge.
func (s *Sync) Integrate(ctx context.Context) error {
	if err := s.Git.Fetch(ctx, s.Remote, s.Branch); err != nil {
		if exists, lerr := s.Git.RemoteHasBranch(ctx, s.Remote, s.Branch); lerr == nil && !exists {
			return nil
		}
		return err
	}
	if s.BeforeMerge != nil {
		if err := s.BeforeMerge(ctx); err != nil {
			return err
		}
	}
	if err := s.Git.Merge(ctx, s.Ref(), "strom: merge "+s.Remote+"/"+s.Branch, "strom", "strom@localhost"); err != nil {
		return err
	}
	if s.AfterMerge != nil {
		return s.AfterMerge(ctx)
	}
	return nil
}

// Publish pushes the clone's commits to the remote's branch, integrating first
// whenever the branch moved on, for as long as others' pushes explain each
// refusal. Errors as Integrate's, and ErrBusy.
func (s *Sync) Publish(ctx context.Context) error {
	var r rounds
	r.stuck(ctx, s)
	for try := 0; ; try++ {
		err := s.Git.Push(ctx, s.Remote, s.Branch)
		if !errors.Is(err, gitrepo.ErrPushRejected) {
			return err
		}
		if err := s.backoff(ctx, try); err != nil {
			return err
		}
		if err := s.Integrate(ctx); err != nil {
			return err
		}
		if r.stuck(ctx, s) {
			return fmt.Errorf("push to %s: %w (%d times)", s.Remote, ErrBusy, MaxStuck)
		}
	}
}

// Claim is a task taken in a local commit not pushed yet.
type Claim struct {
	Commit string
	// Undo takes the claim back: its commit and its change of the queue.
	Undo func(context.Context) error
}

// Claim integrates, asks take for a claim of the first open task and pushes it.
// A push the remote refused (another machine pushed first, maybe a claim of the
// same task) undoes the claim and goes round again: take then sees the merged
// queue. take returns nil when no task is left. A remote away undoes the claim
// and gives an error wrapping gitrepo.ErrRemoteAway: a claim that is not on the
// remote is no claim.
func (s *Sync) Claim(ctx context.Context, take func(ctx context.Context) (*Claim, error)) (bool, error) {
	var r rounds
	for try := 0; ; try++ {
		if err := s.Integrate(ctx); err != nil {
			return false, err
		}
		if r.stuck(ctx, s) {
			return false, fmt.Errorf("claim a task on %s: %w (%d times)", s.Remote, ErrBusy, MaxStuck)
		}
		c, err := take(ctx)
		if err != nil || c == nil {
			return false, err
		}
		err = s.Git.Push(ctx, s.Remote, s.Branch)
		if err == nil {
			return true, nil
		}
		if uerr := c.Undo(context.WithoutCancel(ctx)); uerr != nil {
			return false, fmt.Errorf("take back the claim: %w (after: %w)", uerr, err)
		}
		if !errors.Is(err, gitrepo.ErrPushRejected) {
			return false, err
		}
		if err := s.backoff(ctx, try); err != nil {
			return false, err
		}
	}
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

// Unpushed counts the clone's commits with trailer key that the remote's branch
// does not have, as far as the last fetch or push knows.
func (s *Sync) Unpushed(ctx context.Context, key string) (int, error) {
	return s.Git.CountAhead(ctx, s.Ref(), key)
}
