package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/strom-research/strom/statefiles"
)

// Note merges three versions of the research's note (.strom/note.json): a note only
// one side rewrote takes that side's; one both rewrote takes the note written
// later (its updated time; ours on a tie). A note is rewritten whole, so the other
// side's text is not mixed in: it stays in the history (git log -p
// .strom/note.json).
func Note(base, ours, theirs []byte) ([]byte, error) {
	for _, side := range []struct {
		which string
		data  []byte
	}{{"our version", ours}, {"their version", theirs}} {
		if err := statefiles.Validate(statefiles.NoteFile, side.data); err != nil {
			return nil, fmt.Errorf("%w: %s of note.json is not valid (%v)", ErrConflict, side.which, err)
		}
	}
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(theirs, base):
		return ours, nil
	case bytes.Equal(ours, base):
		return theirs, nil
	}
	if noteTime(theirs).After(noteTime(ours)) {
		return theirs, nil
	}
	return ours, nil
}

// noteTime is when a valid note was written.
func noteTime(data []byte) time.Time {
	var n statefiles.Note
	_ = json.Unmarshal(data, &n)
	return n.Updated
}

// laterSummary is the side of a task's summary written later (a, ours, on a tie),
// when both sides rewrote it.
func laterSummary(a, b fields) fields {
	when := func(t fields) time.Time {
		var s statefiles.Summary
		_ = json.Unmarshal(t["summary"], &s)
		return s.Updated
	}
	if when(b).After(when(a)) {
		return b
	}
	return a
}
