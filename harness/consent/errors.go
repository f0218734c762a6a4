package consent

import (
	"fmt"
	"strings"

	"github.com/strom-research/strom/messages"
)

// ErrNotAllowed means a tree setting that starts a program has a value no person
// on this computer allowed for this research.
var ErrNotAllowed error = messages.New("consent.err_not_allowed", nil)

// ErrNeedsTerminal means allowing was asked for without a person at a terminal:
// there is no other way to allow.
var ErrNeedsTerminal error = messages.New("consent.err_needs_terminal", nil)

// NotAllowedError names the values that are not allowed, for the one sentence a run
// or a chat refuses with.
type NotAllowedError struct {
	Values   []Value
	File     string // how messages name the tree's settings file
	Terminal bool   // a person is at a terminal now
}

func (e *NotAllowedError) Error() string { return e.Sentence().Error() }

// Sentence is the refusal as a person reads it, in their language when printed.
func (e *NotAllowedError) Sentence() *messages.Error {
	names := make([]string, len(e.Values))
	for i, v := range e.Values {
		names[i] = fmt.Sprintf("%s %s", v.Setting, v.Quoted())
	}
	var list any = strings.Join(names, "")
	if n := len(names); n > 1 {
		list = messages.New("consent.list", messages.Args{"First": strings.Join(names[:n-1], ", "), "Last": names[n-1]})
	}
	id := "consent.not_allowed"
	if !e.Terminal {
		id += "_no_terminal"
	}
	if len(names) > 1 {
		id += "_more"
	} else {
		id += "_one"
	}
	return messages.New(id, messages.Args{"List": list, "File": e.File})
}

func (e *NotAllowedError) Unwrap() error { return ErrNotAllowed }
