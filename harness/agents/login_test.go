package agents

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestClaudeLoggedIn(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "darwin" {
		t.Log("on macOS the login is in the Keychain: every folder counts as logged in")
	}
	tests := []struct {
		name  string
		files map[string]string
		env   map[string]string
		want  bool
	}{
		{name: "empty folder", want: false},
		{name: "oauth access token", files: map[string]string{".credentials.json": `{"claudeAiOauth":{"accessToken":"t"}}`}, want: true},
		{name: "oauth without access token", files: map[string]string{".credentials.json": `{"claudeAiOauth":{"refreshToken":"r"}}`}, want: false},
		{name: "broken credentials", files: map[string]string{".credentials.json": `{`}, want: false},
		{name: "api key", env: map[string]string{"ANTHROPIC_API_KEY": "sk"}, want: true},
		{name: "auth token", env: map[string]string{"ANTHROPIC_AUTH_TOKEN": "t"}, want: true},
		{name: "oauth token variable", env: map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": "t"}, want: true},
		{name: "bedrock", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1"}, want: true},
		{name: "bedrock off", env: map[string]string{"CLAUDE_CODE_USE_BEDROCK": "0"}, want: false},
		{name: "api key helper", files: map[string]string{"settings.json": `{"apiKeyHelper":"~/bin/key.sh"}`}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string { return tt.env[k] }
			want := tt.want || runtime.GOOS == "darwin"
			if got := ClaudeLoggedIn(dir, getenv); got != want {
				t.Errorf("ClaudeLoggedIn = %v, want %v", got, want)
			}
		})
	}
}

func TestSeparateClaudeDir(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "cc-link")
	if err := os.Symlink(filepath.Join(home, ".claude"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir  string
		want bool
	}{
		{"", false},
		{filepath.Join(home, ".claude"), false},
		{filepath.Join(home, ".claude") + "/", false},
		{link, false},
		{filepath.Join(home, ".claude-work"), true},
	}
	for _, tt := range tests {
		if got := separateClaudeDir(tt.dir, home); got != tt.want {
			t.Errorf("separateClaudeDir(%q) = %v, want %v", tt.dir, got, tt.want)
		}
	}
}
