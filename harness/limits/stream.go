package limits

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// streamEvent holds the fields of a Claude Code stream-json message or a Codex
// --json event that carry limit and login signals. Fields whose type differs
// between the two (error, message) stay raw.
type streamEvent struct {
	Type           string          `json:"type"`
	RateLimitInfo  *rateLimitInfo  `json:"rate_limit_info"`
	IsError        bool            `json:"is_error"`
	APIErrorStatus json.RawMessage `json:"api_error_status"`
	TerminalReason string          `json:"terminal_reason"`
	Result         json.RawMessage `json:"result"`
	Error          json.RawMessage `json:"error"`
	Message        json.RawMessage `json:"message"`
}

type rateLimitInfo struct {
	Status        string   `json:"status"`
	ResetsAt      *float64 `json:"resetsAt"`
	RateLimitType string   `json:"rateLimitType"`
	Utilization   *float64 `json:"utilization"`
}

// ParseStreamJSON reads one line of Claude Code stream-json (or json) output
// or of Codex --json events and reports a limit or login signal in it. These
// structured signals are more reliable than screen text and should be
// preferred to Match when the agent runs headless.
//
// Claude Code: a rate_limit_event whose status is "rejected" (Reset is the
// resetsAt epoch); a result whose terminal_reason is "blocking_limit", or
// whose result text is a subscription limit message (api_error_status 429,
// terminal_reason "api_error"), with Reset taken from that text; a result with
// api_error_status 401 or a login message is Login; an assistant message with
// error "rate_limit" is a Limit and "authentication_failed" is Login. A 429
// that is an API-key rate limit ("Request rejected (429)") or a billing error
// is no subscription limit and gives no signal. Codex: turn.failed and error
// events whose message is a usage-limit or login message.
func ParseStreamJSON(line []byte) (Signal, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Signal{}, false
	}
	var ev streamEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return Signal{}, false
	}
	switch ev.Type {
	case "rate_limit_event":
		if ev.RateLimitInfo == nil || ev.RateLimitInfo.Status != "rejected" {
			return Signal{}, false
		}
		s := Signal{Kind: Limit, Own: OwnLimit, Agent: "claude"}
		if w := ev.RateLimitInfo.RateLimitType; w != "" {
			s.Own, s.Window = OwnWindow, w
		}
		if ev.RateLimitInfo.ResetsAt != nil && *ev.RateLimitInfo.ResetsAt > 0 {
			s.Reset = strconv.FormatInt(int64(*ev.RateLimitInfo.ResetsAt), 10)
		}
		return s, true
	case "result":
		return claudeResult(ev, line)
	case "assistant":
		return claudeAssistant(ev, line)
	case "turn.failed":
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(ev.Error, &e) != nil {
			return Signal{}, false
		}
		return Defaults("codex").Match(e.Message)
	case "error":
		var msg string
		if json.Unmarshal(ev.Message, &msg) != nil {
			return Signal{}, false
		}
		return Defaults("codex").Match(msg)
	}
	return Signal{}, false
}

func claudeResult(ev streamEvent, line []byte) (Signal, bool) {
	var text string
	_ = json.Unmarshal(ev.Result, &text) // a result that is no string has no text
	status, _ := strconv.Atoi(strings.TrimSpace(string(ev.APIErrorStatus)))
	// A successful answer may quote a limit message; only a failed turn
	// reports one.
	failed := ev.IsError || status == 429 || status == 401 ||
		ev.TerminalReason == "api_error" || ev.TerminalReason == "blocking_limit"
	if s, ok := Defaults("claude").Match(text); ok && failed {
		return s, true
	}
	switch {
	case ev.TerminalReason == "blocking_limit":
		return orOwn(Signal{Kind: Limit, Agent: "claude"}, text, OwnLimit), true
	case status == 429 && !apiKeyRateLimit(text) && !billing(text):
		// A 429 on a subscription is its limit, whatever words come with it.
		return orOwn(Signal{Kind: Limit, Agent: "claude"}, text, Own429), true
	case status == 401:
		return orOwn(Signal{Kind: Login, Agent: "claude"}, text, Own401), true
	}
	return Signal{}, false
}

// orOwn gives s the agent's own one-line text, or when it gave none, the event
// own names: a raw JSON line is never shown to a person.
func orOwn(s Signal, text string, own Own) Signal {
	if t := strings.Join(strings.Fields(text), " "); t != "" {
		s.Text = t
	} else {
		s.Own = own
	}
	return s
}

// billing reports Claude Code's messages for an account without credit: no limit
// that resets.
func billing(text string) bool {
	n := strings.ToLower(Normalize(text))
	return strings.Contains(n, "credit balance") || strings.Contains(n, "billing")
}

func claudeAssistant(ev streamEvent, line []byte) (Signal, bool) {
	var code string
	if json.Unmarshal(ev.Error, &code) != nil || code == "" {
		return Signal{}, false
	}
	var m struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(ev.Message, &m) // the error code alone is enough
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" && c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	text := strings.Join(parts, "\n")
	switch code {
	case "rate_limit":
		if s, ok := Defaults("claude").Match(text); ok {
			return s, true
		}
		if apiKeyRateLimit(text) {
			return Signal{}, false
		}
		return orOwn(Signal{Kind: Limit, Agent: "claude"}, text, OwnLimit), true
	case "authentication_failed":
		return orOwn(Signal{Kind: Login, Agent: "claude"}, text, OwnLogin), true
	}
	return Signal{}, false
}

// apiKeyRateLimit reports Claude Code's message for a 429 on API-key billing,
// which slows the run down but is no subscription limit.
func apiKeyRateLimit(text string) bool {
	n := Normalize(text)
	return strings.Contains(n, "Request rejected (429)") || strings.Contains(n, "exceed your account's rate limit")
}

// Usage is one rate-limit report of Claude Code (a stream-json
// rate_limit_event): how much of a limit window is used and when it resets.
type Usage struct {
	// Status is "allowed", "allowed_warning" or "rejected".
	Status string `json:"status"`
	// Type is the limit window: "five_hour", "seven_day", "seven_day_opus", ….
	Type string `json:"type,omitempty"`
	// Utilization is the share used, 0–100, when HasUtilization.
	Utilization    float64 `json:"utilization,omitempty"`
	HasUtilization bool    `json:"-"`
	// ResetsAt is when the window resets; zero when not reported.
	ResetsAt time.Time `json:"resets_at,omitzero"`
}

// ParseRateLimitEvent reads a stream-json rate_limit_event line, whatever its
// status, into a Usage report; it reports false for any other line.
func ParseRateLimitEvent(line []byte) (Usage, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Usage{}, false
	}
	var ev streamEvent
	if json.Unmarshal(line, &ev) != nil || ev.Type != "rate_limit_event" || ev.RateLimitInfo == nil {
		return Usage{}, false
	}
	info := ev.RateLimitInfo
	u := Usage{Status: info.Status, Type: info.RateLimitType}
	if info.Utilization != nil {
		u.Utilization, u.HasUtilization = *info.Utilization, true
	}
	if info.ResetsAt != nil && *info.ResetsAt > 0 {
		u.ResetsAt = time.Unix(int64(*info.ResetsAt), 0)
	}
	return u, true
}
