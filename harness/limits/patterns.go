package limits

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Kind is what a signal says about the agent.
type Kind int

const (
	// Limit: the agent hit its subscription limit (or quota) and stops until
	// the limit resets.
	Limit Kind = iota + 1
	// Login: the agent is not logged in, or its credentials were refused.
	Login
)

// kindWords holds the stable wire words of Kind.
var kindWords = map[Kind]string{Limit: "limit", Login: "login"}

// String returns the wire word: "limit" or "login".
func (k Kind) String() string {
	if w, ok := kindWords[k]; ok {
		return w
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText writes the wire word.
func (k Kind) MarshalText() ([]byte, error) {
	if _, ok := kindWords[k]; !ok {
		return nil, fmt.Errorf("marshal kind %d: unknown kind", int(k))
	}
	return []byte(k.String()), nil
}

// Signal is one recognised limit or login message.
type Signal struct {
	Kind Kind `json:"kind"`
	// Text is the screen line (lines, when the TUI wrapped the message) that
	// matched, normalized; for a structured event, the agent's message. It is
	// empty when the event carries no words: Own then says what strom read.
	Text string `json:"text,omitempty"`
	// Own is what a structured event without words says, in strom's own words
	// rather than the agent's: one of the Own values, and for OwnWindow the
	// window's name in Window.
	Own    Own    `json:"own,omitempty"`
	Window string `json:"window,omitempty"`
	// Reset is the reset time as the agent wrote it ("5pm (Europe/Warsaw)",
	// "1760004000"), empty when the message names none; read it with
	// ParseReset.
	Reset string `json:"reset,omitempty"`
	// Agent is the agent whose patterns matched.
	Agent string `json:"agent,omitempty"`
}

// Own names a limit or login event that came without the agent's words.
type Own string

const (
	OwnLimit  Own = "limit"  // a usage limit of the subscription is reached
	OwnWindow Own = "window" // a named limit window (Signal.Window) is reached
	Own429    Own = "api429" // API error 429 on a subscription
	Own401    Own = "api401" // API error 401: the login is not valid
	OwnLogin  Own = "login"  // the client could not authenticate
)

// Patterns are the RE2 regular expressions that recognise one agent's limit
// and login messages. Agent profiles carry them, so a user can override them in
// settings when an agent changes its wording.
//
// Each expression is matched against one screen cell (a line, or a column of
// a line) normalized as by Normalize, with leading TUI glyphs (⎿ ● ■ ❯ > ⏺ ✕
// ⚠ ·) removed, and joined with the cells that follow it so that a message the
// TUI wrapped still matches. Expressions should start with ^ so that a message
// quoted inside other output (a grep result, a string literal, prose) does not
// match, and may capture the reset time in a group named "reset".
type Patterns struct {
	Agent string   `json:"agent,omitempty"`
	Limit []string `json:"limit"`
	Login []string `json:"login"`
}

//go:embed patterns.json
var patternsJSON []byte

// defaults parses the embedded patterns once; the package tests guarantee
// that they parse and compile.
var defaults = sync.OnceValue(func() map[string]Patterns {
	var m map[string]Patterns
	if err := json.Unmarshal(patternsJSON, &m); err != nil {
		panic(fmt.Sprintf("limits: parse embedded patterns.json: %v", err))
	}
	for agent, p := range m {
		p.Agent = agent
		m[agent] = p
	}
	return m
})

// Defaults returns the built-in patterns for an agent: "claude", "codex",
// "opencode", "grok" or "gemini". An unknown agent gets empty patterns (with
// Agent set), which match nothing.
//
// "all" is every built-in pattern together: the command profile uses it, because
// any program may be one of these agents behind a wrapper script.
func Defaults(agent string) Patterns {
	if agent == AllAgents {
		var all Patterns
		for _, a := range Agents() {
			p := defaults()[a]
			all.Limit = append(all.Limit, p.Limit...)
			all.Login = append(all.Login, p.Login...)
		}
		all.Agent = agent
		return all
	}
	p, ok := defaults()[agent]
	if !ok {
		return Patterns{Agent: agent}
	}
	return Patterns{Agent: agent, Limit: slices.Clone(p.Limit), Login: slices.Clone(p.Login)}
}

// AllAgents is the pattern set made of every agent's built-in patterns.
const AllAgents = "all"

// Agents lists the agents that have built-in patterns, sorted.
func Agents() []string {
	var out []string
	for a := range defaults() {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Validate reports the first expression that does not compile. Match skips
// such expressions, so settings should be validated when they are loaded.
func (p Patterns) Validate() error {
	for _, set := range []struct {
		kind  Kind
		exprs []string
	}{{Limit, p.Limit}, {Login, p.Login}} {
		for i, expr := range set.exprs {
			if _, err := compile(expr); err != nil {
				return fmt.Errorf("compile %s pattern %d of agent %q: %w", set.kind, i, p.Agent, err)
			}
		}
	}
	return nil
}

// compiled caches compiled expressions by source text; patterns are few and
// shared by every session, and Match runs on every chunk of output.
var compiled sync.Map // string → compiledExpr

type compiledExpr struct {
	pat pattern
	err error
}

func compile(expr string) (pattern, error) {
	if c, ok := compiled.Load(expr); ok {
		c := c.(compiledExpr)
		return c.pat, c.err
	}
	var c compiledExpr
	re, err := regexp.Compile(expr)
	if err != nil {
		c.err = err
	} else {
		c.pat = pattern{re: re, endAnchored: endAnchored(expr), first: firstBytes(expr)}
	}
	compiled.Store(expr, c)
	return c.pat, c.err
}

// pattern is a compiled expression and what Match needs to know about it.
type pattern struct {
	re *regexp.Regexp
	// endAnchored expressions ($, \z) may match a window but fail on a longer
	// one; all others that match a window also match every extension of it.
	endAnchored bool
	// first holds the bytes a match can start with, when known; an anchored
	// expression cannot match a window that starts with any other byte. It
	// saves running the regexp on almost every cell of a long scrollback.
	first *[256]bool
}

// canStart reports whether a match could start with the first byte of s.
func (p pattern) canStart(s string) bool {
	return p.first == nil || (s != "" && p.first[s[0]])
}

// compileAll compiles the expressions that compile and leaves out the rest.
func compileAll(exprs []string) []pattern {
	out := make([]pattern, 0, len(exprs))
	for _, e := range exprs {
		if pat, err := compile(e); err == nil {
			out = append(out, pat)
		}
	}
	return out
}

// endAnchored reports whether expr tests for the end of the text or a line.
func endAnchored(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return true
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		if r.Op == syntax.OpEndText || r.Op == syntax.OpEndLine {
			return true
		}
		return slices.ContainsFunc(r.Sub, walk)
	}
	return walk(re)
}

// firstBytes returns the bytes a match of an expression anchored at the start
// must begin with, or nil when the expression is not anchored, may match the
// empty string, or starts in a way this does not follow (such as ".").
func firstBytes(expr string) *[256]bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil || prog.StartCond()&(syntax.EmptyBeginText|syntax.EmptyBeginLine) == 0 {
		return nil
	}
	var set [256]bool
	nullable, known := addFirst(&set, re)
	if nullable || !known {
		return nil
	}
	return &set
}

// addFirst adds to set the first bytes of what r matches; it reports whether r
// may match the empty string and whether it could tell.
func addFirst(set *[256]bool, r *syntax.Regexp) (nullable, known bool) {
	switch r.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText,
		syntax.OpEndLine, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true, true
	case syntax.OpLiteral:
		if len(r.Rune) == 0 {
			return true, true
		}
		c := r.Rune[0]
		addRune(set, c)
		if r.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
				addRune(set, f)
			}
		}
		return false, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(r.Rune); i += 2 {
			lo, hi := r.Rune[i], r.Rune[i+1]
			for c := lo; c <= hi && c < utf8.RuneSelf; c++ {
				set[c] = true
			}
			if hi >= utf8.RuneSelf {
				// Any multi-byte lead byte: precise enough for a prefilter.
				for b := 0xc0; b < 0x100; b++ {
					set[b] = true
				}
			}
		}
		return false, true
	case syntax.OpCapture, syntax.OpPlus:
		return addFirst(set, r.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		_, known := addFirst(set, r.Sub[0])
		return true, known
	case syntax.OpRepeat:
		n, known := addFirst(set, r.Sub[0])
		return n || r.Min == 0, known
	case syntax.OpConcat:
		for _, sub := range r.Sub {
			n, known := addFirst(set, sub)
			if !known {
				return false, false
			}
			if !n {
				return false, true
			}
		}
		return true, true
	case syntax.OpAlternate:
		nullable := false
		for _, sub := range r.Sub {
			n, known := addFirst(set, sub)
			if !known {
				return false, false
			}
			nullable = nullable || n
		}
		return nullable, true
	}
	return false, false
}

func addRune(set *[256]bool, c rune) {
	var buf [utf8.UTFMax]byte
	utf8.EncodeRune(buf[:], c)
	set[buf[0]] = true
}
