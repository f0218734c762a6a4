package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/strom-research/strom/statefiles"
)

// CheckStaged is the pre-commit hook's check: every staged .strom/ file is valid,
// no task of HEAD's queue is gone, and inside a session no task is reworded. A person
// may reword tasks (strom task edit); nobody deletes them.
func CheckStaged(ctx context.Context, r *Research, inSession bool) error {
	root := r.Tree.Root
	out, err := gitOut(ctx, root, "diff", "--cached", "--name-only", "--no-renames", "-z", "--", statefiles.DirName+"/")
	if err != nil {
		return err
	}
	var queueStaged bool
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if p == "" {
			continue
		}
		rel := strings.TrimPrefix(p, statefiles.DirName+"/")
		data, err := gitOut(ctx, root, "cat-file", "blob", ":"+p)
		if err != nil {
			if rel == statefiles.QueueFile {
				return fmt.Errorf("this commit deletes .strom/queue.json and with it every task: undo with git restore --staged --worktree .strom/queue.json")
			}
			continue // another state file deleted: its default applies
		}
		if err := statefiles.Validate(rel, data); err != nil {
			return fmt.Errorf("commit refused: %w", err)
		}
		if rel == statefiles.QueueFile {
			queueStaged = true
		}
	}
	if !queueStaged {
		return nil
	}
	old, err := gitOut(ctx, root, "cat-file", "blob", "HEAD:"+statefiles.DirName+"/"+statefiles.QueueFile)
	if err != nil {
		return nil // no queue in HEAD yet (first commit): nothing to lose
	}
	staged, _ := gitOut(ctx, root, "cat-file", "blob", ":"+statefiles.DirName+"/"+statefiles.QueueFile)
	before, err := statefiles.ParseQueue("HEAD:.strom/queue.json", old)
	if err != nil {
		return nil // HEAD's queue was broken already: the staged one is valid, let it mend it
	}
	after, _ := statefiles.ParseQueue(".strom/queue.json", staged)
	if problem := QueueLoss(before, after, inSession); problem != "" {
		return fmt.Errorf("commit refused: %s: undo with git restore --staged --worktree .strom/queue.json (or git checkout HEAD -- .strom/queue.json)", problem)
	}
	return nil
}

// QueueLoss says how after lost or reworded a task of before ("" when nothing was).
// Rewording counts only when reworded is forbidden (an agent's change).
func QueueLoss(before, after *statefiles.Queue, rewordForbidden bool) string {
	have := make(map[string]*statefiles.Task, len(after.Tasks))
	for i := range after.Tasks {
		have[after.Tasks[i].ID] = &after.Tasks[i]
	}
	for _, t := range before.Tasks {
		n, ok := have[t.ID]
		if !ok {
			return fmt.Sprintf("task %s (%q) would be deleted", t.ID, t.Title)
		}
		if rewordForbidden && (n.Title != t.Title || n.Body != t.Body) {
			return fmt.Sprintf("task %s (%q) was reworded inside a session; only a person rewords tasks", t.ID, t.Title)
		}
	}
	return ""
}

func gitOut(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New("git " + args[0] + ": " + msg)
	}
	return out, nil
}
