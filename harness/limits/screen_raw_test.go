package limits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeScreenRaw reads screens as the client drew them on a pty, escape
// sequences and all: Claude Code 2.1.197 puts the space between two words as a
// move to the next word's column (ESC[nG).
func TestClaudeScreenRaw(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "raw", "trust-2.1.197.vt"))
	if err != nil {
		t.Fatal(err)
	}
	scr, ok := ClaudeScreen(string(raw))
	if !ok || scr.Kind != ScreenTrust {
		t.Fatalf("ClaudeScreen = %+v, %v; want the trust dialog", scr, ok)
	}
	if !strings.Contains(scr.Advice, "whether to trust /tmp/rawtrust/repo: run `claude` once in this folder") {
		t.Errorf("advice %q does not name the folder", scr.Advice)
	}
}

func TestNormalizeColumnMoves(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"a move right is a blank", "\x1b[2GQuick\x1b[8Gsafety\x1b[15Gcheck:", "Quick safety check:"},
		{"a long move right is a column gap", "left\x1b[60Gright", "left right"},
		{"a move left starts over", "abcdef\x1b[1Gxyz", "abcdef xyz"},
		{"HPA moves like CHA", "one\x1b[5`two", "one two"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := cells("left\x1b[60Gright"); len(got) != 2 {
		t.Errorf("cells split %q, want two cells", got)
	}
}
