package agents

import (
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
)

func TestStreamSignals(t *testing.T) {
	t.Parallel()
	rejected := `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796032800,"rateLimitType":"five_hour"}}`
	tests := []struct {
		name   string
		chunks []string
		kind   limits.Kind
		reset  string
	}{
		{name: "nothing", chunks: []string{"hello\r\n"}},
		{name: "a rejected event in one chunk", chunks: []string{rejected + "\r\n"}, kind: limits.Limit, reset: "1796032800"},
		{name: "split across chunks", chunks: []string{rejected[:20], rejected[20:50], rejected[50:] + "\n"}, kind: limits.Limit, reset: "1796032800"},
		{name: "a line without its end is not read yet", chunks: []string{rejected}},
		{name: "allowed is no signal", chunks: []string{strings.Replace(rejected, "rejected", "allowed", 1) + "\n"}},
		{name: "a 401 result", chunks: []string{`{"type":"result","is_error":true,"api_error_status":401,"result":"Failed to authenticate"}` + "\n"}, kind: limits.Login},
		{name: "the last signal wins", chunks: []string{`{"type":"result","is_error":true,"api_error_status":401,"result":"x"}` + "\n" + rejected + "\n"}, kind: limits.Limit, reset: "1796032800"},
		{name: "an overlong line is skipped", chunks: []string{strings.Repeat("x", maxStreamLine+10), rejected + "\n"}},
		{name: "and the next line is read", chunks: []string{strings.Repeat("x", maxStreamLine+10), "\n", rejected + "\n"}, kind: limits.Limit, reset: "1796032800"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &StreamSignals{}
			for _, c := range tt.chunks {
				s.Output()([]byte(c))
			}
			sig, ok := s.signal()
			if ok != (tt.kind != 0) || sig.Kind != tt.kind || sig.Reset != tt.reset {
				t.Errorf("signal = %+v, %v; want kind %v reset %q", sig, ok, tt.kind, tt.reset)
			}
		})
	}
	var none *StreamSignals
	if none.Output() != nil {
		t.Error("a nil scanner gives an Output callback")
	}
}

// TestMessageSignals: Grok CLI headless writes one JSON message a line and reports
// an API error as the assistant's message; only the assistant's messages count.
func TestMessageSignals(t *testing.T) {
	t.Parallel()
	msg := func(role, content string) string {
		return `{"role":"` + role + `","content":"` + content + `"}` + "\r\n"
	}
	tests := []struct {
		name  string
		lines []string
		kind  limits.Kind
	}{
		{"a tool turn", []string{msg("user", "do it"), msg("tool", "Command executed successfully"), msg("assistant", "done")}, 0},
		{"the quota", []string{msg("assistant", "Sorry, I encountered an error: Grok API error: 429 You exceeded your current quota, please check your plan")}, limits.Limit},
		{"a refused key", []string{msg("assistant", "Sorry, I encountered an error: Grok API error: 401 Incorrect API key provided: sk-test.")}, limits.Login},
		{"a plain rate limit", []string{msg("assistant", "Sorry, I encountered an error: Grok API error: 429 Rate limit reached for grok-code-fast-1. Please try again in 2s.")}, 0},
		{"a tool output quoting the quota", []string{msg("tool", "Sorry, I encountered an error: Grok API error: 429 You exceeded your current quota")}, 0},
		{"Claude Code's stream-json is not read", []string{`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796032800}}` + "\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &StreamSignals{messages: true, pats: limits.Defaults("grok")}
			for _, l := range tt.lines {
				s.Output()([]byte(l))
			}
			sig, ok := s.signal()
			if ok != (tt.kind != 0) || sig.Kind != tt.kind {
				t.Errorf("signal = %+v, %v; want kind %v", sig, ok, tt.kind)
			}
		})
	}
}

func TestAgentSignalPrefersStream(t *testing.T) {
	t.Parallel()
	s := &StreamSignals{}
	s.write([]byte(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796032800}}` + "\n"))
	sig, ok := AgentSignal(s, limits.Defaults("claude"), []byte("You've hit your limit · resets 7am (UTC)\n"))
	if !ok || sig.Reset != "1796032800" {
		t.Errorf("signal = %+v, %v; want the stream's", sig, ok)
	}
	sig, ok = AgentSignal(nil, limits.Defaults("claude"), []byte("You've hit your limit · resets 7am (UTC)\n"))
	if !ok || sig.Reset != "7am (UTC)" {
		t.Errorf("screen signal = %+v, %v", sig, ok)
	}
}

func TestResetDetail(t *testing.T) {
	t.Parallel()
	r := &research.Research{Clock: clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))}
	tests := []struct{ raw, want string }{
		{"", "the agent did not say when it resets"},
		{"11pm (America/Anchorage)", "resets 11:00 PM Mon Nov 30 (America/Anchorage)"},
		{"Jul 27 at 4:30am (Asia/Calcutta)", "resets 4:30 AM Tue Jul 27 (Asia/Calcutta)"},
		{"whenever it likes", "resets whenever it likes"},
	}
	for _, tt := range tests {
		if got := ResetDetail(r, tt.raw); got != tt.want {
			t.Errorf("resetDetail(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
