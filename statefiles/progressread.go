package statefiles

// Reading a task's records through the index (progressindex.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// TaskRecords returns the records of one task, oldest first, read through the index:
// what they cost does not depend on how many other records there are.
func (t *Tree) TaskRecords(ctx context.Context, task string) ([]Record, error) {
	st, err := t.progressIndex(ctx)
	if err != nil {
		return nil, err
	}
	recs, ok, err := t.taskRecords(st, task)
	if err != nil || ok {
		return recs, err
	}
	// The index and the files disagree (they changed while this read, or the index
	// is damaged): bring it up to date under the lock, and build it again when
	// that is not enough.
	err = t.Locked(ctx, func() error {
		recs, err = t.TaskRecordsLocked(task)
		return err
	})
	return recs, err
}

// TaskRecordsLocked is TaskRecords for a caller that holds the lock.
func (t *Tree) TaskRecordsLocked(task string) ([]Record, error) {
	st, err := t.progressIndexLocked()
	if err != nil {
		return nil, err
	}
	recs, ok, err := t.taskRecords(st, task)
	if err != nil || ok {
		return recs, err
	}
	return t.taskRecordsRebuilt(task)
}

func (t *Tree) taskRecordsRebuilt(task string) ([]Record, error) {
	st, err := t.rebuildProgressIndex()
	if err != nil {
		return nil, err
	}
	recs, ok, err := t.taskRecords(st, task)
	if err == nil && !ok {
		err = fmt.Errorf("read %s: the index in %s does not match it", t.rel(ProgressDir), t.rel(RunDir, progressIndexDir))
	}
	return recs, err
}

// CheckProgress validates the records as they stand through the index: only what
// changed since the index last saw them costs anything.
func (t *Tree) CheckProgress(ctx context.Context) error {
	_, err := t.progressIndex(ctx)
	return err
}

// CheckProgressLocked is CheckProgress for a caller that holds the lock.
func (t *Tree) CheckProgressLocked() error {
	_, err := t.progressIndexLocked()
	return err
}

// taskEntries reads a task's list in the index: the entries the index covers, in
// order, each once; ok is false when the list is not one.
func (t *Tree) taskEntries(st progressState, task string) (list []entry, ok bool, err error) {
	task = NormalizeID(task)
	if !isTaskID(task) {
		return nil, true, nil
	}
	b, err := os.ReadFile(t.progressIndexPath(task))
	if errors.Is(err, os.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the index of %s: %w", t.rel(ProgressDir), err)
	}
	all := parseEntries(b)
	if len(all) != bytes.Count(b, []byte("\n")) {
		return nil, false, nil
	}
	for _, e := range all {
		if size, ok := st.covered(e.Seg); ok && e.Off+int64(e.Len) < size+1 {
			list = append(list, e)
		}
	}
	slices.SortFunc(list, entry.order)
	return slices.Compact(list), true, nil
}

// taskRecords reads a task's records at the places the index names; ok is false
// when a place does not hold a record of the task.
func (t *Tree) taskRecords(st progressState, task string) (recs []Record, ok bool, err error) {
	task = NormalizeID(task)
	list, ok, err := t.taskEntries(st, task)
	if err != nil || !ok || len(list) == 0 {
		return nil, ok, err
	}
	files := map[int]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	buf := make([]byte, 0, 512)
	for _, e := range list {
		f := files[e.Seg]
		if f == nil {
			if f, err = os.Open(t.Path(sourceFile(e.Seg))); err != nil {
				return nil, false, nil
			}
			files[e.Seg] = f
		}
		buf = slices.Grow(buf[:0], e.Len)[:e.Len]
		if _, err := f.ReadAt(buf, e.Off); err != nil {
			return nil, false, nil
		}
		var r Record
		if json.Unmarshal(buf, &r) != nil || r.Task != task {
			return nil, false, nil
		}
		recs = append(recs, r)
	}
	return recs, true, nil
}
