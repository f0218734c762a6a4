package messages

import (
	"errors"
	"fmt"
	"testing"
)

type sayer struct{}

func (sayer) Error() string    { return sayer{}.Sentence().Error() }
func (sayer) Sentence() *Error { return New("stop.done", nil) }

// TestErrorText: a sentence carried as an error is English in Error and the
// printer's language in Text, inside a "verb noun: %w" wrap too, with errors among
// its arguments said the same way; errors.Is still finds its sentinel.
func TestErrorText(t *testing.T) {
	t.Parallel()
	sentinel := New("state.parked", nil)
	inner := Errorf(sentinel, "stop.condition_said", Args{"Gate": "g", "Reason": New("stop.done", nil)})
	wrapped := fmt.Errorf("ask g: %w", inner)
	if got, want := wrapped.Error(), "ask g: the condition “g”: done"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := For(German).Text(wrapped), "ask g: die Bedingung „g“: fertig"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if !errors.Is(wrapped, sentinel) {
		t.Error("errors.Is does not find the sentinel")
	}
	if got := For(Czech).Text(sayer{}); got != "hotovo" {
		t.Errorf("a Sayer says %q", got)
	}
	if got := For(German).Text(errors.New("plain")); got != "plain" {
		t.Errorf("a plain error says %q", got)
	}
	if got := For(German).Text(Wrap(inner, "schon gesagt")); got != "schon gesagt" {
		t.Errorf("a wrapped sentence says %q", got)
	}
	var none *Error
	if got := For(German).Text(none); got != "" {
		t.Errorf("a nil Error says %q", got)
	}
}
