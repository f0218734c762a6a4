// Package fakemodel is a scripted model server for end-to-end tests: it speaks
// enough of Anthropic's Messages API, OpenAI's Responses API and Chat Completions
// (streamed over SSE, or answered whole) for the real Claude Code, Codex, OpenCode
// and Grok CLI clients to run against it offline. A scenario is a list of turns; each turn calls
// tools (the client's Bash, Write, …) one answer at a time and then ends with text,
// or answers with an error. Every request is recorded, so a test can assert what
// the client sent, including text typed into its TUI.
//
// The server is stateless about the conversation: which turn and which step to
// answer is read from the messages the client sends, so the client's retries and
// side requests (titles, summaries) never shift the script.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Step is one tool call of a turn.
type Step struct {
	Tool  string         // the tool's name: Bash, Write, …
	Input map[string]any // the tool's input
}

// Bash returns one Bash step per command.
func Bash(commands ...string) []Step {
	steps := make([]Step, 0, len(commands))
	for _, c := range commands {
		steps = append(steps, Step{Tool: "Bash", Input: map[string]any{"command": c, "description": "run " + c}})
	}
	return steps
}

// Write returns a step that writes a file with the Write tool.
func Write(path, content string) Step {
	return Step{Tool: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

// Error is an error answer: Status (429, 401, …) with the API's error JSON.
type Error struct {
	Status  int
	Type    string // rate_limit_error, authentication_error, …
	Message string
	Header  map[string]string // extra headers, such as the subscriber's rate-limit ones
	// Code and Extra are the OpenAI error's code and further fields (plan_type,
	// resets_at); the Messages API sends neither.
	Code  string
	Extra map[string]any
	// Body, when set, is the whole JSON body instead.
	Body map[string]any
}

// Turn is the model's answer to one message of the user.
type Turn struct {
	// When, if set, starts this turn at the first user message that contains it;
	// turns without When answer the user's messages in order.
	When string
	// Steps are the tool calls, one answer each; each next request carries the
	// previous call's tool_result.
	Steps []Step
	// Text closes the turn (stop_reason end_turn); "" = "Done.".
	Text string
	// Error answers the turn's requests instead: all of them, or the first
	// ErrorTimes (a limit that passes, such as a rate limit the client waits out
	// and tries again).
	Error      *Error
	ErrorTimes int
}

// Request is one request the client sent.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	// Main: the request of the main conversation (its tools include Bash); the
	// others are titles, summaries and checks.
	Main bool
	// UserText is the text of the last user message, without system reminders.
	UserText string
	// API is the API the request spoke: "messages", "responses" or "chat".
	API string
	// At is when the request arrived.
	At time.Time
}

// RateLimitError returns the subscriber's 429: the limit of claim ("five_hour"
// or "seven_day") is reached and resets at reset (epoch seconds).
func RateLimitError(claim string, reset int64) *Error {
	return &Error{
		Status: 429, Type: "rate_limit_error",
		Message: "This request would exceed your account's rate limit. Please try again later.",
		Header: map[string]string{
			"anthropic-ratelimit-unified-status":               "rejected",
			"anthropic-ratelimit-unified-reset":                fmt.Sprint(reset),
			"anthropic-ratelimit-unified-representative-claim": claim,
		},
	}
}

// UtilizationHeaders are the headers of a 200 answer that tell a subscriber's
// usage: five-hour and week used (0–1) and their resets (epoch seconds).
func UtilizationHeaders(fiveHour, week float64, fiveHourReset, weekReset int64) map[string]string {
	return map[string]string{
		"anthropic-ratelimit-unified-status":               "allowed",
		"anthropic-ratelimit-unified-5h-utilization":       fmt.Sprint(fiveHour),
		"anthropic-ratelimit-unified-5h-reset":             fmt.Sprint(fiveHourReset),
		"anthropic-ratelimit-unified-5h-status":            "allowed",
		"anthropic-ratelimit-unified-7d-utilization":       fmt.Sprint(week),
		"anthropic-ratelimit-unified-7d-reset":             fmt.Sprint(weekReset),
		"anthropic-ratelimit-unified-7d-status":            "allowed",
		"anthropic-ratelimit-unified-reset":                fmt.Sprint(fiveHourReset),
		"anthropic-ratelimit-unified-representative-claim": "five_hour",
	}
}

// Server is a running scripted model server.
type Server struct {
	// URL is http://127.0.0.1:PORT, for ANTHROPIC_BASE_URL.
	URL string

	mu     sync.Mutex
	errors map[int]int // errors answered per turn
	turns  []Turn
	header map[string]string
	reqs   []Request
	ln     net.Listener
	srv    *http.Server
}

// Start serves turns on a free port of 127.0.0.1. header is sent with every 200
// answer (nil for none).
func Start(turns []Turn, header map[string]string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the model server: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), turns: turns, header: header, ln: ln}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// SetTurns replaces the scenario.
func (s *Server) SetTurns(turns []Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns, s.errors = turns, nil
}

