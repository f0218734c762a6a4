package statefiles

import (
	"time"

	"github.com/strom-research/strom/schemas"
)

// Park is .strom/park.json: the counters that park a task. For each task, Empty
// counts its sessions in a row that recorded nothing, Unfinished its sessions in a
// row that ended neither done nor waiting (run.sessionsPerTask).
type Park struct {
	Version    int            `json:"version"`
	Empty      map[string]int `json:"empty,omitempty"`
	Unfinished map[string]int `json:"unfinished,omitempty"`
}

// LoadPark reads the park counters; a missing file has none.
func (t *Tree) LoadPark() (*Park, error) {
	p := &Park{Version: 1}
	if _, err := loadFile(t.Path(ParkFile), t.rel(ParkFile), schemas.Park, p); err != nil {
		return nil, err
	}
	if p.Empty == nil {
		p.Empty = map[string]int{}
	}
	if p.Unfinished == nil {
		p.Unfinished = map[string]int{}
	}
	return p, nil
}

// SavePark writes the park counters. Hold the lock.
func (t *Tree) SavePark(p *Park) error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	return saveFile(t.Path(ParkFile), t.rel(ParkFile), schemas.Park, p)
}

// Mode values.
const (
	ModeResearch = "research"
	ModeArchive  = "archive"
)

// Mode is .strom/mode.json.
type Mode struct {
	Version int        `json:"version"`
	Mode    string     `json:"mode"`
	Changed *time.Time `json:"changed,omitempty"`
}

// LoadMode reads the mode; a missing file means research.
func (t *Tree) LoadMode() (*Mode, error) {
	m := &Mode{Version: 1, Mode: ModeResearch}
	if _, err := loadFile(t.Path(ModeFile), t.rel(ModeFile), schemas.Mode, m); err != nil {
		return nil, err
	}
	return m, nil
}

// SaveMode writes the mode. Hold the lock.
func (t *Tree) SaveMode(m *Mode) error {
	if err := t.migrateProgressLocked(); err != nil {
		return err
	}
	return saveFile(t.Path(ModeFile), t.rel(ModeFile), schemas.Mode, m)
}

// LoadHold reads a gate's own state from .strom/gates/<gate>/hold.json into v;
// found is false when the gate has none yet.
func (t *Tree) LoadHold(gate string, v any) (found bool, err error) {
	return loadFile(t.Path(GatesDir, gate, HoldFile), t.rel(GatesDir, gate, HoldFile), schemas.Hold, v)
}

// SaveHold writes a gate's own state. Hold the lock.
func (t *Tree) SaveHold(gate string, v any) error {
	return saveFile(t.Path(GatesDir, gate, HoldFile), t.rel(GatesDir, gate, HoldFile), schemas.Hold, v)
}
