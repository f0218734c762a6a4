package statefiles

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/strom-research/strom/schemas"
)

// MigrateProgress moves the records of an older .strom/progress.jsonl into
// segments now; it does nothing when there is no such file. Hold the lock.
func (t *Tree) MigrateProgress() error {
	return t.migrateProgressLocked()
}

// migrateProgressLocked moves the records of .strom/progress.jsonl into segments
// (segments.go), byte for byte and in order, removes the file, and lets
// OnMigrateProgress commit that. Beside segments already there (a merge from a
// history an older strom wrote), only its records the segments do not hold are
// moved, appended after theirs. When OnMigrateProgress fails the research is put
// back as it was and its error returned. Every write of records or state calls it
// first; without progress.jsonl it costs one stat. Hold the lock.
func (t *Tree) migrateProgressLocked() error {
	legacy := t.Path(ProgressFile)
	if _, err := os.Lstat(legacy); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	shown := t.rel(ProgressFile)
	data, err := readFile(legacy)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	if err := checkProgress(shown, data); err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	nums, err := t.segments()
	if err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	if err := os.MkdirAll(t.Path(ProgressDir), 0o755); err != nil {
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	moved := data
	last, lastSize := 0, int64(0)
	if len(nums) > 0 {
		var srcs []readSource
		for _, n := range nums {
			b, err := readFile(t.Path(SegmentFile(n)))
			if err != nil {
				return fmt.Errorf("migrate %s: %w", shown, err)
			}
			if err := checkProgress(t.rel(SegmentFile(n)), b); err != nil {
				return fmt.Errorf("migrate %s: %w", shown, err)
			}
			srcs = append(srcs, readSource{data: b})
		}
		have := heldLines(srcs)
		moved = nil
		for _, l := range progressLines(data) {
			if have[string(l)] > 0 {
				have[string(l)]--
				continue
			}
			moved = append(append(moved, l...), '\n')
		}
		last, lastSize = nums[len(nums)-1], int64(len(srcs[len(srcs)-1].data))
	}
	// Undo puts the segments back as they were: the last one cut to its size, the
	// new ones removed.
	var created []int
	undo := func() {
		for _, n := range created {
			os.Remove(t.Path(SegmentFile(n)))
		}
		if last > 0 {
			os.Truncate(t.Path(SegmentFile(last)), lastSize)
		}
		os.Remove(t.Path(ProgressDir)) // only when empty
	}
	// The moved lines go where appends would put them: after the last segment's,
	// in a new segment whenever one would pass SegmentLimit.
	type part struct {
		n     int
		data  []byte
		fresh bool
	}
	var parts []part
	cur, size := last, lastSize
	records := 0
	for line := range bytes.Lines(moved) {
		if cur == 0 || (size > 0 && size+int64(len(line)) > SegmentLimit) {
			cur, size = cur+1, 0
			parts = append(parts, part{n: cur, fresh: true})
		} else if len(parts) == 0 {
			parts = append(parts, part{n: cur})
		}
		parts[len(parts)-1].data = append(parts[len(parts)-1].data, line...)
		size += int64(len(line))
		if len(bytes.TrimSpace(line)) > 0 {
			records++
		}
	}
	for _, p := range parts {
		if !p.fresh {
			if err := appendLine(t.Path(SegmentFile(p.n)), p.data); err != nil {
				undo()
				return fmt.Errorf("migrate %s: %w", shown, err)
			}
			continue
		}
		if err := WriteAtomic(t.Path(SegmentFile(p.n)), p.data, 0o644); err != nil {
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
		created = append(created, p.n)
		// Its lines were validated as progress.jsonl's: the index need not again.
		validated.remember(sumOf(schemas.Progress, p.data))
	}
	if err := os.Remove(legacy); err != nil {
		undo()
		return fmt.Errorf("migrate %s: %w", shown, err)
	}
	if t.OnMigrateProgress != nil {
		if err := t.OnMigrateProgress(records); err != nil {
			if werr := WriteAtomic(legacy, data, 0o644); werr != nil {
				return errors.Join(err, werr)
			}
			undo()
			return fmt.Errorf("migrate %s: %w", shown, err)
		}
	}
	return nil
}
