package statefiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/strom-research/strom/messages"
)

// ResearchesFile is the list of research repos on this computer, in the user config
// folder: what `strom app` shows. strom init and the first strom command in a
// research add it; nothing in a research repo points back here.
const ResearchesFile = "researches.json"

// Researches is researches.json.
type Researches struct {
	Version int             `json:"version"`
	List    []ResearchEntry `json:"researches"`
}

// ResearchEntry is one research repo on this computer.
type ResearchEntry struct {
	Root  string    `json:"root"` // absolute path of the repo's work tree
	Added time.Time `json:"added"`
}

// ResearchesPath is where the list lives for this user.
func ResearchesPath(getenv func(string) string) string {
	return filepath.Join(UserConfigDir(getenv), ResearchesFile)
}

// LoadResearches reads the list; a missing file is an empty list. A file strom cannot
// read is an error that names it: it is never overwritten then.
func LoadResearches(getenv func(string) string) (*Researches, error) {
	path := ResearchesPath(getenv)
	rs := &Researches{Version: 1}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return rs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, rs); err != nil || rs.Version != 1 {
		return nil, messages.Errorf(nil, "files.researches_unreadable", messages.Args{"File": path, "Error": fmt.Sprint(err)})
	}
	return rs, nil
}

// Has reports whether root is on the list.
func (rs *Researches) Has(root string) bool {
	return slices.ContainsFunc(rs.List, func(e ResearchEntry) bool { return e.Root == root })
}

// RememberResearch puts root on the list if it is not there yet, under the list's
// own lock, so two strom commands starting at once keep both researches.
func RememberResearch(ctx context.Context, getenv func(string) string, root string, now time.Time) error {
	return updateResearches(ctx, getenv, func(rs *Researches) bool {
		if rs.Has(root) {
			return false
		}
		rs.List = append(rs.List, ResearchEntry{Root: root, Added: now.UTC()})
		return true
	})
}

// ForgetResearch takes root off the list.
func ForgetResearch(ctx context.Context, getenv func(string) string, root string) error {
	return updateResearches(ctx, getenv, func(rs *Researches) bool {
		n := len(rs.List)
		rs.List = slices.DeleteFunc(rs.List, func(e ResearchEntry) bool { return e.Root == root })
		return len(rs.List) != n
	})
}

func updateResearches(ctx context.Context, getenv func(string) string, fn func(*Researches) bool) error {
	path := ResearchesPath(getenv)
	unlock, err := LockFile(ctx, path+".lock", path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	rs, err := LoadResearches(getenv)
	if err != nil {
		return err
	}
	if !fn(rs) {
		return nil
	}
	data, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteAtomic(path, append(data, '\n'), 0o644)
}
