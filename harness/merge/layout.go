package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/strom-research/strom/statefiles"
)

// The queue of version 4 is queue.json (next_id, the count of done tasks, the
// tasks not done with their states) and every task in shard files of a hundred
// ids: Live merges queue.json, Shard merges a shard task by task, each task field
// by field as Queue merges a task both sides have. queue.json and the shards are
// merged apart, so where they come out disagreeing (both sides changed one task's
// state), strom makes queue.json follow the shards after the merge
// (statefiles.HealQueue). A task both sides added under one id is two tasks of one
// id: a merge driver cannot give one of them a new id (strom renumbers before it
// merges the remote's branch, harness/machines), so it is a conflict for a person.
// Order and Task merge the layouts of version 3 and 2 (the order of every task; a
// file per task) where both sides still have them.

// Live merges three versions of queue.json of version 4. The order is ours, unless
// only theirs reordered the tasks both kept; the tasks only theirs added come
// after, in their order. A task one side finished (it left queue.json) leaves it,
// unless the other side changed its state meanwhile: then it stays, and the shards
// decide. next_id is past every id of either side; the done count adds both
// sides' finished tasks once.
func Live(base, ours, theirs []byte) ([]byte, error) {
	shown := statefiles.DirName + "/" + statefiles.QueueFile
	parse := func(which string, data []byte) (*statefiles.Order, error) {
		o, err := statefiles.ParseOrder(shown, data)
		if err != nil {
			return nil, fmt.Errorf("%w: %s of queue.json is not valid (%v)", ErrConflict, which, err)
		}
		return o, nil
	}
	a, err := parse("our version", ours)
	if err != nil {
		return nil, err
	}
	b, err := parse("their version", theirs)
	if err != nil {
		return nil, err
	}
	o := &statefiles.Order{NextID: 1, Done: min(a.Done, b.Done)}
	if len(bytes.TrimSpace(base)) > 0 && statefiles.QueueVersionOf(base) == statefiles.QueueVersion {
		if o, err = parse("the common version", base); err != nil {
			return nil, err
		}
	}
	sb, sa, st := states(o), states(a), states(b)
	ia, ib := liveIDs(a), liveIDs(b)
	order := ia
	if sameOrder(liveIDs(o), ia, toFields(set(ib))) && !sameOrder(liveIDs(o), ib, toFields(set(ia))) {
		order = ib
		for _, id := range ia {
			if !slices.Contains(order, id) {
				order = append(order, id)
			}
		}
	}
	for _, id := range ib {
		if !slices.Contains(order, id) {
			order = append(order, id)
		}
	}
	done := a.Done + b.Done - o.Done
	for _, e := range o.Live {
		if _, inA := sa[e.ID]; !inA {
			if _, inB := st[e.ID]; !inB {
				done-- // both finished it: once
			}
		}
	}
	merged := &statefiles.Order{NextID: max(a.NextID, b.NextID, o.NextID)}
	for _, id := range order {
		was, inBase := sb[id]
		x, inA := sa[id]
		y, inB := st[id]
		var state statefiles.State
		switch {
		case inA && inB:
			state = pickState(was, x, y)
		case inA && inBase && x == was:
			continue // theirs finished it, ours left it as it was
		case inA:
			state = x
			if inBase {
				done-- // theirs finished it, ours changed it: it stays, counted once
			}
		case inBase && y == was:
			continue
		default:
			state = y
			if inBase {
				done--
			}
		}
		merged.Live = append(merged.Live, statefiles.Entry{ID: id, State: state})
	}
	merged.Done = max(done, 0)
	data, err := statefiles.EncodeOrder(merged)
	if err != nil {
		return nil, fmt.Errorf("%w: the merged queue would not be valid (%v)", ErrConflict, err)
	}
	return data, nil
}

// pickState merges a task's state in queue.json from its common version was: the
// side that changed it wins; where both did, a side that returned a started task
// to the queue loses (as mergeTask decides), and else ours.
func pickState(was, ours, theirs statefiles.State) statefiles.State {
	switch {
	case ours == theirs, theirs == was:
		return ours
	case ours == was:
		return theirs
	case was == statefiles.Started && ours == statefiles.Open:
		return theirs
	}
	return ours
}

func states(o *statefiles.Order) map[string]statefiles.State {
	m := make(map[string]statefiles.State, len(o.Live))
	for _, e := range o.Live {
		m[e.ID] = e.State
	}
	return m
}

func liveIDs(o *statefiles.Order) []string {
	ids := make([]string, len(o.Live))
	for i, e := range o.Live {
		ids[i] = e.ID
	}
	return ids
}

