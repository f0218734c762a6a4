package fakemodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends one Messages API request and returns the status, headers and body.
func post(t *testing.T, s *Server, body any) (int, http.Header, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+"/v1/messages?beta=true", "application/json", strings.NewReader(string(b)))
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

// events reads an SSE body into its events' data objects.
func events(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("event data %q: %v", data, err)
		}
		out = append(out, m)
	}
	return out
}

var bashTool = []map[string]any{{"name": "Bash"}}

func user(blocks ...map[string]any) map[string]any {
	return map[string]any{"role": "user", "content": blocks}
}

func assistant(blocks ...map[string]any) map[string]any {
	return map[string]any{"role": "assistant", "content": blocks}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(id string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}}
}

func toolResult(id string) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}
}

func TestServerAnswers(t *testing.T) {
	t.Parallel()
	turns := []Turn{
		{Steps: Bash("strom task", "strom record x"), Text: "first done"},
		{When: "Time is up", Steps: Bash("strom session close"), Text: "closed"},
	}
	tests := []struct {
		name     string
		messages []map[string]any
		tools    []map[string]any
		wantTool string // the command of the tool call answered, "" for text
		wantID   string
		wantText string
	}{
		{"the prompt starts the first turn", []map[string]any{user(text("<system-reminder>x</system-reminder>"), text("do it"))}, bashTool, "strom task", "toolu_fake_00_00", ""},
		{"a tool result brings the next step", []map[string]any{
			user(text("do it")), assistant(toolUse("toolu_fake_00_00")), user(toolResult("toolu_fake_00_00")),
		}, bashTool, "strom record x", "toolu_fake_00_01", ""},
		{"merged messages: steps count by id", []map[string]any{
			user(text("do it")), assistant(toolUse("toolu_fake_00_00"), toolUse("toolu_fake_00_01")),
			user(toolResult("toolu_fake_00_00"), toolResult("toolu_fake_00_01")),
		}, bashTool, "", "", "first done"},
		{"a typed text merged with a tool result starts its turn", []map[string]any{
			user(text("do it")), assistant(text("first done"), toolUse("toolu_fake_00_00"), toolUse("toolu_fake_00_01")),
			user(toolResult("toolu_fake_00_00"), toolResult("toolu_fake_00_01"), text("Time is up for this session.")),
		}, bashTool, "strom session close", "toolu_fake_01_00", ""},
		{"a text no turn is left for", []map[string]any{
			user(text("do it")), assistant(text("first done")), user(text("Time is up")), assistant(text("closed")), user(text("more?")),
		}, bashTool, "", "", "Nothing to do."},
		{"a side request gets a short text", []map[string]any{user(text("a title please"))}, nil, "", "", "Strom task"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Start(turns, map[string]string{"anthropic-ratelimit-unified-7d-utilization": "0.4"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			code, h, body := post(t, s, map[string]any{"model": "m", "stream": true, "messages": tc.messages, "tools": tc.tools})
			if code != 200 {
				t.Fatalf("status %d: %s", code, body)
			}
			if got := h.Get("anthropic-ratelimit-unified-7d-utilization"); got != "0.4" {
				t.Errorf("utilization header %q", got)
			}
			ev := events(t, body)
			var kinds []string
			for _, e := range ev {
				kinds = append(kinds, e["type"].(string))
			}
			if got, want := strings.Join(kinds, " "), "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"; got != want {
				t.Fatalf("events %q, want %q", got, want)
			}
			block := ev[1]["content_block"].(map[string]any)
			delta := ev[2]["delta"].(map[string]any)
			stop := ev[4]["delta"].(map[string]any)["stop_reason"]
			if tc.wantTool != "" {
				var input map[string]string
				_ = json.Unmarshal([]byte(delta["partial_json"].(string)), &input)
				if block["type"] != "tool_use" || block["name"] != "Bash" || block["id"] != tc.wantID || input["command"] != tc.wantTool || stop != "tool_use" {
					t.Errorf("got block %v, input %v, stop %v; want Bash %q (%s)", block, input, stop, tc.wantTool, tc.wantID)
				}
				return
			}
			if block["type"] != "text" || delta["text"] != tc.wantText || stop != "end_turn" {
				t.Errorf("got block %v, delta %v, stop %v; want text %q", block, delta, stop, tc.wantText)
			}
		})
	}
}

func TestServerErrorsAndRecords(t *testing.T) {
	t.Parallel()
	s, err := Start([]Turn{{Error: RateLimitError("seven_day", 1764500000)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Head(s.URL + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /: %v %v", resp, err)
	}
	code, h, body := post(t, s, map[string]any{"stream": true, "tools": bashTool, "messages": []map[string]any{user(text("go"))}})
	if code != 429 {
		t.Fatalf("status %d, want 429", code)
	}
	for k, want := range map[string]string{
		"x-should-retry": "false", "anthropic-ratelimit-unified-status": "rejected",
		"anthropic-ratelimit-unified-reset": "1764500000", "anthropic-ratelimit-unified-representative-claim": "seven_day",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	var e struct {
		Type  string                `json:"type"`
		Error struct{ Type string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Type != "error" || e.Error.Type != "rate_limit_error" {
		t.Errorf("error body %q", body)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || !reqs[0].Main || reqs[0].UserText != "go" {
		t.Errorf("requests %+v", reqs)
	}
	if got := s.UserTexts(); len(got) != 1 || got[0] != "go" {
		t.Errorf("UserTexts = %q", got)
	}
}
