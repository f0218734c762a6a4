// Package statefiles owns the files under .strom/: typed load and save, validation
// against the embedded schemas on every read and every write, atomic replacement and
// one cross-process lock.
//
// Its guarantees: readers never see a partial file; an invalid file is reported with
// its name, the JSON pointer and the rule broken, and is never overwritten; writers in
// different processes (the harness, the agent's `strom record`, a person's `strom task
// add`) are serialised by the lock, so none loses another's change.
package statefiles

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
)

// Folder names and files inside a research repo.
const (
	DirName        = ".strom"
	ConfigFile     = "config.json"
	QueueFile      = "queue.json"
	ProgressFile   = "progress.jsonl"
	ParkFile       = "park.json"
	ModeFile       = "mode.json"
	NoteFile       = "note.json"
	GitignoreFile  = ".gitignore"
	AttributesFile = ".gitattributes"
	RunDir         = "run"
	SessionsDir    = "sessions"
	GatesDir       = "gates"
	GateLogFile    = "gate.log"
	HoldFile       = "hold.json"
)

// Attributes is the content of .strom/.gitattributes: strom's own files are merged
// by strom (strom hooks merge-driver) where two lines of history meet. The drivers
// themselves are named in each clone's git config, never in a committed file: git
// runs no program a clone brought along.
const Attributes = `# strom merges its own files where two lines of history meet (strom hooks install).
queue.json merge=strom-queue
tasks/*.json merge=strom-task
records/*.jsonl merge=strom-progress
progress/*.jsonl merge=strom-progress
progress.jsonl merge=strom-progress
park.json merge=strom-park
note.json merge=strom-note
`

// Gitignore is the content of .strom/.gitignore: live state that is never committed.
const Gitignore = `# Live state of strom runs: never committed.
run/
sessions/
gate.log
.tmp-*
`

// Tree is one research repo's .strom/ folder.
type Tree struct {
	Root string // the research repo's top folder
	Dir  string // Root/.strom
	// OnMigrate, when set, is called under the lock after the files of an older
	// layout were converted (queue.json from version from to version to, with tasks
	// tasks): the harness commits the migration. When it fails, the conversion is
	// undone.
	OnMigrate func(from, to, tasks int) error
	// HeadQueue, when set, returns the queue as the last commit has it (nil when
	// it has none): a migration of the queue commits that, migrated, and then
	// writes the work tree's queue over it, so that a change not committed yet
	// stays a change not committed yet.
	HeadQueue func() (*Queue, error)
	// OnMigrateProgress, when set, is called under the lock after the records of an
	// older progress.jsonl were moved into segments (records of them): the harness
	// commits the migration. When it fails, the move is undone.
	OnMigrateProgress func(records int) error
	// OnFinish, when set, is told the files of a change a killed strom left half
	// written, once the lock's next holder has written them whole (journal.go).
	OnFinish func(files []string)
	// OnHeal, when set, is told the tasks where queue.json did not say what the
	// tasks' files say, once it was made to (queuefiles.go); none when only its
	// count of done tasks was wrong.
	OnHeal func(ids []string)

	// pending collects the files of a change being made (journaled).
	pending *[]fileChange
	// locked says that this process holds the lock through this tree.
	locked atomic.Bool
}

// Find returns the tree whose .strom/ folder is in dir or the nearest folder above
// it. A repo without one gives ErrNotResearch.
func Find(dir string) (*Tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find research repo: %w", err)
	}
	for d := abs; ; {
		st, err := os.Stat(filepath.Join(d, DirName))
		if err == nil && st.IsDir() {
			return At(d), nil
		}
		// Stop at the work tree's top: a .strom/ above the repo belongs to someone else.
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return nil, ErrNotResearch
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, ErrNotResearch
		}
		d = parent
	}
}

// At returns the tree rooted at root without checking that it exists.
func At(root string) *Tree {
	return &Tree{Root: root, Dir: filepath.Join(root, DirName)}
}

// Path returns the absolute path of a file under .strom/.
func (t *Tree) Path(elem ...string) string {
	return filepath.Join(append([]string{t.Dir}, elem...)...)
}

// rel names a file relative to the repo, as messages show it.
func (t *Tree) rel(elem ...string) string {
	return filepath.ToSlash(filepath.Join(append([]string{DirName}, elem...)...))
}

// Exists reports whether the tree has been initialised.
func (t *Tree) Exists() bool {
	_, err := os.Stat(t.Path(QueueFile))
	return err == nil
}

// readOptional reads a state file (bounded: readFile), returning nil data for a
// missing one.
func readOptional(path string) ([]byte, error) {
	data, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// filesIn lists the files of the folder rel whose names number gives a number,
// as paths under .strom/ ordered by that number; a missing folder has none. Other
// files there (a write's temporary file) are left out; a link or a fifo of such a
// name is kept: reading it refuses it (OpenFile), where leaving it out would hide
// it.
func (t *Tree) filesIn(rel string, number func(name string) (int, bool)) ([]string, error) {
	if _, err := checkPath(t.Path(rel), true); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(t.Path(rel))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.rel(rel), err)
	}
	type numbered struct {
		rel string
		n   int
	}
	var files []numbered
	for _, e := range ents {
		if n, ok := number(e.Name()); ok && !e.IsDir() {
			files = append(files, numbered{rel + "/" + e.Name(), n})
		}
	}
	slices.SortFunc(files, func(a, b numbered) int { return cmp.Compare(a.n, b.n) })
	rels := make([]string, len(files))
	for i, f := range files {
		rels[i] = f.rel
	}
	return rels, nil
}