// Requests returns every request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// UserTexts returns the user texts of the main conversation's requests, each once,
// in the order they first arrived.
func (s *Server) UserTexts() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.Requests() {
		if r.Main && r.UserText != "" && !seen[r.UserText] {
			seen[r.UserText] = true
			out = append(out, r.UserText)
		}
	}
	return out
}

// The wire shapes of the requests, as far as the server reads them.
type apiRequest struct {
	Model    string       `json:"model"`
	Stream   bool         `json:"stream"`
	Messages []apiMessage `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type apiBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	ID   string `json:"id"`
}

// blocks reads a message's content, a string or a list of blocks.
func (m apiMessage) blocks() []apiBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []apiBlock{{Type: "text", Text: s}}
	}
	var bs []apiBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// userText is a user message's own text (no system reminders) and whether it
// carries a tool result.
func (m apiMessage) userText() (string, bool) {
	var parts []string
	result := false
	for _, b := range m.blocks() {
		switch b.Type {
		case "tool_result":
			result = true
		case "text":
			if ownText(b.Text) {
				parts = append(parts, strings.TrimSpace(b.Text))
			}
		}
	}
	return strings.Join(parts, "\n"), result
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodHead || r.Method == http.MethodGet && r.URL.Path == "/":
		w.WriteHeader(http.StatusOK)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		s.record(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"input_tokens":12}`)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		s.serveResponses(w, r, body)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.serveChat(w, r, body)
		return
	default:
		s.record(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		http.NotFound(w, r)
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	main := false
	for _, t := range req.Tools {
		main = main || t.Name == "Bash"
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Main: main, API: "messages"}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			rec.UserText, _ = req.Messages[i].userText()
			break
		}
	}
	s.record(rec)

	a := s.answerFor(main, anthropicConv(req.Messages))
	if a.err != nil {
		writeError(w, a.err)
		return
	}
	s.setHeader(w)
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	if !req.Stream {
		writeJSON(w, model, a)
		return
	}
	writeSSE(w, model, a)
}

// answerFor is the reply to a request: the script's next step for the main
// conversation, a title for the client's side requests.
func (s *Server) answerFor(main bool, conv []convItem) answer {
	if !main {
		return answer{text: "Strom task"}
	}
	s.mu.Lock()
	turns := s.turns
	s.mu.Unlock()
	return s.next(turns, conv)
}

// setHeader sets the headers every 200 answer carries.
func (s *Server) setHeader(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.header {
		w.Header().Set(k, v)
	}
}

func (s *Server) record(r Request) {
	r.At = time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
}

// answer is one reply: a tool call, closing text, or an error.
type answer struct {
	step *Step
	id   string
	text string
	err  *Error
}

// convItem is one thing of the conversation that next reads: a user's own text,
// or the id of a tool call the model made.
type convItem struct {
	user string
	call string
}

// anthropicConv reads a Messages API conversation.
func anthropicConv(msgs []apiMessage) []convItem {
	var items []convItem
	for _, m := range msgs {
		for _, b := range m.blocks() {
			switch {
			case m.Role == "user" && b.Type == "text" && ownText(b.Text):
				items = append(items, convItem{user: b.Text})
			case m.Role == "assistant" && b.Type == "tool_use":
				items = append(items, convItem{call: b.ID})
			}
		}
	}
	return items
}

