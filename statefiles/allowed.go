package statefiles

import (
	"context"
	"path/filepath"
	"time"

	"github.com/strom-research/strom/schemas"
)

// AllowedFileName is the file in the user config that holds the tree settings a
// person on this computer allowed to start programs.
const AllowedFileName = "allowed.json"

// Allowed is the user config's allowed.json: for each research, the hash of each
// value of a tree setting that starts a program which a person allowed.
type Allowed struct {
	Version int            `json:"version"`
	Entries []AllowedEntry `json:"allowed,omitempty"`
}

// AllowedEntry is one value a person allowed. A research is named by its root
// commit and the folder of its work tree; the value only by its SHA-256.
type AllowedEntry struct {
	Root    string    `json:"root"`
	Path    string    `json:"path"`
	Setting string    `json:"setting"`
	SHA256  string    `json:"sha256"`
	At      time.Time `json:"at"`
}

// AllowedFile is the user config's allowed.json.
func AllowedFile(getenv func(string) string) SettingsFile {
	p := filepath.Join(UserConfigDir(getenv), AllowedFileName)
	return SettingsFile{Path: p, Shown: p}
}

// LoadAllowed reads and validates allowed.json; a missing file allows nothing.
func LoadAllowed(f SettingsFile) (*Allowed, error) {
	a := &Allowed{Version: 1}
	if _, err := loadFile(f.Path, f.Shown, schemas.Allowed, a); err != nil {
		return nil, err
	}
	return a, nil
}

// UpdateAllowed loads, changes and saves allowed.json under the user config's lock.
func UpdateAllowed(ctx context.Context, f SettingsFile, fn func(*Allowed) error) error {
	return f.locked(ctx, func() error {
		a, err := LoadAllowed(f)
		if err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
		return saveFile(f.Path, f.Shown, schemas.Allowed, a)
	})
}
