package agents

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/research"
)

// maxStreamLine bounds one stream-json line kept for reading: the lines that carry
// limit and login signals are short, a tool result may be huge, and a line longer
// than this is skipped rather than held in memory.
const maxStreamLine = 1 << 20

// StreamSignals reads an agent's stream-json output line by line (R7.6): Claude
// Code's rate_limit_event and result lines say "subscription limit" and "not logged
// in" more reliably than any screen text, so they are read first.
type StreamSignals struct {
	// messages: the lines are JSON chat messages (Profile.MessageJSON), read with
	// pats; otherwise Claude Code stream-json.
	messages bool
	pats     limits.Patterns

	mu       sync.Mutex
	line     []byte
	skipping bool // the current line grew past maxStreamLine
	sig      *limits.Signal
	// model and version: what Claude Code's stream-json says of itself (its
	// system/init line, else an assistant message's model).
	model, version string
}

// NewStreamSignals reads the limits an agent whose output is a stream of JSON
// lines (prof.StreamJSON or prof.MessageJSON) says.
func NewStreamSignals(prof Profile) *StreamSignals {
	return &StreamSignals{messages: prof.MessageJSON, pats: prof.Patterns()}
}

// Output is the agentpty Output callback; nil for an agent without stream-json.
func (s *StreamSignals) Output() func([]byte) {
	if s == nil {
		return nil
	}
	return s.write
}

// write splits output into lines and reads each whole line; it runs on the pty's
// reading goroutine and keeps no reference to p.
func (s *StreamSignals) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if !s.skipping {
			s.line = append(s.line, part...)
			if len(s.line) > maxStreamLine {
				s.line, s.skipping = s.line[:0], true
			}
		}
		if i < 0 {
			return
		}
		if !s.skipping {
			line := bytes.TrimSpace(s.line)
			if sig, ok := s.parse(line); ok {
				s.sig = &sig // the last signal is the agent's latest word
			}
			if !s.messages {
				s.noteModel(line)
			}
		}
		s.line, s.skipping = s.line[:0], false
		p = p[i+1:]
	}
}

// parse reads one whole line.
func (s *StreamSignals) parse(line []byte) (limits.Signal, bool) {
	if s.messages {
		return s.pats.MatchMessageLine(line)
	}
	return limits.ParseStreamJSON(line)
}

// noteModel reads the model and the client's version from a stream-json line:
// the system/init line names both, an assistant message its model.
func (s *StreamSignals) noteModel(line []byte) {
	if s.version != "" || !bytes.Contains(line, []byte(`"model"`)) {
		return // the init line was read: it named the session's model
	}
	var ev struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Model   string `json:"model"`
		Version string `json:"claude_code_version"`
		Message struct {
			Model string `json:"model"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	switch {
	case ev.Type == "system" && ev.Subtype == "init":
		if m := ModelText(ev.Model); m != "" {
			s.model = m
		}
		s.version = ModelText(ev.Version)
	case ev.Type == "assistant" && s.model == "":
		s.model = ModelText(ev.Message.Model)
	}
}

// Model is the model and the client's version the agent's stream-json said, ""
// for what it did not say.
func (s *StreamSignals) Model() (model, version string) {
	if s == nil {
		return "", ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model, s.version
}

// signal returns the latest structured signal read so far.
func (s *StreamSignals) signal() (limits.Signal, bool) {
	if s == nil {
		return limits.Signal{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig == nil {
		return limits.Signal{}, false
	}
	return *s.sig, true
}

// AgentSignal is what the agent said about its limit or login: a structured
// stream-json signal first, the profile's screen patterns on the screen's tail second.
func AgentSignal(stream *StreamSignals, pats limits.Patterns, tail []byte) (limits.Signal, bool) {
	if sig, ok := stream.signal(); ok {
		return sig, true
	}
	return pats.Match(string(tail))
}

// resetDetail says when a subscription limit resets, read in the zone the agent
// named (local time when it named none) and shown in that zone; only what the agent
// said is shown.
// resetUnknown is the reset detail when the agent did not say one.
const ResetUnknown = "the agent did not say when it resets"

func ResetDetail(r *research.Research, raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ResetUnknown
	}
	t, ok := limits.ParseReset(raw, r.Now(), time.Local)
	if !ok {
		return "resets " + raw
	}
	return limits.DescribeReset(t, nil)
}

// LoginAdvice is what a person runs to log the agent in: its program, with Claude
// Code's own config folder when it has one.
func LoginAdvice(r *research.Research, p SessionPlan) string {
	if IsClaude(p.Profile) {
		dir := ""
		if separateClaudeDir(p.ClaudeDir, r.Getenv("HOME")) {
			dir = p.ClaudeDir
		}
		return claudeusage.LoginAdvice(dir)
	}
	bin := p.Profile.Binary
	if bin == "" {
		// A command or the demo: strom does not know the program's login.
		return LoginUnknown
	}
	return "run " + bin + " once and log in"
}

// LoginUnknown is the login advice for an agent whose program strom does not
// know (a command, the demo).
const LoginUnknown = "run the agent once and log in"
