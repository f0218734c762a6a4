package limits

import "encoding/json"

// MatchMessageLine reads one output line of an agent that writes one JSON chat
// message a line, as Grok CLI does headless ({"role":"assistant","content":"…"}).
// Such an agent reports an API error as the assistant's own message ("Sorry, I
// encountered an error: Grok API error: 429 …") and exits 0, so the assistant
// messages are matched against the patterns; the user's and the tools' messages
// never are, so a tool output quoting a limit message does not count.
func (p Patterns) MatchMessageLine(line []byte) (Signal, bool) {
	if len(line) == 0 || line[0] != '{' {
		return Signal{}, false
	}
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(line, &m) != nil || m.Role != "assistant" {
		return Signal{}, false
	}
	var content string
	if json.Unmarshal(m.Content, &content) != nil || content == "" {
		return Signal{}, false
	}
	return p.Match(content)
}
