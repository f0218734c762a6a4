package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfiguredModel: the model a client's command line, environment or
// settings name, in the client's own order.
func TestConfiguredModel(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".codex", "config.toml"), "model = \"gpt-5\"\n")
	write(filepath.Join(home, ".config", "opencode", "opencode.json"), `{"model": "mock/global"}`)
	write(filepath.Join(home, ".grok", "user-settings.json"), `{"defaultModel": "grok-4-latest"}`)
	write(filepath.Join(dir, ".grok", "settings.json"), `{"model": "grok-code-fast-1"}`)
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		binary string
		argv   []string
		env    map[string]string
		want   string
	}{
		{"codex", []string{"codex", "--no-daemon", "prompt"}, nil, "gpt-5"},
		{"codex", []string{"codex", "-m", "o3", "prompt"}, nil, "o3"},
		{"codex", []string{"codex", "-c", "allow_login_shell=false", "-c", `model="gpt-5-codex"`, "prompt"}, nil, "gpt-5-codex"},
		{"codex", []string{"codex", "--model=o4-mini", "prompt"}, nil, "o4-mini"},
		{"codex", []string{"codex", "prompt"}, map[string]string{"CODEX_HOME": filepath.Join(home, "none")}, ""},
		{"opencode", []string{"opencode", "--prompt", "p"}, nil, "mock/global"},
		{"opencode", []string{"opencode", "-m", "anthropic/claude-sonnet-4-5", "--prompt", "p"}, nil, "anthropic/claude-sonnet-4-5"},
		{"grok", []string{"grok", "--prompt", "p"}, nil, "grok-code-fast-1"},
		{"grok", []string{"grok", "--prompt", "p"}, map[string]string{"GROK_MODEL": "grok-3"}, "grok-3"},
		{"claude", []string{"claude", "--model", "opus", "p"}, nil, "opus"},
		{"claude", []string{"claude", "-m", "p"}, nil, ""},
		{"claude", []string{"claude", "p"}, map[string]string{"ANTHROPIC_MODEL": "claude-sonnet-4-5"}, "claude-sonnet-4-5"},
		{"", []string{"sh", "-c", "--model x"}, nil, ""},
		{"codex", []string{"codex", "-m", "bad\x1b[31m\nmodel"}, nil, `bad\x1b[31m\nmodel`},
	} {
		get := getenv
		if tc.env != nil {
			get = func(k string) string {
				if v, ok := tc.env[k]; ok {
					return v
				}
				return env[k]
			}
		}
		if got := ConfiguredModel(tc.binary, tc.argv, get, dir); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.binary, tc.argv, got, tc.want)
		}
	}
}

// TestStreamSignalsModel: Claude Code's stream-json init line names the model and
// the client's version; without it, the first assistant message names the model.
func TestStreamSignalsModel(t *testing.T) {
	t.Parallel()
	init := `{"type":"system","subtype":"init","model":"claude-sonnet-4-5-20250929","claude_code_version":"2.1.197","tools":["Bash"]}`
	for _, tc := range []struct {
		name, out, model, version string
	}{
		{"init", init + "\n" + `{"type":"assistant","message":{"model":"claude-haiku"}}` + "\n", "claude-sonnet-4-5-20250929", "2.1.197"},
		{"split", init[:30] + "\x00", "", ""},
		{"assistant only", `{"type":"assistant","message":{"model":"claude-opus-4-1"}}` + "\n", "claude-opus-4-1", ""},
		{"no model", `{"type":"result","result":"the model said"}` + "\n", "", ""},
	} {
		s := NewStreamSignals(Profile{StreamJSON: true})
		out := strings.ReplaceAll(tc.out, "\x00", "")
		// Written in pieces, as a pty hands them over.
		for len(out) > 0 {
			n := min(7, len(out))
			s.Output()([]byte(out[:n]))
			out = out[n:]
		}
		if m, v := s.Model(); m != tc.model || v != tc.version {
			t.Errorf("%s: model %q version %q, want %q %q", tc.name, m, v, tc.model, tc.version)
		}
	}
}
