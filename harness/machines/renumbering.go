package machines

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// renumberNew runs before the remote's branch is merged in. When tasks this
// clone added since it last met the remote have ids the remote's branch added
// too, this clone's get the next free ids, with their records
// and park counters, in a commit of their own that says so; then the merge meets
// no id twice. The remote's tasks keep theirs: they are published already. A
// merge driver could rename a task but not its records, nor move it to the shard
// of its new id.
func renumberNew(ctx context.Context, r *research.Research, out io.Writer) error {
	sy := r.Sync
	g := sy.Git
	base, err := g.MergeBase(ctx, sy.Ref())
	if err != nil || base == "" {
		return err
	}
	head, err := g.Head(ctx)
	if err != nil {
		return fmt.Errorf("renumber new tasks: %w", err)
	}
	if head == base {
		return nil // nothing of this clone's to merge: a fast-forward
	}
	for _, side := range []string{head, sy.Ref()} {
		changed, err := g.Changed(ctx, base, side, research.QueuePaths...)
		if err != nil || !changed {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "strom-renumber-")
	if err != nil {
		return fmt.Errorf("renumber new tasks: %w", err)
	}
	defer os.RemoveAll(dir)
	var qs [3]*statefiles.Queue
	for i, rev := range []string{base, head, sy.Ref()} {
		at := filepath.Join(dir, strconv.Itoa(i))
		if err := g.Extract(ctx, rev, at, research.QueuePaths...); err != nil {
			return err
		}
		if qs[i], err = statefiles.At(at).LoadQueue(); err != nil {
			return fmt.Errorf("renumber new tasks: the queue of %s: %w", rev, err)
		}
	}
	moves, next := renumbering(qs[0], qs[1], qs[2])
	if len(moves) == 0 {
		return nil
	}
	p := r.Messages()
	var said []string
	for _, old := range slices.SortedFunc(maps.Keys(moves), queue.ByIDNumber) {
		said = append(said, p.Say("sync.renumber_move", messages.Args{"From": old, "To": moves[old]}))
	}
	err = r.Tree.Locked(ctx, func() error {
		q, err := r.Tree.LoadQueue()
		if err != nil {
			return err
		}
		for old, to := range moves {
			t, err := q.Find(old)
			if err != nil {
				return err
			}
			t.ID = to
		}
		q.NextID = max(q.NextID, next)
		if err := r.Tree.SaveQueue(q); err != nil {
			return err
		}
		if err := r.Tree.RenameTaskRecordsLocked(moves); err != nil {
			return err
		}
		park, err := r.Tree.LoadPark()
		if err != nil {
			return err
		}
		for _, m := range []map[string]int{park.Empty, park.Unfinished} {
			for old, to := range moves {
				if n, ok := m[old]; ok {
					delete(m, old)
					m[to] = n
				}
			}
		}
		if len(park.Empty) == 0 {
			park.Empty = nil
		}
		if len(park.Unfinished) == 0 {
			park.Unfinished = nil
		}
		if err := r.Tree.SavePark(park); err != nil {
			return err
		}
		msg := gitrepo.Message{
			Subject:  p.Say("sync.renumber_subject", messages.Args{"Remote": sy.Remote, "Branch": sy.Branch}),
			Body:     strings.Join(said, "\n"),
			Trailers: []gitrepo.Trailer{{Key: research.TrailerHost, Value: sy.Host}},
		}
		_, err = r.CommitPaths(ctx, msg, []string{statefiles.DirName})
		return err
	})
	if err != nil {
		return fmt.Errorf("renumber new tasks: %w", err)
	}
	if out != nil {
		fmt.Fprintln(out, p.Say("sync.renumbered", messages.Args{"Remote": sy.Remote, "Branch": sy.Branch, "Moves": strings.Join(said, ", ")}))
	}
	return nil
}

// renumbering finds the tasks ours added since base under an id theirs added
// too (another task: not the same title and creation), and gives each the next
// free id past every id and next_id of the three, in ours' order. next is the
// queue's next id after them.
func renumbering(base, ours, theirs *statefiles.Queue) (moves map[string]string, next int) {
	inBase := map[string]bool{}
	for _, t := range base.Tasks {
		inBase[t.ID] = true
	}
	theirNew := map[string]statefiles.Task{}
	for _, t := range theirs.Tasks {
		if !inBase[t.ID] {
			theirNew[t.ID] = t
		}
	}
	next = max(base.NextID, ours.NextID, theirs.NextID)
	for _, q := range []*statefiles.Queue{base, ours, theirs} {
		for _, t := range q.Tasks {
			next = max(next, queue.IDNumber(t.ID)+1)
		}
	}
	for _, t := range ours.Tasks {
		o, both := theirNew[t.ID]
		if inBase[t.ID] || !both || (o.Title == t.Title && o.Created.Equal(t.Created)) {
			continue
		}
		if moves == nil {
			moves = map[string]string{}
		}
		moves[t.ID] = fmt.Sprintf("T-%d", next)
		next++
	}
	return moves, next
}
