package consent

import (
	"testing"

	"github.com/strom-research/strom/messages"
)

// TestWhySaid: strom allow says the Why of every rule that starts a program in the
// person's language: each has its text in the catalogs.
func TestWhySaid(t *testing.T) {
	t.Parallel()
	for _, r := range Rules {
		if r.Runs && !messages.Has(WhyID(r.Path)) {
			t.Errorf("%s: no catalog text %s", r.Path, WhyID(r.Path))
		}
	}
}