// next reads from the conversation which turn the last user message belongs to
// and which of its steps were answered, and returns the next reply. A client
// merges and reorders messages as it sends them again (consecutive user texts and
// tool results end up in one message), so only two things are read: the user's
// own texts, in order, and the ids of the tool calls already made, which name
// their turn and step.
func (s *Server) next(turns []Turn, items []convItem) answer {
	used := make([]bool, len(turns))
	pick := func(text string) int {
		for i, t := range turns {
			if !used[i] && t.When != "" && strings.Contains(text, t.When) {
				used[i] = true
				return i
			}
		}
		for i, t := range turns {
			if !used[i] && t.When == "" {
				used[i] = true
				return i
			}
		}
		return -1
	}
	cur := -1
	done := map[string]bool{}
	for _, it := range items {
		if it.call != "" {
			done[it.call] = true
			continue
		}
		cur = pick(it.user)
	}
	if cur < 0 {
		return answer{text: "Nothing to do."}
	}
	t := turns[cur]
	if t.Error != nil {
		s.mu.Lock()
		n := s.errors[cur]
		if t.ErrorTimes == 0 || n < t.ErrorTimes {
			if s.errors == nil {
				s.errors = map[int]int{}
			}
			s.errors[cur]++
			s.mu.Unlock()
			return answer{err: t.Error}
		}
		s.mu.Unlock()
	}
	for i := range t.Steps {
		if id := stepID(cur, i); !done[id] {
			return answer{step: &t.Steps[i], id: id}
		}
	}
	if t.Text != "" {
		return answer{text: t.Text}
	}
	return answer{text: "Done."}
}

// stepID names a tool call by its turn and step.
func stepID(turn, step int) string { return fmt.Sprintf("toolu_fake_%02d_%02d", turn, step) }

// ownText reports whether a user text block is the user's own words, not what
// the client added: Claude Code's system reminders, Codex's <environment_context>,
// <user_instructions> and AGENTS.md blocks.
func ownText(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "# AGENTS.md instructions") {
		return false
	}
	if tag, ok := strings.CutPrefix(s, "<"); ok {
		if end := strings.IndexByte(tag, '>'); end > 0 && !strings.ContainsAny(tag[:end], "<\n") {
			return false
		}
	}
	return true
}

func writeError(w http.ResponseWriter, e *Error) {
	for k, v := range e.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("x-should-retry", "false")
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(e.Status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": e.Type, "message": e.Message}})
	w.Write(b)
}

func usage() map[string]int { return map[string]int{"input_tokens": 12, "output_tokens": 5} }

func writeJSON(w http.ResponseWriter, model string, a answer) {
	content := []any{map[string]string{"type": "text", "text": a.text}}
	stop := "end_turn"
	if a.step != nil {
		content = []any{map[string]any{"type": "tool_use", "id": a.id, "name": a.step.Tool, "input": a.step.Input}}
		stop = "tool_use"
	}
	w.Header().Set("content-type", "application/json")
	b, _ := json.Marshal(map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage()})
	w.Write(b)
}

func writeSSE(w http.ResponseWriter, model string, a answer) {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		flush()
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 12, "output_tokens": 1}}})
	stop := "end_turn"
	if a.step != nil {
		stop = "tool_use"
		input, _ := json.Marshal(a.step.Input)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": a.id, "name": a.step.Tool, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": a.text}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// Shape sums up a request's messages, for failure messages: each message's role
// and its blocks' types, such as "user[text text] assistant[tool_use]".
func (r Request) Shape() string {
	var req apiRequest
	if json.Unmarshal(r.Body, &req) != nil {
		return "(not JSON)"
	}
	var parts []string
	for _, m := range req.Messages {
		var types []string
		for _, b := range m.blocks() {
			types = append(types, b.Type)
		}
		parts = append(parts, m.Role+"["+strings.Join(types, " ")+"]")
	}
	return strings.Join(parts, " ")
}
