package consent

import (
	"strings"
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

// TestFileWhySaid: strom allow says why each agent file needs allowing, in the
// person's language.
func TestFileWhySaid(t *testing.T) {
	t.Parallel()
	for _, f := range AgentFiles {
		file := f.Path
		if strings.HasSuffix(file, "/") {
			file += "x"
		}
		if id := FileWhyID(f.Program, file); !messages.Has(id) {
			t.Errorf("%s: no catalog text %s", f.Path, id)
		}
	}
}
