package statefiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/strom-research/strom/schemas"
)

// migrateProgressLocked moves the records of an older strom's segments
// (.strom/progress/) and .strom/progress.jsonl into the files of a hundred
// (records.go), each line byte for byte and each task's in its order, removes the
// older files, and lets OnMigrateProgress commit that. Beside files of a hundred
// already there (a merge of a history an older strom wrote), only the records they
// do not hold are moved, appended after theirs. The files change together
// (journal.go); when OnMigrateProgress fails, the research is put back as it was
// and its error returned. Every write of records or state calls it first; without
// older files it costs two stats. Hold the lock.
func (t *Tree) migrateProgressLocked() error {
	if !t.legacy() {
		return nil
	}
	srcs := t.readSources()
	before := map[string][]byte{} // every file the move changes, as it was; nil: none
	after := map[string][]byte{}
	records := 0
	for _, src := range srcs {
		if src.err != nil {
			return readError(t.rel(src.file), src.err)
		}
		if err := checkProgress(t.rel(src.file), src.data); err != nil {
			return fmt.Errorf("migrate %s: %w", t.rel(src.file), err)
		}
		if RecordsOfFile(src.file) {
			continue
		}
		before[src.file] = src.data
		after[src.file] = nil
		for _, line := range recordLines(src.data) {
			if src.skip[string(line)] > 0 {
				src.skip[string(line)]--
				continue
			}
			var r struct{ Task string }
			if err := json.Unmarshal(line, &r); err != nil {
				return fmt.Errorf("migrate %s: %w", t.rel(src.file), err)
			}
			rel := RecordsFile(r.Task)
			if _, ok := after[rel]; !ok {
				old, err := readOptional(t.Path(rel))
				if err != nil {
					return fmt.Errorf("migrate %s: %w", t.rel(src.file), err)
				}
				before[rel], after[rel] = old, slices.Clone(old)
			}
			after[rel] = append(append(after[rel], line...), '\n')
			records++
		}
	}
	if err := t.writeFiles(after); err != nil {
		return err
	}
	// The older folder goes when it is empty (a write's temporary file keeps it).
	os.Remove(t.Path(ProgressDir))
	for _, data := range after {
		if data != nil { // its lines were validated where they were
			validated.remember(sumOf(schemas.Progress, data))
		}
	}
	if t.OnMigrateProgress != nil {
		if err := t.OnMigrateProgress(records); err != nil {
			if werr := t.writeFiles(before); werr != nil {
				return errors.Join(err, werr)
			}
			return fmt.Errorf("migrate %s: %w", t.rel(ProgressDir), err)
		}
	}
	return nil
}

// writeFiles writes files (under .strom/, nil: removed) as one change.
func (t *Tree) writeFiles(files map[string][]byte) error {
	return t.journaled(func() error {
		for _, rel := range slices.Sorted(maps.Keys(files)) {
			var err error
			if files[rel] == nil {
				err = t.drop(rel)
			} else {
				err = t.put(rel, files[rel])
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}
