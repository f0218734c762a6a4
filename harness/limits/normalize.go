package limits

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// gapSpaces is how many blanks in a row separate two columns of a screen line.
// TUIs lay out columns (a footer's left and right half, a box's two panes)
// with long runs of blanks or with cursor moves; code indentation after a
// grep "path:" prefix is usually shorter, so it stays one cell.
const gapSpaces = 8

// gap is what a column separator (a box-drawing glyph, a long cursor move)
// becomes before the line is split into cells.
var gap = strings.Repeat(" ", gapSpaces)

// Normalize turns raw terminal output into one line of plain text: escape
// sequences are removed (a cursor-forward move counts as blanks, a vertical or
// absolute move as a line break), box-drawing, block and spinner glyphs are
// dropped, ’ becomes ', ∙ and • become ·, OpenCode's ⬝ a blank, and all whitespace, line breaks
// included, folds to single spaces. The TUI wraps long messages mid-line, so
// the folded text reads as the agent wrote it.
func Normalize(s string) string {
	return strings.Join(cells(s), " ")
}

// cells splits raw terminal output into screen cells: each screen line, split
// at column gaps, with its whitespace folded. Empty cells are left out. A cell
// starts where the agent started writing, which is what patterns anchor to.
func cells(s string) []string {
	var out []string
	for line := range strings.SplitSeq(StripVT(s), "\n") {
		line = mapRunes(line)
		for _, cell := range splitGaps(line) {
			if f := strings.Join(strings.Fields(cell), " "); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// splitGaps splits a line at every run of gapSpaces or more blanks.
func splitGaps(line string) []string {
	var out []string
	start, run := 0, 0
	for i := 0; i < len(line); i++ {
		if line[i] == ' ' {
			run++
			continue
		}
		if run >= gapSpaces {
			out = append(out, line[start:i-run])
			start = i
		}
		run = 0
	}
	return append(out, line[start:])
}

// mapRunes maps look-alike characters to one spelling and TUI decoration to
// blanks or column gaps, so patterns need one spelling only.
func mapRunes(line string) string {
	var b strings.Builder
	b.Grow(len(line))
	inGap := false // a run of glyphs is one gap
	for _, r := range line {
		wasGap := inGap
		inGap = false
		switch {
		case r == '’' || r == '‘' || r == '′':
			b.WriteByte('\'')
		case r == '“' || r == '”':
			b.WriteByte('"')
		case r == '∙' || r == '•' || r == '⋅':
			b.WriteString("·")
		case r == '⬝': // OpenCode's status bar: spinner dots that stand for blanks
			b.WriteByte(' ')
		case r == '\u00a0' || r == '\u202f' || r == '\u3000' || (r >= '\u2000' && r <= '\u200a'):
			b.WriteByte(' ')
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\ufeff':
			// Zero-width characters draw nothing.
		case r == '⎿' || r == '⎯', // TUI tree and rule glyphs
			r >= '\u2500' && r <= '\u259f', // box drawing and block elements
			r >= '\u2800' && r <= '\u28ff', // braille spinners
			r >= '\ue000' && r <= '\uf8ff', // private use: icon fonts
			r == utf8.RuneError:
			if !wasGap {
				b.WriteString(gap)
			}
			inGap = true
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxForward caps the blanks one cursor-forward move becomes: any longer move
// is a column gap.
const maxForward = gapSpaces

// StripVT removes ANSI/VT escape sequences and control characters, and turns bytes
// that are not UTF-8 into U+FFFD. Moves that leave the line (cursor up/down,
// absolute positioning, carriage return) become line breaks; cursor-forward becomes
// blanks, because a TUI may draw the space between two words as ESC[1C, or as a move
// to a column further right on the same line (ESC[12G, as Claude Code 2.1.197 draws
// its trust dialog, or ESC[5;14H after an ESC[5;9H, as Codex 0.171.0 draws each word
// of a line).
func StripVT(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	col := 0  // the column written to on the current line, roughly: one per rune
	row := -1 // the row of the last absolute move, -1 when unknown
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = escape(&b, s, i, &col, &row)
		case c == '\n' || c == '\r' || c == '\v' || c == '\f':
			b.WriteByte('\n')
			col, row = 0, -1
			i++
		case c == '\t':
			b.WriteByte(' ')
			col++
			i++
		case c < 0x20 || c == 0x7f:
			// BEL, backspace and the other C0 controls draw nothing.
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			col++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 && r <= 0x9f {
				// C1 controls (8-bit CSI and friends) are not text.
				i += size
				continue
			}
			if r == utf8.RuneError && size == 1 {
				// A byte that is not UTF-8 is drawn as U+FFFD, as a terminal draws
				// it; written as it is, it could join the bytes around a dropped
				// control into a character of its own.
				b.WriteRune(utf8.RuneError)
				i++
				col++
				continue
			}
			b.WriteString(s[i : i+size])
			col++
			i += size
		}
	}
	return b.String()
}

// escape consumes the escape sequence at s[i] (an ESC) and writes what it
// means for the text layout; it returns the index after the sequence.
func escape(b *strings.Builder, s string, i int, col, row *int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		return csi(b, s, i+2, col, row)
	case ']', 'P', 'X', '^', '_':
		// OSC, DCS, SOS, PM, APC: a string ended by BEL or ESC \.
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ':
		// Character set designations and the like take one more byte.
		return min(i+3, len(s))
	case 'E', 'D', 'M':
		// NEL, IND, RI: the cursor leaves the line.
		b.WriteByte('\n')
		*col, *row = 0, -1
		return i + 2
	default:
		return i + 2
	}
}

// csi consumes a control sequence whose parameters start at s[j].
func csi(b *strings.Builder, s string, j int, col, row *int) int {
	start := j
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	params := s[start:j]
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j >= len(s) {
		return len(s)
	}
	n := 1
	if v, err := strconv.Atoi(params); err == nil && v > 0 {
		n = v
	}
	switch s[j] {
	case 'C', 'a':
		// Cursor forward: the cells it skips read as blanks.
		b.WriteString(strings.Repeat(" ", min(n, maxForward)))
		*col += n
	case 'G', '`':
		// A move to a column of the same line: to the right, the cells it skips
		// read as blanks; to the left, drawing starts over.
		if to := n - 1; to > *col {
			b.WriteString(strings.Repeat(" ", min(to-*col, maxForward)))
			*col = to
		} else {
			b.WriteByte('\n')
			*col = to
		}
	case 'H', 'f':
		// An absolute move: to the right on the same row, the cells it skips
		// read as blanks; anywhere else, drawing starts over.
		r, c := 1, 1
		if rs, cs, ok := strings.Cut(params, ";"); ok {
			if v, err := strconv.Atoi(rs); err == nil && v > 0 {
				r = v
			}
			if v, err := strconv.Atoi(cs); err == nil && v > 0 {
				c = v
			}
		} else if v, err := strconv.Atoi(params); err == nil && v > 0 {
			r = v
		}
		if to := c - 1; r == *row && to >= *col {
			b.WriteString(strings.Repeat(" ", min(to-*col, maxForward)))
			*col = to
			break
		}
		b.WriteByte('\n')
		*col, *row = c-1, r
	case 'A', 'B', 'E', 'F', 'd', 'e':
		// Vertical moves start drawing somewhere else.
		b.WriteByte('\n')
		*col, *row = 0, -1
	}
	return j + 1
}
