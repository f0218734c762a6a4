package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/strom-research/strom/statefiles"
)

// Shard merges three versions of a shard file (.strom/tasks/T-100-199.json) task
// by task: base is empty when both sides added the file. A task both sides have
// merges field by field (mergeOne); a task one side added is taken; a task one
// side deleted is kept as the other side has it (a merge never deletes a task); one
// both deleted stays deleted. The same id added on both sides as two tasks is a
// conflict.
func Shard(base, ours, theirs []byte) ([]byte, error) {
	o, err := shardTasks("the common version", base, true)
	if err != nil {
		return nil, err
	}
	a, err := shardTasks("our version", ours, false)
	if err != nil {
		return nil, err
	}
	b, err := shardTasks("their version", theirs, false)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, side := range []map[string][]byte{a, b} {
		for id := range side {
			ids[id] = true
		}
	}
	var out []statefiles.Task
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		ov, av, bv := o[id], a[id], b[id]
		var merged statefiles.Task
		switch {
		case av != nil && bv != nil:
			if merged, err = mergeOne(ov, av, bv); err != nil {
				return nil, err
			}
		case av != nil:
			merged, err = oneTask(av)
		default:
			merged, err = oneTask(bv)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, merged)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: both sides took every task out of the shard", ErrConflict)
	}
	data, err := statefiles.EncodeShard(out)
	if err != nil {
		return nil, fmt.Errorf("%w: the merged shard would not be valid (%v)", ErrConflict, err)
	}
	return data, nil
}

// shardTasks checks one side of a shard and returns its tasks' JSON by id. An
// empty base (no common version) has none.
func shardTasks(which string, data []byte, emptyOK bool) (map[string][]byte, error) {
	out := map[string][]byte{}
	if emptyOK && len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	var raw struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %s of the shard is not valid JSON (%v)", ErrConflict, which, err)
	}
	if len(raw.Tasks) == 0 {
		return nil, fmt.Errorf("%w: %s of the shard holds no task", ErrConflict, which)
	}
	var first statefiles.Task
	if err := json.Unmarshal(raw.Tasks[0], &first); err != nil {
		return nil, fmt.Errorf("%w: %s of the shard is not valid (%v)", ErrConflict, which, err)
	}
	rel := statefiles.ShardFile(first.ID)
	tasks, err := statefiles.ParseShard(statefiles.DirName+"/"+rel, rel, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s of the shard is not valid (%v)", ErrConflict, which, err)
	}
	for i, t := range tasks {
		out[t.ID] = raw.Tasks[i]
	}
	return out, nil
}

func oneTask(data []byte) (statefiles.Task, error) {
	var t statefiles.Task
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("%w: a task of the shard is not valid (%v)", ErrConflict, err)
	}
	return t, nil
}

// isShard reports whether a task file's bytes are a shard ({"tasks": […]}) rather
// than one task's file of version 2.
func isShard(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["tasks"]
	return ok
}
