package limits

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "hello world", "hello world"},
		{"sgr colours", "\x1b[1m\x1b[38;2;215;119;87mbold\x1b[0m text", "bold text"},
		{"cursor forward is a space", "You've\x1b[1Chit\x1b[Cyour\x1b[1Climit", "You've hit your limit"},
		{"long cursor forward is a gap", "left\x1b[60Cright", "left right"},
		{"osc title with bel", "\x1b]0;✳ Claude Code\x07text", "text"},
		{"osc hyperlink with st", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\ done", "link done"},
		{"dcs string", "\x1bP+q544e\x1b\\after", "after"},
		{"private modes and erase", "\x1b[?2026h\x1b[2K\x1b[1A\x1b[2K\x1b[Gline\x1b[?2026l", "line"},
		{"absolute move breaks the line", "one\x1b[5;1Htwo", "one two"},
		{"words placed on one row, as Codex draws them", "\x1b[5;3HTrust\x1b[5;9Hthis\x1b[5;14Hfolder?", "Trust this folder?"},
		{"a move back on the row starts over", "\x1b[5;3Habc\x1b[5;4Hx", "abc x"},
		{"charset designation", "\x1b(Bplain", "plain"},
		{"keypad mode", "\x1b=\x1b>x", "x"},
		{"truncated escape", "text\x1b[", "text"},
		{"lone escape", "text\x1b", "text"},
		{"crlf and wrapping fold", "You've hit your weekly\r\n   limit · resets 5pm", "You've hit your weekly limit · resets 5pm"},
		{"tabs and runs of spaces", "a\t\tb   c", "a b c"},
		{"curly apostrophe", "You’ve hit", "You've hit"},
		{"curly double quotes", "“quoted”", "\"quoted\""},
		{"bullet operator", "limit reached ∙ resets 5am", "limit reached · resets 5am"},
		{"bullet", "• item", "· item"},
		{"no-break space", "(No\u00a0output)", "(No output)"},
		{"zero-width space", "lim\u200bit", "limit"},
		{"box drawing", "╭─── Claude Code v2.1.197 ───╮\n│ Welcome back! │ Tips │\n╰────╯", "Claude Code v2.1.197 Welcome back! Tips"},
		{"block elements", "  █████████▌        42% used", "42% used"},
		{"tree glyph", "  ⎿  Not logged in · Please run /login", "Not logged in · Please run /login"},
		{"braille spinner", "⠋ Working", "Working"},
		{"bel and backspace", "a\x07b\x08c", "abc"},
		{"c1 csi", "a\u009bb", "ab"},
		{"invalid utf-8", "a\xffb", "a b"},
		{"empty", "", ""},
		{"only decoration", "────────\n│ │", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Normalize(tt.in)); diff != "" {
				t.Errorf("Normalize(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCells(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"footer columns", "  ? for shortcuts · ← for agents" + strings.Repeat(" ", 40) + "Not logged in · Run /login",
			[]string{"? for shortcuts · ← for agents", "Not logged in · Run /login"}},
		{"short indentation stays one cell", "docs/a.md:    indented text", []string{"docs/a.md: indented text"}},
		{"box panes", "│ left pane │ right pane │", []string{"left pane", "right pane"}},
		{"empty lines vanish", "a\n\n\nb", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, cells(tt.in)); diff != "" {
				t.Errorf("cells(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestStripVTBrokenUTF8: found by FuzzStripVT. A byte that is not UTF-8 was kept as
// it was, so "\xc2", a dropped BEL and "\x82" joined into U+0082, a C1 control.
func TestStripVTBrokenUTF8(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\xc2\a\x82b":    "a\uFFFD\uFFFDb",
		"Novák \xff":      "Novák \uFFFD",
		"\x1b[1m\xe1\x1b": "\uFFFD",
	} {
		if got := StripVT(in); got != want {
			t.Errorf("StripVT(%q) = %q, want %q", in, got, want)
		}
	}
}
