package limits

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// otherClientsDir holds a copy of shared/reference/other-agent-clis: the screens
// and outputs of Codex 0.171.0, OpenCode 1.18.33 and Grok CLI 0.0.34.
const otherClientsDir = "testdata/other-agent-clis"

// captureSections splits a capture file into its "=== name" sections; a file
// without them is one section named "".
func captureSections(text string) map[string]string {
	out := map[string]string{}
	name, start := "", 0
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "=== "); ok {
			if i > start || b.Len() > 0 {
				out[name] = b.String()
			}
			b.Reset()
			name = strings.Fields(rest)[0]
			if strings.HasPrefix(rest, "zen provider") {
				name = "zen-" + strings.Fields(rest)[len(strings.Fields(rest))-1]
			}
			start = i
			continue
		}
		b.WriteString(l)
	}
	out[name] = b.String()
	return out
}

// scanCapture reads a capture as strom reads the agent's output: each JSON chat
// message line (MatchMessageLine), then the screen (Match); the last message
// signal wins over the screen, as the stream is read first.
func scanCapture(p Patterns, text string) (Signal, bool) {
	var last *Signal
	for _, l := range strings.Split(text, "\n") {
		if sig, ok := p.MatchMessageLine([]byte(strings.TrimSpace(l))); ok {
			last = &sig
		}
	}
	if last != nil {
		return *last, true
	}
	return p.Match(text)
}

