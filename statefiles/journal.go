package statefiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// A change that spans files (a task's file of a hundred and queue.json, or the
// whole queue) is written whole or not at all, whenever the process is killed:
// the new bytes of every file are first written to one journal file under
// .strom/run/ (atomically: it is there whole or not at all), then each file is
// replaced, then the journal is removed. A kill before the journal is whole leaves
// every file as it was; a kill after it leaves the journal, and the next process
// that takes the lock writes its files again, so the change is whole (finishJournal).

// journalFile, under .strom/run/, is the change being written.
const journalFile = "journal.json"

// journalVersion is the journal's own format; a journal of another version (a
// different strom was killed) is not replayed but kept aside for a person.
const journalVersion = 1

// fileChange is one file of a change: its new bytes, or its removal.
type fileChange struct {
	Path   string `json:"path"` // under .strom/, slash-separated
	Data   []byte `json:"data,omitempty"`
	Remove bool   `json:"remove,omitempty"`
}

type journal struct {
	Version int          `json:"version"`
	Files   []fileChange `json:"files"`
}

// journaled runs fn, which writes state files through t.put and t.drop, and then
// writes what it wrote as one change: all of it, or (fn failing, or the process
// killed before the change is whole) none of it. Hold the lock.
func (t *Tree) journaled(fn func() error) error {
	if t.pending != nil { // already inside a change: it is part of that one
		return fn()
	}
	var changes []fileChange
	t.pending = &changes
	err := fn()
	t.pending = nil
	if err != nil {
		return err
	}
	return t.writeChange(changes)
}

// put replaces the state file rel (under .strom/) with data, or, inside
// journaled, adds it to the change.
func (t *Tree) put(rel string, data []byte) error {
	return t.change(fileChange{Path: filepath.ToSlash(rel), Data: data})
}

// drop removes the state file rel, or, inside journaled, adds its removal to the
// change. A file that is not there is no error.
func (t *Tree) drop(rel string) error {
	return t.change(fileChange{Path: filepath.ToSlash(rel), Remove: true})
}

// change writes c, or, inside journaled, puts it into the change, in the place of
// an earlier change of its file.
func (t *Tree) change(c fileChange) error {
	if t.pending == nil {
		return t.apply(c)
	}
	if i := slices.IndexFunc(*t.pending, func(o fileChange) bool { return o.Path == c.Path }); i >= 0 {
		(*t.pending)[i] = c
	} else {
		*t.pending = append(*t.pending, c)
	}
	return nil
}

// apply writes one file of a change.
func (t *Tree) apply(c fileChange) error {
	if !filepath.IsLocal(filepath.FromSlash(c.Path)) {
		return fmt.Errorf("write %s: %w", t.rel(c.Path), errOutside)
	}
	path := t.Path(filepath.FromSlash(c.Path))
	if c.Remove {
		failpoint()
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", t.rel(c.Path), err)
		}
		failpoint()
		return nil
	}
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", t.rel(c.Path), err)
	}
	return WriteAtomic(path, c.Data, 0o644)
}

// writeChange writes changes whole: one file alone is replaced atomically as it
// is; more go through the journal.
func (t *Tree) writeChange(changes []fileChange) error {
	switch len(changes) {
	case 0:
		return nil
	case 1:
		return t.apply(changes[0])
	}
	if err := t.writeJournal(changes); err != nil {
		return err
	}
	return t.replay(changes)
}

// writeJournal writes changes into the journal, atomically: from then on they are
// written whole, by this process (replay) or, when it is killed, by the next
// holder of the lock.
func (t *Tree) writeJournal(changes []fileChange) error {
	data, err := json.Marshal(journal{Version: journalVersion, Files: changes})
	if err != nil {
		return fmt.Errorf("encode %s: %w", t.rel(RunDir, journalFile), err)
	}
	if err := MkdirAll(t.Path(RunDir), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", t.rel(RunDir, journalFile), err)
	}
	return WriteAtomic(t.Path(RunDir, journalFile), data, 0o644)
}

// applyAll writes every file of a change, in its order.
func (t *Tree) applyAll(changes []fileChange) error {
	for _, c := range changes {
		if err := t.apply(c); err != nil {
			return err
		}
	}
	return nil
}

// replay writes every file of a journal's change and then removes the journal.
func (t *Tree) replay(changes []fileChange) error {
	if err := t.applyAll(changes); err != nil {
		return err
	}
	failpoint()
	if err := os.Remove(t.Path(RunDir, journalFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", t.rel(RunDir, journalFile), err)
	}
	failpoint()
	return nil
}

// finishJournal completes a change a killed strom left half written: it writes
// every file of the journal again, removes it, and tells OnFinish. Hold the lock.
func (t *Tree) finishJournal() error {
	path := t.Path(RunDir, journalFile)
	data, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", t.rel(RunDir, journalFile), err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil || j.Version != journalVersion {
		// Not a journal this strom wrote whole: it is written atomically, so this
		// is someone else's file. Keep it for a person, and change nothing.
		if rerr := os.Rename(path, path+".unknown"); rerr != nil {
			return fmt.Errorf("move %s aside: %w", t.rel(RunDir, journalFile), rerr)
		}
		return nil
	}
	if err := t.replay(j.Files); err != nil {
		return err
	}
	if t.OnFinish != nil {
		files := make([]string, len(j.Files))
		for i, c := range j.Files {
			files[i] = t.rel(c.Path)
		}
		t.OnFinish(files)
	}
	return nil
}

// FinishPending completes, under the lock, a change that is being written or a
// killed strom left half written (every holder of the lock does so first);
// pending reports that there was one, so that a reader whose files did not agree
// reads them again. Without a journal it costs a stat.
func (t *Tree) FinishPending(ctx context.Context) (pending bool, err error) {
	if _, err := os.Lstat(t.Path(RunDir, journalFile)); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	unlock, err := t.Lock(ctx)
	if err != nil {
		return true, err
	}
	unlock()
	return true, nil
}

// settle completes a change a killed strom left half written before a reader
// reads what it spans (a stat when there is none). A holder of the lock has
// completed it already.
func (t *Tree) settle() error {
	if t.locked.Load() {
		return nil
	}
	_, err := t.FinishPending(context.Background())
	return err
}
