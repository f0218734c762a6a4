package limits

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseStreamJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		want *Signal
	}{
		{"rate limit rejected",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1774447200,"rateLimitType":"five_hour"},"session_id":"s"}`,
			&Signal{Kind: Limit, Own: OwnWindow, Window: "five_hour", Reset: "1774447200", Agent: "claude"}},
		{"rate limit rejected without reset",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"seven_day"}}`,
			&Signal{Kind: Limit, Own: OwnWindow, Window: "seven_day", Agent: "claude"}},
		{"rate limit allowed",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1774447200,"rateLimitType":"five_hour"}}`, nil},
		{"rate limit allowed warning",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1774447200,"rateLimitType":"seven_day","utilization":91}}`, nil},
		{"result session limit (agent-clis.md)",
			`{"is_error":true,"duration_ms":812,"terminal_reason":"api_error","session_id":"s","api_error_status":429,"result":"You've hit your session limit · resets 8:30am (America/Los_Angeles)","type":"result","subtype":"success"}`,
			&Signal{Kind: Limit, Text: "You've hit your session limit · resets 8:30am (America/Los_Angeles)", Reset: "8:30am (America/Los_Angeles)", Agent: "claude"}},
		{"result weekly limit, status only",
			`{"type":"result","api_error_status":429,"result":"You've hit your weekly limit · resets Dec 4, 9am (UTC)"}`,
			&Signal{Kind: Limit, Text: "You've hit your weekly limit · resets Dec 4, 9am (UTC)", Reset: "Dec 4, 9am (UTC)", Agent: "claude"}},
		{"result blocking limit without text",
			`{"type":"result","is_error":true,"terminal_reason":"blocking_limit","result":""}`,
			&Signal{Kind: Limit, Own: OwnLimit, Agent: "claude"}},
		{"result 429 with other words",
			`{"type":"result","is_error":true,"terminal_reason":"api_error","api_error_status":429,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}"}`,
			&Signal{Kind: Limit, Text: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}`, Agent: "claude"}},
		{"result 429 without text",
			`{"type":"result","is_error":true,"api_error_status":429}`,
			&Signal{Kind: Limit, Own: Own429, Agent: "claude"}},
		{"result api key rate limit is no subscription limit",
			`{"type":"result","is_error":true,"terminal_reason":"api_error","api_error_status":429,"result":"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."}`, nil},
		{"result credit balance",
			`{"type":"result","is_error":true,"result":"Credit balance too low · Add funds: https://console.anthropic.com/settings/billing"}`, nil},
		{"result 401",
			`{"type":"result","is_error":true,"api_error_status":401,"result":"Failed to authenticate. API Error: 401 {\"type\":\"error\"}"}`,
			&Signal{Kind: Login, Text: `Failed to authenticate. API Error: 401 {"type":"error"}`, Agent: "claude"}},
		{"result 401 without text",
			`{"type":"result","is_error":true,"api_error_status":401}`,
			&Signal{Kind: Login, Own: Own401, Agent: "claude"}},
		{"result not logged in",
			`{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}`,
			&Signal{Kind: Login, Text: "Not logged in · Please run /login", Agent: "claude"}},
		{"successful result quoting a limit",
			`{"type":"result","subtype":"success","is_error":false,"result":"You've hit your limit · resets 5pm"}`, nil},
		{"successful result",
			`{"type":"result","subtype":"success","is_error":false,"result":"done"}`, nil},
		{"assistant rate limit",
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"You've hit your weekly limit · resets Sep 15 at 7pm"}]},"error":"rate_limit"}`,
			&Signal{Kind: Limit, Text: "You've hit your weekly limit · resets Sep 15 at 7pm", Reset: "Sep 15 at 7pm", Agent: "claude"}},
		{"assistant rate limit without text",
			`{"type":"assistant","message":{"content":[]},"error":"rate_limit"}`,
			&Signal{Kind: Limit, Own: OwnLimit, Agent: "claude"}},
		{"assistant api key rate limit",
			`{"type":"assistant","message":{"content":[{"type":"text","text":"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."}]},"error":"rate_limit"}`, nil},
		{"assistant authentication failed",
			`{"type":"assistant","message":{"content":[{"type":"text","text":"Invalid API key · Please run /login"}]},"error":"authentication_failed"}`,
			&Signal{Kind: Login, Text: "Invalid API key · Please run /login", Agent: "claude"}},
		{"assistant billing error",
			`{"type":"assistant","message":{"content":[{"type":"text","text":"Credit balance too low · Add funds"}]},"error":"billing_error"}`, nil},
		{"assistant without error",
			`{"type":"assistant","message":{"content":[{"type":"text","text":"You've hit your limit · resets 5pm"}]}}`, nil},
		{"system init",
			`{"type":"system","subtype":"init","apiKeySource":"none"}`, nil},
		{"codex turn failed",
			`{"type":"turn.failed","error":{"message":"You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM."}}`,
			&Signal{Kind: Limit, Text: "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.", Reset: "3:28 PM", Agent: "codex"}},
		{"codex error event",
			`{"type":"error","message":"You've hit your usage limit. Try again later."}`,
			&Signal{Kind: Limit, Text: "You've hit your usage limit. Try again later.", Agent: "codex"}},
		{"codex error event login",
			`{"type":"error","message":"exceeded retry limit, last status: 401 Unauthorized"}`,
			&Signal{Kind: Login, Text: "exceeded retry limit, last status: 401 Unauthorized", Agent: "codex"}},
		{"codex other failure",
			`{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}`, nil},
		{"codex item",
			`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"You've hit your usage limit. Try again later."}}`, nil},
		{"not json", `You've hit your limit · resets 5pm`, nil},
		{"broken json", `{"type":"rate_limit_event",`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseStreamJSON([]byte(tt.line))
			if tt.want == nil {
				if ok {
					t.Fatalf("ParseStreamJSON = %+v, want nothing", got)
				}
				return
			}
			if !ok {
				t.Fatal("ParseStreamJSON found nothing")
			}
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("ParseStreamJSON (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStreamJSONResetReadsBack(t *testing.T) {
	t.Parallel()
	s, ok := ParseStreamJSON([]byte(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1774447200}}`))
	if !ok {
		t.Fatal("ParseStreamJSON found nothing")
	}
	got, ok := ParseReset(s.Reset, time.Unix(1774440000, 0), time.UTC)
	if !ok || !got.Equal(time.Unix(1774447200, 0)) {
		t.Errorf("ParseReset(%q) = %v, %v; want %v", s.Reset, got, ok, time.Unix(1774447200, 0))
	}
}

func TestParseRateLimitEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		want *Usage
	}{
		{"allowed",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1774447200,"rateLimitType":"five_hour"},"uuid":"u"}`,
			&Usage{Status: "allowed", Type: "five_hour", ResetsAt: time.Unix(1774447200, 0)}},
		{"allowed warning with utilization",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1774447200,"rateLimitType":"seven_day","utilization":91.5}}`,
			&Usage{Status: "allowed_warning", Type: "seven_day", Utilization: 91.5, HasUtilization: true, ResetsAt: time.Unix(1774447200, 0)}},
		{"zero utilization is known",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","rateLimitType":"seven_day_opus","utilization":0}}`,
			&Usage{Status: "allowed", Type: "seven_day_opus", HasUtilization: true}},
		{"rejected",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1774447200,"rateLimitType":"five_hour","utilization":100}}`,
			&Usage{Status: "rejected", Type: "five_hour", Utilization: 100, HasUtilization: true, ResetsAt: time.Unix(1774447200, 0)}},
		{"event without info", `{"type":"rate_limit_event"}`, nil},
		{"other event", `{"type":"result","result":"ok"}`, nil},
		{"not json", `rate_limit_event`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseRateLimitEvent([]byte(tt.line))
			if tt.want == nil {
				if ok {
					t.Fatalf("ParseRateLimitEvent = %+v, want nothing", got)
				}
				return
			}
			if !ok {
				t.Fatal("ParseRateLimitEvent found nothing")
			}
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("ParseRateLimitEvent (-want +got):\n%s", diff)
			}
		})
	}
}
