package consent

import (
	"fmt"
	"strings"

	"github.com/strom-research/strom/internal/termsafe"
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

// Sentence is the refusal as a person reads it, in their language when printed:
// the settings in the tree's settings file, then the agent's own files.
func (e *NotAllowedError) Sentence() *messages.Error {
	var settings, files []string
	program := ""
	for _, v := range e.Values {
		if v.File != "" {
			files = append(files, termsafe.Line(v.File))
			program = v.Program
			continue
		}
		settings = append(settings, fmt.Sprintf("%s %s", v.Setting, v.Quoted()))
	}
	id := "consent.not_allowed"
	if !e.Terminal {
		id += "_no_terminal"
	}
	switch {
	case len(files) == 0 && len(settings) > 1:
		id += "_more"
	case len(files) == 0:
		id += "_one"
	case len(settings) > 0:
		id += "_mixed"
	case len(files) > 1:
		id += "_files"
	default:
		id += "_file"
	}
	return messages.New(id, messages.Args{"List": andList(settings), "File": e.File, "Files": andList(files), "Agent": AgentName(program)})
}

// andList is "a", "a and b", "a, b and c".
func andList(names []string) any {
	if n := len(names); n > 1 {
		return messages.New("consent.list", messages.Args{"First": strings.Join(names[:n-1], ", "), "Last": names[n-1]})
	}
	return strings.Join(names, "")
}

func (e *NotAllowedError) Unwrap() error { return ErrNotAllowed }
