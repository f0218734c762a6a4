package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// The session's snapshot, .strom/run/<session>.snapshot.json, is what the queue's
// rules restore when the session closes: queue.json's bytes as the session found
// it, and the tasks strom wrote since the last session's commit (the session's own
// task among them, statefiles.WrittenTasks) as they read. Every other task is taken
// to read at the start as HEAD has it, so the snapshot costs the session's task and
// the tasks changed since, not the queue, and no git call. (A task a person
// edited by hand, uncommitted, and the agent then reworded is put back as HEAD has
// it.) A person's rewording during the session is given to the snapshot
// (rewordInSnapshots).
type snapshot struct {
	Order string                     `json:"order"`
	Tasks map[string]statefiles.Task `json:"tasks"`
}

func SnapshotFile(r *research.Research, id string) string {
	return r.Tree.Path(statefiles.RunDir, id+".snapshot.json")
}

// loadSnapshot reads a snapshot; nil when it is missing or unreadable.
func loadSnapshot(path string) *snapshot {
	data, err := statefiles.ReadFile(path)
	if err != nil {
		return nil
	}
	s := &snapshot{}
	if json.Unmarshal(data, s) != nil {
		return nil
	}
	if s.Tasks == nil {
		s.Tasks = map[string]statefiles.Task{}
	}
	return s
}

func saveSnapshot(path string, s *snapshot) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("write the session's queue snapshot: %w", err)
	}
	return statefiles.WriteAtomic(path, data, 0o644)
}

// TakeSnapshot writes the session's snapshot; own is its task as taken. The caller
// holds the lock.
func TakeSnapshot(ctx context.Context, r *research.Research, session string, own statefiles.Task) error {
	order, err := statefiles.ReadFile(r.Tree.Path(statefiles.QueueFile))
	if err != nil {
		return fmt.Errorf("write the session's queue snapshot: %w", err)
	}
	s := &snapshot{Order: string(order), Tasks: map[string]statefiles.Task{own.ID: own}}
	for _, id := range r.Tree.WrittenTasks() {
		if _, ok := s.Tasks[id]; ok {
			continue
		}
		if t, err := r.Tree.FindTaskLocked(id); err == nil {
			s.Tasks[id] = t
		}
	}
	return saveSnapshot(SnapshotFile(r, session), s)
}

// changedShards lists the shard files among git's changes (changed, deleted, new),
// relative to .strom/.
func changedShards(changes []gitrepo.Change) []string {
	var rels []string
	for _, c := range changes {
		for _, p := range []string{c.Path, c.OrigPath} {
			if rel, ok := strings.CutPrefix(p, statefiles.DirName+"/"); ok {
				if _, _, ok := statefiles.ShardOfFile(rel); ok {
					rels = append(rels, rel)
				}
			}
		}
	}
	return rels
}

// KeepQueueRules makes sure the session left a valid queue with every task it had
// at the start, worded as it was; changes are the work tree's changes as git
// reports them. It returns a Strom-Check note for each repair. The caller holds
// the lock.
func KeepQueueRules(ctx context.Context, r *research.Research, session string, changes []gitrepo.Change) ([]string, error) {
	snap := loadSnapshot(SnapshotFile(r, session))
	if snap == nil {
		return nil, nil
	}
	var notes []string
	qpath := r.Tree.Path(statefiles.QueueFile)
	cur, err := statefiles.ReadFile(qpath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", statefiles.QueueFile, err)
	}
	if !bytes.Equal(cur, []byte(snap.Order)) {
		now, err := statefiles.ParseOrder(statefiles.DirName+"/"+statefiles.QueueFile, cur)
		var se *statefiles.SchemaError
		if cur == nil || errors.As(err, &se) {
			// The session broke the queue file: keep its version beside the
			// transcript and go on from the order as the session found it.
			rule := "it was deleted"
			if se != nil {
				rule = se.Rule
			}
			if cur != nil {
				_ = statefiles.WriteFile(filepath.Join(r.Tree.Path(statefiles.SessionsDir), session+".queue.json"), cur, 0o644)
			}
			if err := statefiles.WriteAtomic(qpath, []byte(snap.Order), 0o644); err != nil {
				return nil, err
			}
			notes = append(notes, fmt.Sprintf("failed: the session left an invalid queue.json (%s); restored, its version kept in .strom/sessions/%s.queue.json", rule, session))
		} else if err != nil {
			return nil, err
		} else if was, err := statefiles.ParseOrder("snapshot", []byte(snap.Order)); err == nil {
			// A task the session took out of queue.json while its file says it is
			// not done: queue.json lists it again.
			for _, e := range was.Live {
				if slices.ContainsFunc(now.Live, func(n statefiles.Entry) bool { return n.ID == e.ID }) {
					continue
				}
				t, err := r.Tree.FindTaskLocked(e.ID)
				if err != nil || t.State == statefiles.Done {
					continue // its file is gone too (restored below), or it is done
				}
				if err := r.Tree.PutTaskLocked(t); err != nil {
					return nil, err
				}
				notes = append(notes, fmt.Sprintf("restored %s, which the session deleted", e.ID))
			}
		}
	}
	rels := changedShards(changes)
	for _, id := range sortedKeys(snap.Tasks) {
		rels = append(rels, statefiles.ShardFile(id))
	}
	seen := map[string]bool{}
	for _, rel := range rels {
		if seen[rel] {
			continue
		}
		seen[rel] = true
		more, err := keepShard(ctx, r, session, rel, snap)
		if err != nil {
			return nil, err
		}
		notes = append(notes, more...)
	}
	return notes, nil
}

