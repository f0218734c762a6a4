package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The OpenAI side of the server: the Responses API (Codex; OpenCode with
// @ai-sdk/openai) and Chat Completions (OpenCode with @ai-sdk/openai-compatible,
// Grok CLI through the openai SDK), streamed over SSE or answered whole. A Bash
// step becomes a call to the client's own shell tool, found by name among the
// request's tools; a Write step becomes a shell command that writes the file.

// shellTools are the shell tools of the clients, by name, with the argument that
// carries the command: Codex's exec_command, OpenCode's and Grok CLI's bash, and
// the older Codex shell tool (a command list).
var shellTools = []struct{ name, arg string }{
	{"exec_command", "cmd"},
	{"bash", "command"},
	{"shell", "command"},
}

// shellCall returns the tool call that carries out step for a client offering
// tools: the name and the JSON arguments; ok is false when the client has no
// shell tool.
func shellCall(step Step, tools []string) (string, string, bool) {
	cmd := stepCommand(step)
	for _, st := range shellTools {
		for _, t := range tools {
			if t != st.name {
				continue
			}
			args := map[string]any{st.arg: cmd}
			switch st.name {
			case "bash":
				args["description"] = "run " + firstLine(cmd)
			case "shell":
				args[st.arg] = []string{"bash", "-lc", cmd}
			}
			b, _ := json.Marshal(args)
			return st.name, string(b), true
		}
	}
	return "", "", false
}

// stepCommand is a step as one shell command: a Bash step's command, a Write
// step's file written with printf.
func stepCommand(step Step) string {
	if c, ok := step.Input["command"].(string); ok && step.Tool == "Bash" {
		return c
	}
	path, _ := step.Input["file_path"].(string)
	content, _ := step.Input["content"].(string)
	dir := "."
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		dir = path[:i]
	}
	return fmt.Sprintf("mkdir -p %s && printf '%%s' %s > %s", shQuote(dir), shQuote(content), shQuote(path))
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// OpenAI errors, as the OpenAI API and ChatGPT's Codex backend send them.

// UsageLimitError is the ChatGPT plan's 429: the usage limit of plan ("plus",
// "pro", "free", "team") is reached and resets at reset. Codex prints "You've hit
// your usage limit. … or try again at 10:30 AM." with the reset in local time.
func UsageLimitError(plan string, reset time.Time) *Error {
	secs := int64(time.Until(reset).Seconds())
	if secs < 0 {
		secs = 0
	}
	return &Error{
		Status: 429, Type: "usage_limit_reached", Message: "The usage limit has been reached",
		Extra: map[string]any{"plan_type": plan, "resets_at": reset.Unix(), "resets_in_seconds": secs},
		Header: map[string]string{
			"x-codex-primary-used-percent":          "100",
			"x-codex-primary-window-minutes":        "300",
			"x-codex-primary-reset-at":              fmt.Sprint(reset.Unix()),
			"x-codex-primary-reset-after-seconds":   fmt.Sprint(secs),
			"x-codex-secondary-used-percent":        "40",
			"x-codex-secondary-window-minutes":      "10080",
			"x-codex-secondary-reset-after-seconds": "300000",
		},
	}
}

// InsufficientQuotaError is the API account's 429 for a used-up quota.
func InsufficientQuotaError() *Error {
	return &Error{Status: 429, Type: "insufficient_quota", Code: "insufficient_quota",
		Message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."}
}

// RateLimitExceededError is the plain per-minute 429 of model, to be retried after
// retryAfter seconds: no subscription limit.
func RateLimitExceededError(model string, retryAfter int) *Error {
	return &Error{Status: 429, Type: "requests", Code: "rate_limit_exceeded",
		Message: fmt.Sprintf("Rate limit reached for %s in organization org-mock on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in %ds. Visit https://platform.openai.com/account/rate-limits to learn more.", model, retryAfter),
		Header:  map[string]string{"retry-after": fmt.Sprint(retryAfter)}}
}

// InvalidAPIKeyError is the 401 for a refused API key.
func InvalidAPIKeyError(key string) *Error {
	return &Error{Status: 401, Type: "invalid_request_error", Code: "invalid_api_key",
		Message: "Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys."}
}

// writeOpenAIError answers with the OpenAI error JSON.
func writeOpenAIError(w http.ResponseWriter, e *Error) {
	for k, v := range e.Header {
		w.Header().Set(k, v)
	}
	if _, ok := e.Header["retry-after"]; !ok {
		w.Header().Set("x-should-retry", "false")
	}
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(e.Status)
	body := map[string]any{"message": e.Message, "type": e.Type, "param": nil, "code": nil}
	if e.Code != "" {
		body["code"] = e.Code
	}
	for k, v := range e.Extra {
		body[k] = v
	}
	whole := map[string]any{"error": body}
	if e.Body != nil {
		whole = e.Body
	}
	b, _ := json.Marshal(whole)
	w.Write(b)
}

// MissingKeyError is the OpenAI API's 401 for a request without an API key.
func MissingKeyError() *Error {
	return &Error{Status: 401, Type: "invalid_request_error", Message: "Missing bearer or basic authentication in header"}
}

// GoUsageLimitError is OpenCode Go's 429: the usage limit named limitName
// ("5-hour") is reached and resets after retryAfter. OpenCode shows "5-hour usage
// limit reached. It will reset in 2 hours 30 minutes. …" and waits it out.
func GoUsageLimitError(limitName string, retryAfter time.Duration) *Error {
	return &Error{Status: 429, Type: "GoUsageLimitError", Message: limitName + " usage limit reached",
		Header: map[string]string{"retry-after": fmt.Sprint(int(retryAfter.Seconds()))},
		Body: map[string]any{"type": "error",
			"error":    map[string]any{"type": "GoUsageLimitError", "message": limitName + " usage limit reached"},
			"metadata": map[string]any{"workspace": "wrk_strom", "limitName": limitName}}}
}

// The Responses API.

type responsesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	// Input is a string or a list of items.
	Input json.RawMessage `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
}

func (r responsesRequest) toolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// conv reads the conversation: user messages' own texts and the function calls.
func (r responsesRequest) conv() []convItem {
	var s string
	if json.Unmarshal(r.Input, &s) == nil {
		return []convItem{{user: s}}
	}
	var items []responsesItem
	_ = json.Unmarshal(r.Input, &items)
	var out []convItem
	for _, it := range items {
		switch {
		case it.Type == "function_call" || it.Type == "custom_tool_call":
			out = append(out, convItem{call: it.CallID})
		case (it.Type == "message" || it.Type == "") && it.Role == "user":
			for _, t := range contentTexts(it.Content) {
				if ownText(t) {
					out = append(out, convItem{user: t})
				}
			}
		}
	}
	return out
}

// contentTexts reads a content that is a string or a list of parts with text.
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request, body []byte) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeOpenAIError(w, &Error{Status: 400, Type: "invalid_request_error", Message: "bad json"})
		return
	}
	tools := req.toolNames()
	_, _, main := shellCall(Step{Tool: "Bash", Input: map[string]any{"command": ""}}, tools)
	conv := req.conv()
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Main: main, API: "responses"}
	rec.UserText = lastUser(conv)
	s.record(rec)
	a := s.answerFor(main, conv)
	if !hasKey(r) {
		a = answer{err: MissingKeyError()}
	}
	if a.err != nil {
		writeOpenAIError(w, a.err)
		return
	}
	s.setHeader(w)
	item := responsesOutput(a, tools)
	resp := func(status string, output []any) map[string]any {
		return map[string]any{"id": "resp_fake", "object": "response", "created_at": time.Now().Unix(),
			"status": status, "model": req.Model, "output": output,
			"usage": map[string]any{"input_tokens": 200, "input_tokens_details": map[string]int{"cached_tokens": 0},
				"output_tokens": 20, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 220}}
	}
	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		b, _ := json.Marshal(resp("completed", []any{item}))
		w.Write(b)
		return
	}
	event := sse(w)
	event("response.created", map[string]any{"type": "response.created", "response": resp("in_progress", []any{})})
	if a.step != nil {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["arguments"], added["status"] = "", "in_progress"
		event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": added})
		event("response.function_call_arguments.delta", map[string]any{"type": "response.function_call_arguments.delta",
			"item_id": item["id"], "output_index": 0, "delta": item["arguments"]})
		event("response.function_call_arguments.done", map[string]any{"type": "response.function_call_arguments.done",
			"item_id": item["id"], "output_index": 0, "arguments": item["arguments"]})
	} else {
		event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": item["id"], "role": "assistant", "status": "in_progress", "content": []any{}}})
		part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		event("response.content_part.added", map[string]any{"type": "response.content_part.added", "item_id": item["id"],
			"output_index": 0, "content_index": 0, "part": part})
		event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": item["id"],
			"output_index": 0, "content_index": 0, "delta": a.text})
		event("response.output_text.done", map[string]any{"type": "response.output_text.done", "item_id": item["id"],
			"output_index": 0, "content_index": 0, "text": a.text})
		part["text"] = a.text
		event("response.content_part.done", map[string]any{"type": "response.content_part.done", "item_id": item["id"],
			"output_index": 0, "content_index": 0, "part": part})
	}
	event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	event("response.completed", map[string]any{"type": "response.completed", "response": resp("completed", []any{item})})
}

// responsesOutput is the answer as one output item: a function_call or a message.
func responsesOutput(a answer, tools []string) map[string]any {
	if a.step != nil {
		name, args, _ := shellCall(*a.step, tools)
		return map[string]any{"type": "function_call", "id": "fc_" + a.id, "call_id": a.id, "name": name,
			"arguments": args, "status": "completed"}
	}
	return map[string]any{"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}}
}

// Chat Completions.

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (r chatRequest) conv() []convItem {
	var out []convItem
	for _, m := range r.Messages {
		switch m.Role {
		case "user":
			for _, t := range contentTexts(m.Content) {
				if ownText(t) {
					out = append(out, convItem{user: t})
				}
			}
		case "assistant":
			for _, c := range m.ToolCalls {
				out = append(out, convItem{call: c.ID})
			}
		}
	}
	return out
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeOpenAIError(w, &Error{Status: 400, Type: "invalid_request_error", Message: "bad json"})
		return
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	_, _, main := shellCall(Step{Tool: "Bash", Input: map[string]any{"command": ""}}, tools)
	conv := req.conv()
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Main: main, API: "chat"}
	rec.UserText = lastUser(conv)
	s.record(rec)
	a := s.answerFor(main, conv)
	if !hasKey(r) {
		a = answer{err: MissingKeyError()}
	}
	if a.err != nil {
		writeOpenAIError(w, a.err)
		return
	}
	s.setHeader(w)
	model := req.Model
	msg := map[string]any{"role": "assistant", "content": a.text}
	finish := "stop"
	var call map[string]any
	if a.step != nil {
		name, args, _ := shellCall(*a.step, tools)
		call = map[string]any{"index": 0, "id": a.id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}
		finish = "tool_calls"
	}
	usage := map[string]int{"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220}
	chunk := func(delta map[string]any, finish any) map[string]any {
		c := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if finish != nil {
			c["usage"] = usage
		}
		return c
	}
	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(),
			"model": model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		w.Write(b)
		return
	}
	event := sse(w)
	if call != nil {
		fn := call["function"].(map[string]any)
		event("", chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": a.id, "type": "function", "function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil))
		event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": fn["arguments"]}}}}, nil))
	} else {
		event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
		event("", chunk(map[string]any{"content": a.text}, nil))
	}
	event("", chunk(map[string]any{}, finish))
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// sse starts an event stream and returns its writer: an event with a name, or
// data alone when name is "".
func sse(w http.ResponseWriter) func(name string, v any) {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return func(name string, v any) {
		b, _ := json.Marshal(v)
		if name != "" {
			fmt.Fprintf(w, "event: %s\n", name)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// hasKey reports whether a request carries an API key, as the OpenAI API
// requires: a bearer token with something after it.
func hasKey(r *http.Request) bool {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	key, ok := strings.CutPrefix(auth, "Bearer ")
	return ok && strings.TrimSpace(key) != ""
}

func lastUser(conv []convItem) string {
	for i := len(conv) - 1; i >= 0; i-- {
		if conv[i].user != "" {
			return strings.TrimSpace(conv[i].user)
		}
	}
	return ""
}