// Order merges three versions of queue.json of version 3 (or 2, both sides
// alike). The order is ours, unless only theirs reordered the tasks both kept;
// the tasks only theirs added come after, in their order. No task either side has
// is left out, and next_id is past every id of either side.
func Order(base, ours, theirs []byte) ([]byte, error) {
	shown := statefiles.DirName + "/" + statefiles.QueueFile
	parse := func(which string, data []byte) (*statefiles.Order3, error) {
		o, err := statefiles.ParseOrder3(shown, data)
		if err != nil {
			return nil, fmt.Errorf("%w: %s of queue.json is not valid (%v)", ErrConflict, which, err)
		}
		return o, nil
	}
	o := &statefiles.Order3{NextID: 1}
	if len(bytes.TrimSpace(base)) > 0 {
		if statefiles.QueueVersionOf(base) == 1 {
			q, err := statefiles.ParseQueue(shown, base)
			if err != nil {
				return nil, fmt.Errorf("%w: the common version of queue.json is not valid (%v)", ErrConflict, err)
			}
			o.NextID = q.NextID
			for _, t := range q.Tasks {
				o.Order = append(o.Order, t.ID)
			}
		} else {
			var err error
			if o, err = parse("the common version", base); err != nil {
				return nil, err
			}
		}
	}
	a, err := parse("our version", ours)
	if err != nil {
		return nil, err
	}
	b, err := parse("their version", theirs)
	if err != nil {
		return nil, err
	}
	inA, inB := set(a.Order), set(b.Order)
	order := a.Order
	if sameOrder(o.Order, a.Order, toFields(inB)) && !sameOrder(o.Order, b.Order, toFields(inA)) {
		order = b.Order
		for _, id := range a.Order {
			if !slices.Contains(order, id) {
				order = append(order, id)
			}
		}
	}
	out := append([]string{}, order...)
	in := set(out)
	for _, id := range b.Order {
		if !in[id] {
			out = append(out, id)
			in[id] = true
		}
	}
	// A task both sides took out of the order stays out; one that only one side
	// took out stays in (a merge never deletes a task).
	for _, id := range o.Order {
		if !in[id] && (inA[id] || inB[id]) {
			out = append(out, id)
			in[id] = true
		}
	}
	next := max(a.NextID, b.NextID, o.NextID)
	for _, id := range out {
		next = max(next, idNumber(id)+1)
	}
	data, err := statefiles.EncodeOrder3(&statefiles.Order3{NextID: next, Order: out})
	if err != nil {
		return nil, fmt.Errorf("%w: the merged queue would not be valid (%v)", ErrConflict, err)
	}
	return data, nil
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func toFields(in map[string]bool) map[string]fields {
	m := make(map[string]fields, len(in))
	for id := range in {
		m[id] = nil
	}
	return m
}

// Task merges three versions of one task's file of version 2
// (.strom/tasks/T-N.json): base is empty when both sides added the file. Both
// sides' changes are kept field by field; two different tasks added under one id
// are a conflict.
func Task(base, ours, theirs []byte) ([]byte, error) {
	for _, side := range [][]byte{ours, theirs} {
		var f fields
		if json.Unmarshal(side, &f) == nil {
			rel := statefiles.TaskFile(taskID(f))
			if _, err := statefiles.ParseTask(statefiles.DirName+"/"+rel, rel, side); err != nil {
				return nil, fmt.Errorf("%w: a version of the task is not valid (%v)", ErrConflict, err)
			}
		}
	}
	t, err := mergeOne(base, ours, theirs)
	if err != nil {
		return nil, err
	}
	data, err := statefiles.EncodeTask(&t)
	if err != nil {
		return nil, fmt.Errorf("%w: the merged task would not be valid (%v)", ErrConflict, err)
	}
	return data, nil
}

// mergeOne merges three versions of one task's JSON object (base empty when both
// sides added it), as a shard holds it or a task's file did.
func mergeOne(base, ours, theirs []byte) (statefiles.Task, error) {
	a, err := parseTask("our version", ours)
	if err != nil {
		return statefiles.Task{}, err
	}
	b, err := parseTask("their version", theirs)
	if err != nil {
		return statefiles.Task{}, err
	}
	var merged fields
	switch {
	case len(bytes.TrimSpace(base)) == 0 && equalTask(a, b):
		merged = a
	case len(bytes.TrimSpace(base)) == 0:
		id := taskID(a)
		return statefiles.Task{}, fmt.Errorf("%w: %s was added on both sides as two tasks (%q here, %q there), and a merge cannot give one of them another id: keep one in .strom/%s, add the other again with strom task add, then git add the file",
			ErrConflict, id, title(a), title(b), statefiles.ShardFile(id))
	default:
		o, err := parseTask("the common version", base)
		if err != nil {
			return statefiles.Task{}, err
		}
		if taskID(o) != taskID(a) || taskID(a) != taskID(b) {
			return statefiles.Task{}, fmt.Errorf("%w: the three versions are not one task (%s, %s, %s)", ErrConflict, taskID(o), taskID(a), taskID(b))
		}
		merged = mergeTask(o, a, b)
	}
	raw, err := json.Marshal(merged)
	if err != nil {
		return statefiles.Task{}, fmt.Errorf("encode the merged task: %w", err)
	}
	t, err := statefiles.ParseTaskObject("the merged task", raw)
	if err != nil {
		return statefiles.Task{}, fmt.Errorf("%w: the merged task would not be valid (%v)", ErrConflict, err)
	}
	return *t, nil
}

func parseTask(which string, data []byte) (fields, error) {
	var f fields
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %s of the task is not valid JSON (%v)", ErrConflict, which, err)
	}
	if _, err := statefiles.ParseTaskObject(which, data); err != nil {
		return nil, fmt.Errorf("%w: %s of the task is not valid (%v)", ErrConflict, which, err)
	}
	return f, nil
}
