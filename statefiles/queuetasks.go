package statefiles

// The targeted calls on a version 3 queue (queuefiles.go): one task changed,
// put back, added or read, its shard alone read and written.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
)

// UpdateTask changes one task under the lock: it reads the task's shard, lets fn
// change the task and writes the shard when fn returns nil. Nothing else of the
// queue is read or written.
func (t *Tree) UpdateTask(ctx context.Context, id string, fn func(*Task) error) (Task, error) {
	var out Task
	err := t.Locked(ctx, func() error {
		var err error
		out, err = t.UpdateTaskLocked(id, fn)
		return err
	})
	return out, err
}

// UpdateTaskLocked is UpdateTask for a caller that holds the lock. A queue of
// version 1 or 2 is migrated first.
func (t *Tree) UpdateTaskLocked(id string, fn func(*Task) error) (Task, error) {
	id = NormalizeID(id)
	if err := t.ensureCurrent(); err != nil {
		return Task{}, err
	}
	if !validID(id) {
		return Task{}, unknownTask(id)
	}
	ix, fresh := t.openFreshQueueIndex()
	if ix != nil {
		defer ix.Close()
	}
	s, err := t.readShard(ShardFile(id))
	if err != nil {
		return Task{}, err
	}
	i := s.find(id)
	if i < 0 {
		return Task{}, unknownTask(id)
	}
	task := s.tasks[i]
	task.Needs = slices.Clone(task.Needs)
	task.Questions = slices.Clone(task.Questions)
	was := task.State
	if err := fn(&task); err != nil {
		return task, err
	}
	if task.ID != id {
		return task, fmt.Errorf("change task %s: a task's id does not change", id)
	}
	wrote, err := t.putTask(s, task)
	if ix != nil && err == nil && wrote {
		if fresh {
			t.indexTaskChanged(ix, id, was, task.State, s.data)
		} else {
			t.dropQueueIndex()
		}
	}
	return task, err
}

// PutTaskLocked writes a whole task into its shard as given (the harness restoring
// a task a session deleted or broke) and puts it in the order when it is not
// there. Hold the lock.
func (t *Tree) PutTaskLocked(task Task) error {
	if err := t.ensureCurrent(); err != nil {
		return err
	}
	_, o, data, err := t.readOrder()
	if err != nil {
		return err
	}
	s, err := t.readShard(ShardFile(task.ID))
	if err != nil {
		return err
	}
	err = t.journaled(func() error {
		if _, err := t.putTask(s, task); err != nil {
			return err
		}
		if !slices.Contains(o.Order, task.ID) {
			o.Order = append(o.Order, task.ID)
			if _, err := t.writeOrder(o, data, []string{task.ID}); err != nil {
				return err
			}
		}
		return nil
	})
	t.dropQueueIndex()
	return err
}

// AddTask adds a task at the end of the queue under the lock: build makes it for
// the id it is given (never one used before). Only the new task's shard and
// queue.json are written.
func (t *Tree) AddTask(ctx context.Context, build func(id string) (Task, error)) (Task, error) {
	var out Task
	err := t.Locked(ctx, func() error {
		var err error
		out, err = t.AddTaskLocked(build)
		return err
	})
	return out, err
}

// AddTaskLocked is AddTask for a caller that holds the lock.
func (t *Tree) AddTaskLocked(build func(id string) (Task, error)) (Task, error) {
	if err := t.ensureCurrent(); err != nil {
		return Task{}, err
	}
	_, o, data, err := t.readOrder()
	if err != nil {
		return Task{}, err
	}
	n := o.NextID
	// A task in its file past next_id is an add a killed strom left half written
	// (the order was not yet written): it is read as added (adoptAdded), and this
	// write puts it in the order.
	s, err := t.readShard(shardOf(n))
	if err != nil {
		return Task{}, err
	}
	var added []string
	for s.find("T-"+strconv.Itoa(n)) >= 0 {
		if id := "T-" + strconv.Itoa(n); !slices.Contains(o.Order, id) {
			o.Order = append(o.Order, id)
			added = append(added, id)
		}
		n++
		if rel := shardOf(n); rel != s.rel {
			if s, err = t.readShard(rel); err != nil {
				return Task{}, err
			}
		}
	}
	id := "T-" + strconv.Itoa(n)
	task, err := build(id)
	if err != nil {
		return Task{}, err
	}
	if task.ID != id {
		return Task{}, fmt.Errorf("add task %s: the new task's id is %s", id, task.ID)
	}
	ix, fresh := t.openFreshQueueIndex()
	if ix != nil {
		defer ix.Close()
	}
	var order []byte
	if err := t.journaled(func() error {
		if _, err := t.putTask(s, task); err != nil {
			return err
		}
		o.Order = append(o.Order, id)
		o.NextID = n + 1
		order, err = t.writeOrder(o, data, append(slices.Clone(added), id))
		return err
	}); err != nil {
		t.dropQueueIndex()
		return Task{}, err
	}
	if len(added) > 0 {
		t.dropQueueIndex()
	} else if fresh {
		t.indexTaskAdded(ix, n, task.State, o.NextID, s.data, order)
	} else {
		t.dropQueueIndex()
	}
	return task, nil
}

// FindTask returns one task of the queue, reading only its shard. It takes no
// lock: strom writes files whole (WriteAtomic).
func (t *Tree) FindTask(ctx context.Context, id string) (Task, error) {
	return t.FindTaskLocked(id)
}

// FindTaskLocked is FindTask for a caller that holds the lock.
func (t *Tree) FindTaskLocked(id string) (Task, error) {
	id = NormalizeID(id)
	if !validID(id) {
		return Task{}, unknownTask(id)
	}
	v, err := t.headVersion()
	if err != nil {
		return Task{}, err
	}
	var task *Task
	switch v {
	case 1:
		q, err := t.LoadQueue()
		if err != nil {
			return Task{}, err
		}
		if task, err = q.Find(id); err != nil {
			return Task{}, err
		}
	case 2:
		if task, err = t.readTask2(id); err != nil {
			return Task{}, err
		}
	default:
		if task, err = t.readTask(id); err != nil {
			return Task{}, err
		}
	}
	return *task, nil
}
