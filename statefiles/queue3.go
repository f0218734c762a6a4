package statefiles

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/strom-research/strom/schemas"
)

// A queue.json of version 3 (and 2, of the same shape) held the order of every
// task, done or not; version 3 kept the tasks in the same files of a hundred as
// version 4, version 2 in a file each (queue2.go). strom reads them as they are
// until its first write migrates them (queuemigrate.go), and merges two of them.

// Order3 is queue.json of version 3 or 2: every task's id in queue order.
type Order3 struct {
	Version int      `json:"version"`
	NextID  int      `json:"next_id"`
	Order   []string `json:"order"`
}

// ParseOrder3 validates the bytes of a queue.json of version 3 or 2 (on disk, or
// of two histories a merge meets), naming them shown in errors: no id twice;
// next_id is raised past every id.
func ParseOrder3(shown string, data []byte) (*Order3, error) {
	if err := check(shown, schemas.Queue3, data); err != nil {
		return nil, err
	}
	o := &Order3{}
	if err := json.Unmarshal(data, o); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	seen := make(map[string]int, len(o.Order))
	for i, id := range o.Order {
		if j, dup := seen[id]; dup {
			return nil, &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i),
				Rule: fmt.Sprintf("task id %s is in the order twice (also at /order/%d)", id, j)}
		}
		if !validID(id) {
			return nil, &SchemaError{File: shown, Pointer: fmt.Sprintf("/order/%d", i), Rule: fmt.Sprintf("%q is not a task id like T-12", id)}
		}
		seen[id] = i
		if n := idNumber(id); n >= o.NextID {
			o.NextID = n + 1
		}
	}
	return o, nil
}

// EncodeOrder3 returns the bytes of a queue.json of version 3 for o, checked.
func EncodeOrder3(o *Order3) ([]byte, error) {
	o.Version = 3
	if o.Order == nil {
		o.Order = []string{}
	}
	return encodeValid(o, QueueFile, func(data []byte) error {
		_, err := ParseOrder3(DirName+"/"+QueueFile, data)
		return err
	})
}

// loadShards3 reads every shard of a version 3 queue and puts its tasks in the
// order's order. A task of a shard that is not in the order and whose id is not
// below next_id is an add a killed strom (one without the journal) left half
// written: it is put at the end, as added.
func (t *Tree) loadShards3(o *Order3) (*Queue, error) {
	all, err := t.readAllShards()
	if err != nil {
		return nil, err
	}
	shown := t.rel(QueueFile)
	in := make(map[string]bool, len(o.Order))
	for _, id := range o.Order {
		in[id] = true
	}
	ids := slices.SortedFunc(maps.Keys(all), func(a, b string) int { return idNumber(a) - idNumber(b) })
	order := slices.Clone(o.Order)
	for _, id := range ids {
		if in[id] {
			continue
		}
		if idNumber(id) < o.NextID {
			return nil, &SchemaError{File: shown, Pointer: "/order",
				Rule: fmt.Sprintf("task %s of %s/%s is not in the order: add %q to the order, or take the task out of the file", id, DirName, ShardFile(id), id)}
		}
		order = append(order, id)
		in[id] = true
	}
	q := &Queue{Version: 3, NextID: o.NextID, Tasks: make([]Task, len(order))}
	for i, id := range order {
		task, ok := all[id]
		if !ok {
			return nil, notInFile(shown, fmt.Sprintf("/order/%d", i), id, "order")
		}
		q.Tasks[i] = task
		q.NextID = max(q.NextID, idNumber(id)+1)
	}
	return q, nil
}
