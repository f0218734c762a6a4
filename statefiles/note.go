package statefiles

import (
	"strings"
	"time"

	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/schemas"
)

// Note is .strom/note.json: the research's handover note, what the next session
// should know (sources consulted, conventions, what is known not to work), at most
// NoteMax bytes, rewritten whole by any session or person (strom note). Its history
// is the file's history in git.
type Note struct {
	Version int       `json:"version"`
	Text    string    `json:"text"`
	Updated time.Time `json:"updated"`
	Session string    `json:"session,omitempty"`
}

// LoadNote reads the research's note; nil when it has none.
func (t *Tree) LoadNote() (*Note, error) {
	n := &Note{}
	found, err := loadFile(t.Path(NoteFile), t.rel(NoteFile), schemas.Note, n)
	if err != nil || !found {
		return nil, err
	}
	return n, nil
}

// SaveNote writes the research's note: text (refused over NoteMax, not UTF-8 or
// empty) written at now by session ("" for a person). Hold the lock.
func (t *Tree) SaveNote(text string, now time.Time, session string) (*Note, error) {
	if err := checkRewritten(NoteText, text); err != nil {
		return nil, err
	}
	if err := t.migrateProgressLocked(); err != nil {
		return nil, err
	}
	n := &Note{Version: 1, Text: text, Updated: now.UTC(), Session: session}
	if err := saveFile(t.Path(NoteFile), t.rel(NoteFile), schemas.Note, n); err != nil {
		return nil, err
	}
	return n, nil
}

// SetSummary gives a task its summary: text (refused over SummaryMax, not UTF-8 or
// empty) written at now by session ("" for a person).
func (task *Task) SetSummary(text string, now time.Time, session string) error {
	if err := checkRewritten(SummaryText, text); err != nil {
		return err
	}
	task.Summary = &Summary{Text: text, Updated: now.UTC(), Session: session}
	task.Updated = now.UTC()
	return nil
}

// checkRewritten refuses a summary or note that is empty, over its bound or not UTF-8.
func checkRewritten(k TextKind, text string) error {
	if strings.TrimSpace(text) == "" {
		return emptyText(k)
	}
	return CheckInput(k, text, "")
}

// emptyText is the sentence that refuses an empty text of kind k.
func emptyText(k TextKind) error {
	return messages.Errorf(ErrEmpty, "files.empty_"+string(k), nil)
}
