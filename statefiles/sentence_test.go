package statefiles

import (
	"errors"
	"fmt"
	"testing"

	"github.com/strom-research/strom/messages"
)

// TestSentences: a state file's validation error and an unknown task read in the
// person's language, the rule broken in the validator's words; errors.Is and
// errors.As still find what they stand for.
func TestSentences(t *testing.T) {
	t.Parallel()
	se := &SchemaError{File: ".strom/progress.jsonl", Line: 3, Pointer: "/task", Rule: "missing property"}
	err := fmt.Errorf("read .strom/progress.jsonl: %w", se)
	want := "read .strom/progress.jsonl: .strom/progress.jsonl ist in Zeile 3 ungültig an der Stelle /task: missing property — die Datei von Hand reparieren (git diff .strom/progress.jsonl zeigt, was sich geändert hat) und strom erneut ausführen"
	if got := messages.For(messages.German).Text(err); got != want {
		t.Errorf("German:\n%s\nwant\n%s", got, want)
	}
	var as *SchemaError
	if !errors.As(err, &as) {
		t.Error("errors.As does not find the SchemaError")
	}
	unknown := unknownTask("T-9")
	if got, want := messages.For(messages.Czech).Text(unknown), "žádný takový úkol T-9: strom task list ukáže označení"; got != want {
		t.Errorf("Czech: %q, want %q", got, want)
	}
	if !errors.Is(unknown, ErrUnknownTask) {
		t.Error("errors.Is does not find ErrUnknownTask")
	}
}