// TestOtherClientsCaptures reads every captured output of the three clients and
// says what strom finds in it: a limit (with the reset the client printed), a
// login error, or nothing. Sections not listed must give nothing: tool turns, plain
// rate limits (429 with retry-after), server errors, and the --json and --format
// json modes, which strom does not run (their lines start with "{").
func TestOtherClientsCaptures(t *testing.T) {
	t.Parallel()
	type want struct {
		kind  Kind
		text  string // the start of the matched text
		reset string
	}
	lim := func(text, reset string) want { return want{Limit, text, reset} }
	login := func(text string) want { return want{Login, text, ""} }
	wants := map[string]want{
		"codex/matrix-0.171.0.txt#no-env-key":                             {}, // JSON mode
		"codex/matrix-0.171.0.txt#err-429quota-human":                     lim("ERROR: Quota exceeded. Check your plan and billing details", ""),
		"codex/matrix-0.171.0.txt#err-429usage-human":                     lim("ERROR: You've hit your usage limit.", "10:26 AM"),
		"codex/matrix-0.171.0.txt#err-401-human":                          login("ERROR: unexpected status 401 Unauthorized: Incorrect API key"),
		"codex/matrix-chatgpt-0.171.0.txt#login-status":                   {},
		"codex/matrix-chatgpt-0.171.0.txt#429usage-human":                 lim("ERROR: You've hit your usage limit. Upgrade to Pro", "10:30 AM"),
		"codex/matrix-chatgpt-0.171.0.txt#401-refresh-mock-expired-human": login("ERROR: Your access token could not be refreshed"),
		"codex/tui/01-nocreds-start.txt#":                                 login("Welcome to Codex, OpenAI's command-line coding agent"),
		"codex/tui/02-nocreds-other-way.txt#":                             login("Welcome to Codex"),
		"codex/tui/03-nocreds-chatgpt.txt#":                               login("Welcome to Codex"),
		"codex/tui/13-apikey-429quota.txt#":                               lim("Quota exceeded. Check your plan and billing details", ""),
		"codex/tui/14-apikey-401.txt#":                                    login("unexpected status 401 Unauthorized: Incorrect API key"),
		"codex/tui/15-apikey-429usage.txt#":                               lim("You've hit your usage limit.", "10:32 AM"),
		"codex/tui/16-apikey-after-esc.txt#":                              lim("You've hit your usage limit.", "10:32 AM"),
		"codex/tui/23-chatgpt-429usage.txt#":                              lim("You've hit your usage limit.", "10:34 AM"),
		"codex/tui/24-chatgpt-status-after-limit.txt#":                    lim("You've hit your usage limit.", "10:34 AM"),
		// The matrix's err-429quota-default and err-429usage-default and the Zen 429go
		// ran into the timeout while OpenCode retried, silent: nothing to find there.
		"opencode/matrix-1.18.33.txt#err-401-default":         login("Error: Incorrect API key provided: sk-test."),
		"opencode/matrix-1.18.33.txt#noconfig-providers-list": login("0 credentials"),
		"opencode/matrix-1.18.33.txt#no-api-key":              login("Error: Missing bearer or basic authentication in header"),
		"opencode/errors-long-1.18.33.txt#429quota-default":   lim("Error: You exceeded your current quota", ""),
		"opencode/errors-long-1.18.33.txt#429usage-default":   lim("Error: The usage limit has been reached", ""),
		"opencode/zen-1.18.33.txt#zen-429zenfree":             lim("Error: Free usage limit reached.", ""),
		"opencode/tui/05-401.txt#":                            login("Incorrect API key provided: sk-test."),
		"opencode/tui/06-429quota-retrying.txt#":              lim("You exceeded your current quota, please check your plan and billing details", ""),
		"opencode/tui/07-429quota-retrying-wide.txt#":         lim("You exceeded your current quota, please check your plan and billing details", ""),
		"opencode/tui/10-zen-go-limit.txt#":                   lim("5-hour usage limit reached. It will reset in 2 hours 30 minutes", "2 hours 30 minutes"),
		"opencode/tui/11-zen-free-limit.txt#":                 lim("5-hour usage limit reached. It will reset in 2 hours 30 minutes", "2 hours 30 minutes"),
		"grok/matrix-0.0.34.txt#no-key":                       login("❌ Error: API key required. Set GROK_API_KEY"),
		"grok/matrix-0.0.34.txt#err-429quota":                 lim("Sorry, I encountered an error: Grok API error: 429 You exceeded your current quota", ""),
		"grok/matrix-0.0.34.txt#err-429usage":                 lim("Sorry, I encountered an error: Grok API error: 429 The usage limit has been reached", ""),
		"grok/matrix-0.0.34.txt#err-401":                      login("Sorry, I encountered an error: Grok API error: 401 Incorrect API key"),
		"grok/tui/04-429quota.txt#":                           lim("Sorry, I encountered an error: Grok API error: 429 You exceeded your current quota", ""),
		"grok/tui/05-401.txt#":                                login("Sorry, I encountered an error: Grok API error: 401 Incorrect API key"),
	}
	seen := map[string]bool{}
	var keys []string
	err := filepath.WalkDir(otherClientsDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(otherClientsDir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		agent := strings.Split(rel, string(filepath.Separator))[0]
		for name, text := range captureSections(string(data)) {
			key := filepath.ToSlash(rel) + "#" + name
			keys = append(keys, key)
			seen[key] = true
			w := wants[key]
			sig, ok := scanCapture(Defaults(agent), text)
			switch {
			case w.kind == 0 && ok:
				t.Errorf("%s: found %s %q (reset %q), want nothing", key, sig.Kind, sig.Text, sig.Reset)
			case w.kind != 0 && !ok:
				t.Errorf("%s: found nothing, want %s %q", key, w.kind, w.text)
			case w.kind != 0 && (sig.Kind != w.kind || !strings.HasPrefix(sig.Text, w.text) || sig.Reset != w.reset):
				t.Errorf("%s: found %s %q (reset %q), want %s %q… (reset %q)", key, sig.Kind, sig.Text, sig.Reset, w.kind, w.text, w.reset)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range wants {
		if !seen[k] {
			t.Errorf("no capture %s", k)
		}
	}
	sort.Strings(keys)
	if len(keys) < 60 {
		t.Errorf("only %d captures read: %q", len(keys), keys)
	}
}

// TestOtherClientsLookAlikes: text that only quotes a client's message, and the
// messages that are no subscription limit, match nothing.
func TestOtherClientsLookAlikes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ agent, text string }{
		{"codex", `• Ran grep -r "You’ve hit your usage limit" src/`},
		{"codex", `src/error.rs:12: "You’ve hit your usage limit. Upgrade to Pro"`},
		{"codex", "The message reads: You’ve hit your usage limit. … or try again at 10:30 AM."},
		{"codex", "ERROR: exceeded retry limit, last status: 429 Too Many Requests, request id: req_1"},
		{"codex", "ERROR: rate limit exceeded: Rate limit reached for gpt-5 in organization org-mock. Please try again in 1.5s."},
		{"codex", "ERROR: We’re currently experiencing high demand, which may cause temporary errors."},
		{"codex", "I am not logged in to that website, Not logged in"},
		{"opencode", "Error: Rate limit reached for mock-model in organization org-mock on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 2s."},
		{"opencode", "⬝Rate⬝limit reached for mock-model … (click to expand) [retrying attempt #2]"},
		{"opencode", "$ grep -n 'usage limit reached' notes.md"},
		{"opencode", "The docs say: 5-hour usage limit reached. It will reset in 2 hours 30 minutes."},
		{"opencode", "Connect provider  /connect"},
		{"opencode", "Error: Cannot connect to API: Unable to connect. Is the computer able to access the url?"},
		{"grok", "⏺ Sorry, I encountered an error: Grok API error: 429 Rate limit reached for grok-code-fast-1 … Please try again in 2s."},
		{"grok", "⏺ Sorry, I encountered an error: Grok API error: 500 The server had an error while processing your request."},
		{"grok", `The tool printed "Sorry, I encountered an error: Grok API error: 429 The usage limit has been reached"`},
		{"grok", `{"role":"tool","tool_call_id":"c1","content":"Sorry, I encountered an error: Grok API error: 401 Incorrect API key"}`},
		{"grok", `{"role":"user","content":"Sorry, I encountered an error: Grok API error: 429 You exceeded your current quota"}`},
	} {
		if sig, ok := scanCapture(Defaults(tc.agent), tc.text); ok {
			t.Errorf("%s %q: found %s %q", tc.agent, tc.text, sig.Kind, sig.Text)
		}
	}
}

// TestOtherClientsCapturesMatchReference keeps testdata/ in step with the
// reference in shared/, beside the clone in CI and on developer machines.
func TestOtherClientsCapturesMatchReference(t *testing.T) {
	t.Parallel()
	ref := filepath.Join("..", "..", "..", "shared", "reference", "other-agent-clis")
	if _, err := os.Stat(ref); os.IsNotExist(err) {
		t.Skipf("no reference at %s: testdata/ is the only copy", ref)
	}
	err := filepath.WalkDir(ref, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(ref, path)
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(otherClientsDir, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("testdata copy of %s is missing or differs: copy it again", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCodexScreens: the trust question and the sign-in menu of Codex 0.171.0
// end a session with a sentence; the screens after them do not.
func TestCodexScreens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file   string
		kind   ScreenKind
		advice string
	}{
		{"codex/tui/10-apikey-start.txt", ScreenTrust, "Codex asks whether to trust <dir>/w.nQhd: run `codex` once in this folder, answer the trust question, then run strom again."},
		{"codex/tui/01-nocreds-start.txt", ScreenLogin, "Codex is not logged in and asks how to sign in: run `codex` once by hand, sign in, then run strom again."},
		{"codex/tui/02-nocreds-other-way.txt", ScreenLogin, ""},
		{"codex/tui/03-nocreds-chatgpt.txt", ScreenLogin, ""},
		{"codex/tui/11-apikey-after-trust.txt", 0, ""},
		{"codex/tui/12-apikey-tool-turn.txt", 0, ""},
		{"codex/tui/30-nodaemon-tool.txt", 0, ""},
	} {
		data, err := os.ReadFile(filepath.Join(otherClientsDir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		scr, ok := CodexScreen(string(data))
		if tc.kind == 0 {
			if ok {
				t.Errorf("%s: found %s %q", tc.file, scr.Kind, scr.Text)
			}
			continue
		}
		if !ok || scr.Kind != tc.kind || tc.advice != "" && scr.Advice != tc.advice {
			t.Errorf("%s: found %v %+v, want %s %q", tc.file, ok, scr, tc.kind, tc.advice)
		}
	}
	if scr, ok := CodexScreen("› The dialog said: Trust this folder? Codex can read, edit, and run files here"); ok {
		t.Errorf("a quoted question counts: %+v", scr)
	}
}

// TestCodexOffline: codex exec and the TUI wait for ever for a network they
// cannot reach; the wait is a screen for a person, a single reconnect is not.
func TestCodexOffline(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(otherClientsDir, "codex/nocreds-offline-exec.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The capture is the --json output; strom runs codex exec without it.
	human := "ERROR: Reconnecting... 5/5\nwarning: Falling back from WebSockets to HTTPS transport.\nERROR: Reconnecting... waiting for network\n"
	for _, text := range []string{human, "■ Reconnecting... waiting for network"} {
		if scr, ok := CodexScreen(text); !ok || scr.Kind != ScreenOffline || !strings.Contains(scr.Advice, "run `codex` once and log in") {
			t.Errorf("%q: %v %+v", text, ok, scr)
		}
	}
	for _, text := range []string{"ERROR: Reconnecting... 2/5", string(data), "• I saw Reconnecting... waiting for network in the log"} {
		if scr, ok := CodexScreen(text); ok {
			t.Errorf("%.60q: found %+v", text, scr)
		}
	}
}
