package session

import (
	"testing"

	"github.com/strom-research/strom/messages"
)

// TestAnswerKey: one key answers the app's question in the person's language: that
// language's yes letter or y, n, Enter and Esc; other keys answer nothing.
func TestAnswerKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang     string
		k        byte
		yes, ans bool
	}{
		{"en", 'y', true, true}, {"en", 'Y', true, true}, {"en", 'n', false, true},
		{"en", 'j', false, false}, {"en", 'a', false, false},
		{"de", 'j', true, true}, {"de", 'J', true, true}, {"de", 'y', true, true}, {"de", 'n', false, true},
		{"de", 'a', false, false},
		{"cs", 'a', true, true}, {"cs", 'A', true, true}, {"cs", 'y', true, true}, {"cs", 'n', false, true},
		{"cs", 'j', false, false},
		{"cs", '\r', true, true}, {"de", 0x1b, false, true}, {"en", ' ', false, false}, {"en", 'x', false, false},
	} {
		yes, ans := answerKey(messages.For(c.lang), c.k)
		if yes != c.yes || ans != c.ans {
			t.Errorf("%s %q: yes %v answered %v, want %v %v", c.lang, c.k, yes, ans, c.yes, c.ans)
		}
	}
}
