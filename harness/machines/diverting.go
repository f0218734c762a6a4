package machines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// TrailerBranch is on the commit that parks a task whose session's commit
// waits on a branch of its own: the branch.
const TrailerBranch = "Strom-Branch"

// errNotDiverted means a conflict with the remote involves no session commit:
// the person's own commits, which the run leaves to the person.
var errNotDiverted = errors.New("no session commit to divert")

// divert resolves a conflict between this clone's session commits and the
// remote's branch without merging anything: the clone's commits go to a branch
// strom/<session> (the newest session's) here and on the remote, the branch is
// reset to the remote's, and each task of those sessions that is not done there
// is parked with a reason naming the branch, in a commit that is pushed. The
// run says so in one sentence and goes on. errNotDiverted when no commit of the
// clone's is a session's.
func divert(ctx context.Context, r *research.Research, ce *gitrepo.ConflictError, out io.Writer) error {
	sy := r.Sync
	sessions, err := sy.Git.Ahead(ctx, sy.Ref(), research.TrailerSession)
	if err != nil {
		return err
	}
	if len(sessions) == 0 {
		return errNotDiverted
	}
	head, err := sy.Git.Head(ctx)
	if err != nil {
		return fmt.Errorf("divert the session: %w", err)
	}
	session, _ := sessions[0].Message.Trailer(research.TrailerSession)
	branch := "strom/" + session
	// The branch first, here and on the remote: nothing is reset before both
	// hold the commits.
	if err := sy.Git.SetBranch(ctx, branch, head); err != nil {
		return err
	}
	if err := sy.Git.PushTo(ctx, sy.Remote, head, branch); err != nil {
		return err
	}
	var tasks []string
	for _, c := range sessions {
		if t, ok := c.Message.Trailer(research.TrailerTask); ok && !slices.Contains(tasks, t) {
			tasks = append(tasks, t)
		}
	}
	slices.Reverse(tasks) // oldest first
	paths := strings.Join(ce.Paths, ", ")
	p := r.Messages()
	err = r.Tree.Locked(ctx, func() error {
		if err := sy.Git.ResetKeep(ctx, sy.Ref()); err != nil {
			return err
		}
		q, err := r.Tree.LoadQueue()
		if err != nil {
			return err
		}
		var parked []string
		for _, id := range tasks {
			t, err := q.Find(id)
			if err != nil || t.State == statefiles.Done || t.State == statefiles.Parked {
				continue
			}
			reason := p.Say("sync.diverted_reason", messages.Args{"Session": session, "Remote": sy.Remote, "Branch": sy.Branch,
				"Paths": paths, "Ref": branch, "Task": id})
			if err := t.Park(reason, r.Now()); err != nil {
				return err
			}
			t.Host = ""
			parked = append(parked, id)
		}
		if len(parked) == 0 {
			return nil
		}
		if err := r.Tree.SaveQueue(q); err != nil {
			return err
		}
		msg := gitrepo.Message{
			Subject: p.Say("sync.diverted_subject", messages.Args{"Tasks": strings.Join(parked, ", "), "Ref": branch}),
			Trailers: []gitrepo.Trailer{
				{Key: TrailerBranch, Value: branch},
				{Key: research.TrailerHost, Value: sy.Host},
			},
		}
		_, err = r.CommitPaths(ctx, msg, []string{statefiles.DirName})
		return err
	})
	if err != nil {
		return fmt.Errorf("divert session %s to %s: %w", session, branch, err)
	}
	task := strings.Join(tasks, ", ")
	fmt.Fprintln(out, p.Say("sync.diverted", messages.Args{"Task": task, "Remote": sy.Remote, "Branch": sy.Branch, "Paths": paths, "Ref": branch}))
	return nil
}
