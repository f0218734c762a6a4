package statefiles

// The targeted calls on a version 4 queue (queuefiles.go): one task changed, put
// back, added, moved or read; its file of a hundred read and written, and
// queue.json where the task's state or place changes.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
)

// UpdateTask changes one task under the lock: it reads the task's shard, lets fn
// change the task and writes the shard when fn returns nil, and queue.json when
// the task's state changed.
func (t *Tree) UpdateTask(ctx context.Context, id string, fn func(*Task) error) (Task, error) {
	return lockedTask(ctx, t, func() (Task, error) { return t.UpdateTaskLocked(id, fn) })
}

// lockedTask runs fn while holding the lock.
func lockedTask(ctx context.Context, t *Tree, fn func() (Task, error)) (Task, error) {
	var out Task
	err := t.Locked(ctx, func() error {
		var err error
		out, err = fn()
		return err
	})
	return out, err
}

// UpdateTaskLocked is UpdateTask for a caller that holds the lock. A queue of an
// older version is migrated first.
func (t *Tree) UpdateTaskLocked(id string, fn func(*Task) error) (Task, error) {
	id = NormalizeID(id)
	if err := t.ensureCurrent(); err != nil {
		return Task{}, err
	}
	if !validID(id) {
		return Task{}, unknownTask(id)
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
	return task, t.writeTask(s, was, task)
}

// writeTask writes task into its shard s (as read), where its state was was ("":
// new), and queue.json when it does not say the same of the task: both as one
// change.
func (t *Tree) writeTask(s *shard, was State, task Task) error {
	_, o, data, err := t.readOrder()
	if err != nil {
		return err
	}
	if o == nil { // an older queue the caller did not migrate
		return fmt.Errorf("write task %s: %s is of an older version", task.ID, t.rel(QueueFile))
	}
	if !o.follow(was, task) {
		return t.putTask(s, task)
	}
	return t.journaled(func() error {
		if err := t.putTask(s, task); err != nil {
			return err
		}
		_, err := t.writeOrder(o, data)
		return err
	})
}

// PutTaskLocked writes a whole task into its shard as given (the harness restoring
// a task a session deleted or broke), and queue.json so that it says the same of
// it. Hold the lock.
func (t *Tree) PutTaskLocked(task Task) error {
	if err := t.ensureCurrent(); err != nil {
		return err
	}
	s, err := t.readShard(ShardFile(task.ID))
	if err != nil {
		return err
	}
	var was State
	if i := s.find(task.ID); i >= 0 {
		was = s.tasks[i].State
	}
	return t.writeTask(s, was, task)
}

// AddTask adds a task at the end of the queue under the lock: build makes it for
// the id it is given (never one used before). Only the new task's shard and
// queue.json are written.
func (t *Tree) AddTask(ctx context.Context, build func(id string) (Task, error)) (Task, error) {
	return lockedTask(ctx, t, func() (Task, error) { return t.AddTaskLocked(build) })
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
	s, err := t.readShard(shardOf(n))
	if err != nil {
		return Task{}, err
	}
	// A task already in its file at next_id (put there by hand, or by a merge)
	// keeps its id: queue.json follows it, and the new task takes the next.
	for {
		i := s.find("T-" + strconv.Itoa(n))
		if i < 0 {
			break
		}
		o.follow(s.tasks[i].State, s.tasks[i])
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
	o.follow("", task)
	o.NextID = n + 1
	err = t.journaled(func() error {
		if err := t.putTask(s, task); err != nil {
			return err
		}
		_, err := t.writeOrder(o, data)
		return err
	})
	if err != nil {
		return Task{}, err
	}
	return task, nil
}

// MoveTask puts task id right before task before in the queue, under the lock:
// queue.json alone changes. Both must be tasks that are not done.
func (t *Tree) MoveTask(ctx context.Context, id, before string) error {
	return t.Locked(ctx, func() error {
		if err := t.ensureCurrent(); err != nil {
			return err
		}
		_, o, data, err := t.readOrder()
		if err != nil {
			return err
		}
		id, before = NormalizeID(id), NormalizeID(before)
		from, to := o.index(id), o.index(before)
		for _, one := range []struct {
			id string
			at int
		}{{id, from}, {before, to}} {
			if one.at >= 0 {
				continue
			}
			if _, err := t.FindTaskLocked(one.id); err != nil {
				return err
			}
			return fmt.Errorf("%s is done: only tasks that are not done have a place in the queue (strom task list shows the order)", one.id)
		}
		if from == to {
			return fmt.Errorf("%s cannot move before itself: name another task with --before (strom task list shows the order)", id)
		}
		e := o.Live[from]
		o.Live = slices.Delete(o.Live, from, from+1)
		o.Live = slices.Insert(o.Live, o.index(before), e)
		_, err = t.writeOrder(o, data)
		return err
	})
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
	if v == 1 || v == 2 { // a task of its own file or of queue.json: read whole
		q, err := t.LoadQueue()
		if err != nil {
			return Task{}, err
		}
		task, err := q.Find(id)
		if err != nil {
			return Task{}, err
		}
		return *task, nil
	}
	s, err := t.readShard(ShardFile(id))
	if err != nil {
		return Task{}, err
	}
	i := s.find(id)
	if i < 0 {
		return Task{}, unknownTask(id)
	}
	return s.tasks[i], nil
}
