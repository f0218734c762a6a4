package shellword

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzSplit: any line splits or names the quote left open; the words it splits
// into, quoted and joined again, split into the same words.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "./agent.sh --x", `python3 "my agent.py"`, `a 'it''s' b`, `a\ b c\'d`, "a \\\nb", `a "b`, "claude --dangerously-skip-permissions -p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err != nil {
			if !strings.Contains(err.Error(), "quote is not closed") {
				t.Fatalf("Split(%q): unexpected error %v", line, err)
			}
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = Quote(w)
		}
		again, err := Split(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("Split of the quoted words %q: %v", quoted, err)
		}
		if diff := cmp.Diff(words, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Split(%q), quoted and split again (-first +again):\n%s", line, diff)
		}
	})
}

// FuzzQuote: Split(Quote(s)) is s, for every string and for words side by side.
func FuzzQuote(f *testing.F) {
	f.Add("plain", "two words")
	f.Add("it's", `say "hi" $HOME \n`)
	f.Add("", "\t\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := Split(Quote(a) + " " + Quote(b))
		if err != nil {
			t.Fatalf("Split(Quote(%q) Quote(%q)): %v", a, b, err)
		}
		if want := []string{a, b}; !cmp.Equal(got, want) {
			t.Fatalf("Split(Quote(%q) Quote(%q)) = %q", a, b, got)
		}
	})
}
