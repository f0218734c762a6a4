package statefiles

import (
	"errors"
	"fmt"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// ErrNotResearch means no .strom/ folder was found in the directory or above it.
var ErrNotResearch error = messages.New("files.not_research", nil)

// ErrLocked means another strom process held the state lock for too long.
var ErrLocked = errors.New("the research's state is locked by another strom process")

// lockedError is ErrLocked as the person reads it: which lock, for how long.
func lockedError(shown string, wait fmt.Stringer) error {
	return messages.Errorf(ErrLocked, "files.locked", messages.Args{"File": shown, "Wait": wait.String()})
}

// ErrUnknownTask means a task id names no task in the queue.
var ErrUnknownTask error = messages.New("files.err_unknown_task", nil)

// ErrBadTaskID means a task id is not written as ids are (T-12, t-12 or 12), so it
// names no task whatever the queue holds: a bad value, not a missing task. It is
// ErrUnknownTask too.
var ErrBadTaskID = fmt.Errorf("not a task id: %w", ErrUnknownTask)

// unknownTask is ErrUnknownTask for the id a person gave, with what to do; an id
// that is not written as ids are is ErrBadTaskID.
func unknownTask(id string) error {
	if !validID(id) {
		return messages.Errorf(ErrBadTaskID, "files.bad_task_id", messages.Args{"Task": termsafe.Excerpt(id)})
	}
	return messages.Errorf(ErrUnknownTask, "files.unknown_task", messages.Args{"Task": id})
}

// BadInput reports whether err refuses a value a person or an agent gave for what
// it is, whatever the research holds: a text empty, over its bound or not UTF-8, a name
// or a task id not written as one. Given on the command line, that is bad usage.
func BadInput(err error) bool {
	return errors.Is(err, ErrEmpty) || errors.Is(err, ErrTooLong) || errors.Is(err, ErrNotUTF8) || errors.Is(err, ErrArchiveName) || errors.Is(err, ErrBadTaskID)
}

// SchemaError says which state file broke which rule, and where. strom refuses to
// write anything while a state file is invalid, so the message tells the person how
// to mend the file by hand.
type SchemaError struct {
	File    string // path relative to the research repo, e.g. .strom/queue.json
	Line    int    // for JSON-lines files: the 1-based line; 0 otherwise
	Pointer string // JSON pointer to the offending value ("" = the whole document)
	Rule    string // the rule broken, in words
}

func (e *SchemaError) Error() string { return e.Sentence().Error() }

// Sentence is the error as a person reads it, in their language when printed; the
// rule broken stays in the validator's words.
func (e *SchemaError) Sentence() *messages.Error {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "/"
	}
	args := messages.Args{"File": e.File, "Pointer": ptr, "Rule": e.Rule}
	if e.Line > 0 {
		args["Line"] = e.Line
		return messages.New("files.invalid_line", args)
	}
	return messages.New("files.invalid", args)
}

// ErrNewerStrom means a state file was written by a strom newer than this one, in
// a version this one does not know.
var ErrNewerStrom = errors.New("written by a newer strom")

// ErrNotParked means a task to unpark is not parked.
var ErrNotParked = errors.New("not parked")

// ErrNotWaiting means a task to answer asks no question.
var ErrNotWaiting = errors.New("not waiting for an answer")

// ErrEmpty means a text that must say something (a title, a record, a question,
// an answer) is empty or only white space.
var ErrEmpty = errors.New("empty text")

// ErrNotUTF8 means a text a person or an agent gave (a title, a record, a
// setting's value) is not UTF-8: JSON would silently turn its bytes into
// replacement characters.
var ErrNotUTF8 = errors.New("not UTF-8 text")

// errOutside means a path strom was to write leads out of .strom/.
var errOutside = errors.New("the path leads out of .strom/")

// ErrArchiveName means an archive's name has characters a name may not have.
var ErrArchiveName = errors.New("not an archive name")

// ErrTooLong means a text a person or an agent gave is over its bound (bounds.go).
var ErrTooLong = errors.New("longer than strom's bound")

// ErrTooBig means a file of the research's state is over FileMax, so strom
// neither reads nor writes it.
var ErrTooBig = errors.New("larger than strom's bound for a state file")
