package limits

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxJoin is how many screen cells a message may span after the TUI wrapped
// it: Codex's longest limit message is three lines on an 80-column terminal
// and six on a 40-column one.
const maxJoin = 6

// leadGlyphs are the marks a TUI draws before a message: Claude Code's ⎿
// (tool result), ● and ⏺ (assistant), ❯ and > (prompt); Codex's ■ (error) and
// • (message, mapped to ·); Gemini's ✕; warning and failure marks.
const leadGlyphs = "⎿●⏺❯>■·✕✖✗✘⚠▶►⏵"

// Match reports the agent's limit or login message in text, which may be raw
// terminal output. When text holds several, the last one wins: it is the most
// recent thing the agent said.
//
// Matching works on screen cells rather than on the fully folded text, so that
// patterns can anchor at the start of a line: the text is split into lines (and
// a line into columns at long blank runs or box glyphs), each cell normalized
// as by Normalize and stripped of leading TUI glyphs. Because the TUI wraps a
// long message over several lines, each cell is also tried joined with up to
// maxJoin-1 following cells (the folded fallback), longest first, so a reset
// time that wrapped onto the next line is read whole. The anchor stays at the
// start of the first cell, which keeps "path:" prefixes, quotes and prose out.
func (p Patterns) Match(text string) (Signal, bool) {
	sets := []struct {
		kind Kind
		pats []pattern
	}{{Limit, compileAll(p.Limit)}, {Login, compileAll(p.Login)}}
	if len(sets[0].pats)+len(sets[1].pats) == 0 {
		return Signal{}, false
	}
	units := matchUnits(text)
	var b strings.Builder
	ends := make([]int, 0, maxJoin)
	for i := len(units) - 1; i >= 0; i-- {
		// Build the longest window once; shorter windows are its prefixes.
		b.Reset()
		ends = ends[:0]
		for k := i; k < len(units) && k < i+maxJoin; k++ {
			if k > i {
				b.WriteByte(' ')
			}
			b.WriteString(units[k])
			ends = append(ends, b.Len())
		}
		window := b.String()
		for n := len(ends); n >= 1; n-- {
			w := window[:ends[n-1]]
			for _, set := range sets {
				for _, pat := range set.pats {
					// A pattern that does not test for the end of the text
					// and failed on the longest window fails on its prefixes.
					if n < len(ends) && !pat.endAnchored || !pat.canStart(w) {
						continue
					}
					if !pat.re.MatchString(w) {
						continue
					}
					m := pat.re.FindStringSubmatchIndex(w)
					last := 0
					for last < n-1 && ends[last] < m[1] {
						last++
					}
					return Signal{
						Kind:  set.kind,
						Text:  w[:ends[last]],
						Reset: resetGroup(pat.re, w, m),
						Agent: p.Agent,
					}, true
				}
			}
		}
	}
	return Signal{}, false
}

// resetGroup returns the first non-empty group named "reset".
func resetGroup(re *regexp.Regexp, s string, m []int) string {
	for i, name := range re.SubexpNames() {
		if name == "reset" && m[2*i] >= 0 && m[2*i+1] > m[2*i] {
			return s[m[2*i]:m[2*i+1]]
		}
	}
	return ""
}

// matchUnits returns the screen cells of text with leading TUI glyphs removed.
func matchUnits(text string) []string {
	cs := cells(text)
	out := cs[:0]
	for _, c := range cs {
		if c = trimLead(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// trimLead removes the TUI glyphs (and the blanks after them) that start a cell.
func trimLead(s string) string {
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if !strings.ContainsRune(leadGlyphs, r) {
			break
		}
		s = strings.TrimLeft(s[size:], " ")
	}
	return s
}