// keepShard restores the tasks of one shard that the session deleted, broke or
// reworded, each to its version in the snapshot or, when the snapshot has none, in
// HEAD. A task the session added stays; a shard the session made and left invalid
// is set aside.
func keepShard(ctx context.Context, r *research.Research, session, rel string, snap *snapshot) ([]string, error) {
	was := headShard(ctx, r, rel)
	for id, t := range snap.Tasks {
		if statefiles.ShardFile(id) == rel {
			was[id] = t
		}
	}
	ids := sortedKeys(was)
	slices.SortFunc(ids, ByIDNumber)
	data, err := statefiles.ReadFile(r.Tree.Path(rel))
	if errors.Is(err, os.ErrNotExist) {
		var notes []string
		for _, id := range ids {
			if err := r.Tree.PutTaskLocked(was[id]); err != nil {
				return nil, err
			}
			notes = append(notes, fmt.Sprintf("restored %s, which the session deleted", id))
		}
		return notes, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	now, err := statefiles.ParseShard(statefiles.DirName+"/"+rel, rel, data)
	var se *statefiles.SchemaError
	if errors.As(err, &se) {
		kept := session + "." + path.Base(rel)
		_ = statefiles.WriteFile(filepath.Join(r.Tree.Path(statefiles.SessionsDir), kept), data, 0o644)
		if len(ids) == 0 {
			if err := os.Remove(r.Tree.Path(rel)); err != nil {
				return nil, fmt.Errorf("set aside %s: %w", rel, err)
			}
			return []string{fmt.Sprintf("failed: the session left an invalid .strom/%s (%s); set aside in .strom/sessions/%s", rel, se.Rule, kept)}, nil
		}
		if err := os.Remove(r.Tree.Path(rel)); err != nil {
			return nil, fmt.Errorf("restore %s: %w", rel, err)
		}
		for _, id := range ids {
			if err := r.Tree.PutTaskLocked(was[id]); err != nil {
				return nil, err
			}
		}
		return []string{fmt.Sprintf("failed: the session left an invalid .strom/%s (%s); restored, its version kept in .strom/sessions/%s", rel, se.Rule, kept)}, nil
	}
	if err != nil {
		return nil, err
	}
	have := make(map[string]statefiles.Task, len(now))
	for _, t := range now {
		have[t.ID] = t
	}
	var notes []string
	for _, id := range ids {
		w := was[id]
		t, ok := have[id]
		switch {
		case !ok:
			if err := r.Tree.PutTaskLocked(w); err != nil {
				return nil, err
			}
			notes = append(notes, fmt.Sprintf("restored %s, which the session deleted", id))
		case t.Title != w.Title || t.Body != w.Body || t.FollowUp != w.FollowUp:
			if _, err := r.Tree.UpdateTaskLocked(id, func(t *statefiles.Task) error {
				t.Title, t.Body, t.FollowUp = w.Title, w.Body, w.FollowUp
				return nil
			}); err != nil {
				return nil, err
			}
			notes = append(notes, fmt.Sprintf("restored the wording of %s, which the session changed", id))
		}
	}
	return notes, nil
}

// headShard reads the tasks of a shard as HEAD has them, by id (none when HEAD has
// no such shard, or one strom cannot read).
func headShard(ctx context.Context, r *research.Research, rel string) map[string]statefiles.Task {
	out := map[string]statefiles.Task{}
	g, err := r.Git(ctx)
	if err != nil {
		return out
	}
	data, err := g.ReadBlob(ctx, "HEAD:"+statefiles.DirName+"/"+rel)
	if err != nil {
		return out
	}
	tasks, err := statefiles.ParseShard("HEAD:"+statefiles.DirName+"/"+rel, rel, data)
	if err != nil {
		return out
	}
	for _, t := range tasks {
		out[t.ID] = t
	}
	return out
}

// rewordInSnapshots gives a task's new wording to the snapshots of running
// sessions. The caller holds the lock.
func rewordInSnapshots(r *research.Research, t statefiles.Task) error {
	snaps, _ := filepath.Glob(r.Tree.Path(statefiles.RunDir, "*.snapshot.json"))
	for _, path := range snaps {
		s := loadSnapshot(path)
		if s == nil {
			continue
		}
		s.Tasks[t.ID] = t
		if err := saveSnapshot(path, s); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]statefiles.Task) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// IDNumber is the number of a task id like T-12; 0 for another.
func IDNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "T-"))
	return n
}

func ByIDNumber(a, b string) int { return IDNumber(a) - IDNumber(b) }
