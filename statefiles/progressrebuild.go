package statefiles

// Indexing the records anew: the segments that changed otherwise than by an
// append, or every file of records (progressindex.go says when).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// reindexSegments validates the segments redo again and writes the entries of
// every task they held or hold anew, and drops those of the segments gone.
func (t *Tree) reindexSegments(redo, gone []int) ([]source, error) {
	touched := map[int]bool{}
	affected := map[string]bool{}
	for _, n := range append(slices.Clone(redo), gone...) {
		touched[n] = true
		list, _ := os.ReadFile(t.segmentIndexPath(n))
		for l := range bytes.Lines(list) {
			if task, _, ok := strings.Cut(string(l), " "); ok && isTaskID(task) {
				affected[task] = true
			}
		}
	}
	fresh := map[string][]entry{}
	lists := map[int][]byte{}
	var out []source
	for _, n := range redo {
		data, s, err := t.readStamped(n)
		if err != nil {
			return nil, err
		}
		if err := checkProgress(t.rel(SegmentFile(n)), data); err != nil {
			return nil, err
		}
		entries, lines, err := t.indexLines(n, data, 0, 0, false, nil)
		if err != nil {
			return nil, err
		}
		var list []byte
		for _, task := range slices.Sorted(maps.Keys(entries)) {
			affected[task] = true
			fresh[task] = append(fresh[task], entries[task]...)
			for _, e := range entries[task] {
				list = append(list, task+" "+offLen(e)...)
			}
		}
		lists[n] = list
		out = append(out, source{Seg: n, Stamp: s, Lines: lines})
	}
	for _, task := range slices.Sorted(maps.Keys(affected)) {
		old, _ := os.ReadFile(t.progressIndexPath(task))
		var keep []entry
		for _, e := range parseEntries(old) {
			if !touched[e.Seg] {
				keep = append(keep, e)
			}
		}
		keep = append(keep, fresh[task]...)
		slices.SortFunc(keep, entry.order)
		keep = slices.Compact(keep)
		if len(keep) == 0 {
			if err := os.Remove(t.progressIndexPath(task)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("index progress: %w", err)
			}
			continue
		}
		var b []byte
		for _, e := range keep {
			b = append(b, entryLine(e)...)
		}
		if err := WriteTransient(t.progressIndexPath(task), b); err != nil {
			return nil, fmt.Errorf("index progress: %w", err)
		}
	}
	for _, n := range redo {
		if err := WriteTransient(t.segmentIndexPath(n), lists[n]); err != nil {
			return nil, fmt.Errorf("index progress: %w", err)
		}
	}
	for _, n := range gone {
		os.Remove(t.segmentIndexPath(n))
	}
	return out, nil
}

// rebuildProgressIndex validates every file of records and writes a new index in
// place of the old one.
func (t *Tree) rebuildProgressIndex() (progressState, error) {
	cur, folder, err := t.currentSources(progressState{})
	if err != nil {
		return progressState{}, err
	}
	nums := make([]int, len(cur))
	for i, c := range cur {
		nums[i] = c.Seg
	}
	st := progressState{Folder: folder}
	entries := map[string][]entry{}
	lists := map[int][]byte{}
	var held []readSource
	for _, n := range nums {
		data, s, err := t.readStamped(n)
		if err != nil {
			return st, err
		}
		if err := checkProgress(t.rel(sourceFile(n)), data); err != nil {
			return st, err
		}
		var skip map[string]int
		if n == 0 && len(nums) > 1 {
			skip = heldLines(held)
		}
		got, lines, err := t.indexLines(n, data, 0, 0, false, skip)
		if err != nil {
			return st, err
		}
		if n > 0 {
			held = append(held, readSource{data: data})
		}
		var list []byte
		for _, task := range slices.Sorted(maps.Keys(got)) {
			entries[task] = append(entries[task], got[task]...)
			for _, e := range got[task] {
				list = append(list, task+" "+offLen(e)...)
			}
		}
		lists[n] = list
		st.Sources = append(st.Sources, source{Seg: n, Stamp: s, Lines: lines})
	}
	run := t.Path(RunDir)
	if err := os.MkdirAll(run, 0o755); err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
	}
	tmp, err := os.MkdirTemp(run, ".tmp-"+progressIndexDir+"-*")
	if err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, progressIndexSegs), 0o755); err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
	}
	for task, list := range entries {
		var b []byte
		for _, e := range list {
			b = append(b, entryLine(e)...)
		}
		if err := os.WriteFile(filepath.Join(tmp, task), b, 0o644); err != nil {
			return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
		}
	}
	for n, list := range lists {
		if n == 0 {
			continue
		}
		if err := os.WriteFile(filepath.Join(tmp, progressIndexSegs, strconv.Itoa(n)), list, 0o644); err != nil {
			return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
		}
	}
	if err := t.writeProgressState(filepath.Join(tmp, progressIndexState), st); err != nil {
		return st, err
	}
	// A reader between the two steps finds no index, takes the lock and waits for
	// this one.
	dir := t.progressIndexPath()
	if err := os.RemoveAll(dir); err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return st, fmt.Errorf("index %s: %w", t.rel(ProgressDir), err)
	}
	return st, nil
}

// indexLines validates the lines of data, which starts at byte offset and line
// number line of the file of segment seg (when check is set: a rebuild validated
// the whole file before), and returns each task's entries and the line count at
// the end of data. Lines skip counts are left out (as often as it counts them).
func (t *Tree) indexLines(seg int, data []byte, offset int64, line int, check bool, skip map[string]int) (map[string][]entry, int, error) {
	shown := t.rel(sourceFile(seg))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n := line + bytes.Count(data, []byte("\n")) + 1
		return nil, 0, &SchemaError{File: shown, Line: n, Rule: "the last line has no newline: the file looks truncated"}
	}
	entries := map[string][]entry{}
	pos := offset
	for l := range bytes.Lines(data) {
		line++
		start := pos
		pos += int64(len(l))
		l = bytes.TrimSuffix(l, []byte("\n"))
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if check {
			if err := validate(shown, line, schemas.Progress, l); err != nil {
				return nil, 0, err
			}
		}
		if skip[string(l)] > 0 {
			skip[string(l)]--
			continue
		}
		var r struct {
			Task string `json:"task"`
		}
		if err := json.Unmarshal(l, &r); err != nil || !isTaskID(r.Task) {
			return nil, 0, &SchemaError{File: shown, Line: line, Rule: "the record names no task"}
		}
		entries[r.Task] = append(entries[r.Task], entry{Seg: seg, Off: start, Len: len(l)})
	}
	return entries, line, nil
}
