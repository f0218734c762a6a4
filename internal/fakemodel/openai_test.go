package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postTo sends one request body to path and returns the status, headers and body.
func postTo(t *testing.T, s *Server, path string, body any) (int, http.Header, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key, ok := body.(map[string]any)["key"]; !ok || key != "" {
		req.Header.Set("Authorization", "Bearer sk-test")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(out)
}

// eventNames returns the event: names of an SSE body, in order.
func eventNames(body string) string {
	var names []string
	for l := range strings.SplitSeq(body, "\n") {
		if n, ok := strings.CutPrefix(l, "event: "); ok {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

func inputText(role, s string) map[string]any {
	return map[string]any{"type": "message", "role": role, "content": []map[string]any{{"type": "input_text", "text": s}}}
}

// Codex's tools, as the Responses API names them.
var codexTools = []map[string]any{{"type": "function", "name": "exec_command"}, {"type": "function", "name": "write_stdin"}}

func TestResponsesToolCallThenMessage(t *testing.T) {
	t.Parallel()
	s, err := Start([]Turn{
		{Steps: append(Bash("strom task"), Write("notes/a.md", "it's\n")), Text: "all done"},
		{When: "Time is up", Steps: Bash("strom session close"), Text: "closed"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := []any{
		inputText("developer", "<permissions instructions>x</permissions instructions>"),
		inputText("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
		inputText("user", "do it"),
	}
	code, _, body := postTo(t, s, "/v1/responses", map[string]any{"model": "gpt-5-codex", "stream": true, "input": base, "tools": codexTools})
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	want := "response.created response.output_item.added response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done response.completed"
	if got := eventNames(body); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	var done struct {
		Item struct {
			Type, Name, Arguments string
			CallID                string `json:"call_id"`
		}
	}
	for _, e := range events(t, body) {
		if e["type"] == "response.output_item.done" {
			b, _ := json.Marshal(e)
			_ = json.Unmarshal(b, &done)
		}
	}
	var args map[string]string
	_ = json.Unmarshal([]byte(done.Item.Arguments), &args)
	if done.Item.Type != "function_call" || done.Item.Name != "exec_command" || args["cmd"] != "strom task" || done.Item.CallID != "toolu_fake_00_00" {
		t.Errorf("first answer %+v, want exec_command strom task", done.Item)
	}
	call := func(id string) []any {
		return []any{map[string]any{"type": "function_call", "call_id": id, "name": "exec_command", "arguments": "{}"},
			map[string]any{"type": "function_call_output", "call_id": id, "output": "ok"}}
	}
	conv := append(append(append([]any{}, base...), call("toolu_fake_00_00")...), call("toolu_fake_00_01")...)
	code, _, body = postTo(t, s, "/v1/responses", map[string]any{"model": "gpt-5-codex", "stream": true, "input": conv, "tools": codexTools})
	if code != 200 || !strings.Contains(body, `"delta":"all done"`) || !strings.Contains(eventNames(body), "response.output_text.delta") {
		t.Errorf("the closing message: %d %s", code, body)
	}
	// A text typed in later starts the turn it names.
	conv = append(conv, inputText("user", "Time is up for this session."))
	_, _, body = postTo(t, s, "/v1/responses", map[string]any{"model": "gpt-5-codex", "stream": false, "input": conv, "tools": codexTools})
	if !strings.Contains(body, `"call_id":"toolu_fake_01_00"`) || !strings.Contains(body, `strom session close`) {
		t.Errorf("the typed turn: %s", body)
	}
	if got := s.UserTexts(); len(got) != 2 || got[0] != "do it" || got[1] != "Time is up for this session." {
		t.Errorf("UserTexts = %q: the client's own blocks are not the user's", got)
	}
	if r := s.Requests()[0]; r.API != "responses" || !r.Main {
		t.Errorf("request %+v", r)
	}
}

func TestResponsesWriteStepIsAShellCommand(t *testing.T) {
	t.Parallel()
	name, args, ok := shellCall(Write("d/n.md", "it's\n"), []string{"exec_command"})
	var a map[string]string
	_ = json.Unmarshal([]byte(args), &a)
	if !ok || name != "exec_command" || a["cmd"] != `mkdir -p 'd' && printf '%s' 'it'\''s`+"\n"+`' > 'd/n.md'` {
		t.Errorf("shellCall = %s %s %v", name, args, ok)
	}
	if _, _, ok := shellCall(Write("x", "y"), []string{"view_image"}); ok {
		t.Error("a client without a shell tool got a shell call")
	}
}

func TestChatCompletionsToolCalls(t *testing.T) {
	t.Parallel()
	s, err := Start([]Turn{{Steps: Bash("strom task"), Text: "done"}}, map[string]string{"x-test": "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := []map[string]any{{"type": "function", "function": map[string]any{"name": "bash"}}}
	msgs := []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": "do it"}}
	code, h, body := postTo(t, s, "/v1/chat/completions", map[string]any{"model": "m", "stream": true, "messages": msgs, "tools": tools})
	if code != 200 || h.Get("x-test") != "1" {
		t.Fatalf("status %d, header %q: %s", code, h.Get("x-test"), body)
	}
	if !strings.HasSuffix(strings.TrimSpace(body), "data: [DONE]") {
		t.Errorf("the stream does not end with [DONE]: %s", body)
	}
	ev := events(t, strings.ReplaceAll(body, "data: [DONE]", ""))
	first := ev[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	args := ev[1]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
	fin := ev[2]["choices"].([]any)[0].(map[string]any)["finish_reason"]
	if first["id"] != "toolu_fake_00_00" || first["function"].(map[string]any)["name"] != "bash" || !strings.Contains(args, `"command":"strom task"`) || fin != "tool_calls" {
		t.Errorf("tool call %v, args %s, finish %v", first, args, fin)
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "toolu_fake_00_00"}}},
		map[string]any{"role": "tool", "tool_call_id": "toolu_fake_00_00", "content": "ok"})
	_, _, body = postTo(t, s, "/v1/chat/completions", map[string]any{"model": "m", "stream": false, "messages": msgs, "tools": tools})
	if !strings.Contains(body, `"content":"done"`) || !strings.Contains(body, `"finish_reason":"stop"`) {
		t.Errorf("closing answer: %s", body)
	}
	// A request without tools (a title) is no main request.
	_, _, body = postTo(t, s, "/v1/chat/completions", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "Generate a title"}}})
	if !strings.Contains(body, "Strom task") {
		t.Errorf("title answer: %s", body)
	}
	if r := s.Requests(); len(r) != 3 || !r[0].Main || r[2].Main || r[0].API != "chat" {
		t.Errorf("requests: %+v", r)
	}
}

func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(3 * time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name   string
		err    *Error
		status int
		header map[string]string
		body   map[string]any
	}{
		{"usage limit", UsageLimitError("plus", reset), 429, map[string]string{"x-codex-primary-used-percent": "100", "x-should-retry": "false"},
			map[string]any{"type": "usage_limit_reached", "plan_type": "plus", "resets_at": float64(reset.Unix())}},
		{"quota", InsufficientQuotaError(), 429, map[string]string{"x-should-retry": "false"}, map[string]any{"code": "insufficient_quota"}},
		{"rate limit", RateLimitExceededError("m", 2), 429, map[string]string{"retry-after": "2", "x-should-retry": ""},
			map[string]any{"code": "rate_limit_exceeded", "message": "Rate limit reached for m in organization org-mock on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more."}},
		{"bad key", InvalidAPIKeyError("sk-test"), 401, nil, map[string]any{"code": "invalid_api_key", "type": "invalid_request_error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Start([]Turn{{Error: tc.err}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, path := range []string{"/v1/responses", "/v1/chat/completions"} {
				code, h, body := postTo(t, s, path, map[string]any{"stream": true, "input": []any{inputText("user", "go")},
					"messages": []any{map[string]any{"role": "user", "content": "go"}},
					"tools":    []map[string]any{{"name": "exec_command", "function": map[string]any{"name": "bash"}}}})
				if code != tc.status {
					t.Errorf("%s: status %d, want %d", path, code, tc.status)
				}
				for k, want := range tc.header {
					if got := h.Get(k); got != want {
						t.Errorf("%s: %s = %q, want %q", path, k, got, want)
					}
				}
				var e struct{ Error map[string]any }
				if err := json.Unmarshal([]byte(body), &e); err != nil {
					t.Fatalf("%s: %v: %s", path, err, body)
				}
				for k, want := range tc.body {
					if e.Error[k] != want {
						t.Errorf("%s: error.%s = %v, want %v", path, k, e.Error[k], want)
					}
				}
			}
		})
	}
}

// TestErrorTimes: a turn's error answers only its first requests; then the turn
// goes on, as after a rate limit the client waited out.
func TestErrorTimes(t *testing.T) {
	t.Parallel()
	s, err := Start([]Turn{{Error: RateLimitExceededError("m", 1), ErrorTimes: 2, Steps: Bash("strom task")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	req := map[string]any{"stream": false, "input": []any{inputText("user", "go")}, "tools": codexTools}
	for i, want := range []int{429, 429, 200, 200} {
		code, _, body := postTo(t, s, "/v1/responses", req)
		if code != want {
			t.Errorf("request %d: status %d, want %d: %s", i, code, want, body)
		}
		if code == 200 && !strings.Contains(body, "strom task") {
			t.Errorf("request %d: %s", i, body)
		}
	}
}

// TestMissingKeyAndGoLimit: a request without an API key gets the 401 a client
// without credentials meets; OpenCode Go's limit carries its metadata and
// retry-after.
func TestMissingKeyAndGoLimit(t *testing.T) {
	t.Parallel()
	s, err := Start([]Turn{{Error: GoUsageLimitError("5-hour", 9000*time.Second)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := []any{map[string]any{"role": "user", "content": "go"}}
	tools := []map[string]any{{"function": map[string]any{"name": "bash"}}}
	code, _, body := postTo(t, s, "/v1/chat/completions", map[string]any{"key": "", "messages": msgs, "tools": tools})
	if code != 401 || !strings.Contains(body, "Missing bearer or basic authentication in header") {
		t.Errorf("without a key: %d %s", code, body)
	}
	code, h, body := postTo(t, s, "/v1/chat/completions", map[string]any{"messages": msgs, "tools": tools})
	var e struct {
		Error    struct{ Type string }
		Metadata struct{ LimitName string }
	}
	_ = json.Unmarshal([]byte(body), &e)
	if code != 429 || h.Get("retry-after") != "9000" || e.Error.Type != "GoUsageLimitError" || e.Metadata.LimitName != "5-hour" {
		t.Errorf("Go limit: %d retry-after %q: %s", code, h.Get("retry-after"), body)
	}
}
