package consent

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotAllowed means a tree setting that starts a program has a value no person
// on this computer allowed for this research.
var ErrNotAllowed = errors.New("a tree setting that starts a program is not allowed on this computer")

// ErrNeedsTerminal means allowing was asked for without a person at a terminal:
// there is no other way to allow.
var ErrNeedsTerminal = errors.New("allowing a setting needs a person at a terminal")

// NotAllowedError names the values that are not allowed, for the one sentence a run
// or a chat refuses with.
type NotAllowedError struct {
	Values   []Value
	File     string // how messages name the tree's settings file
	Terminal bool   // a person is at a terminal now
}

func (e *NotAllowedError) Error() string {
	names := make([]string, len(e.Values))
	for i, v := range e.Values {
		names[i] = fmt.Sprintf("%s %s", v.Setting, v.Quoted())
	}
	list := strings.Join(names, " and ")
	if len(names) > 2 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	verb := "starts a program and is"
	if len(names) > 1 {
		verb = "start programs and are"
	}
	how := "see where it came from and allow it with strom allow"
	if len(names) > 1 {
		how = "see where they came from and allow them with strom allow"
	}
	if !e.Terminal {
		how = "only a person at a terminal can allow it: run strom allow in one"
		if len(names) > 1 {
			how = "only a person at a terminal can allow them: run strom allow in one"
		}
	}
	return fmt.Sprintf("%s in %s %s not allowed on this computer — %s", list, e.File, verb, how)
}

func (e *NotAllowedError) Unwrap() error { return ErrNotAllowed }
