package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// claudeLoginEnv are the variables that give Claude Code credentials without a
// subscription login in its folder: a cloud provider, a token, an API key, or a
// long-lived OAuth token (reference/agent-clis.md, "API key or subscription").
var claudeLoginEnv = []string{
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY",
	"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN",
}

// IsClaude reports whether a profile starts Claude Code: the shipped profiles, a
// profile of the claude program, or one that reads Claude Code's screens.
func IsClaude(p Profile) bool {
	return filepath.Base(p.Binary) == "claude" || p.PatternSet == "claude" || p.Name == "claude" || p.Name == "claude-headless"
}

// ClaudeConfigDir is Claude Code's own config folder for this research: the
// setting agent.claudeConfigDir, else CLAUDE_CONFIG_DIR; "" when neither is set.
// A leading ~ is the home folder.
func ClaudeConfigDir(r *research.Research, s statefiles.Settings) string {
	dir := ""
	if res, err := s.Resolve("agent.claudeConfigDir", ""); err == nil {
		dir = res.Value
	}
	if dir == "" {
		dir = r.Getenv("CLAUDE_CONFIG_DIR")
	}
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return ""
	}
	home := r.Getenv("HOME")
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		dir = filepath.Join(home, dir[1:])
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// separateClaudeDir reports whether dir is a config folder of its own, not the
// default ~/.claude.
func separateClaudeDir(dir, home string) bool {
	if dir == "" {
		return false
	}
	def := filepath.Join(home, ".claude")
	if filepath.Clean(dir) == def {
		return false
	}
	a, errA := filepath.EvalSymlinks(dir)
	b, errB := filepath.EvalSymlinks(def)
	return errA != nil || errB != nil || a != b
}

// ClaudeLoggedIn reports whether Claude Code has a way to log in with config folder
// dir: a subscription login there (.credentials.json holding a claudeAiOauth access
// token), an apiKeyHelper or a stored API key there, or credentials in the
// environment. On macOS the login lives in the Keychain, which strom does not read:
// it counts as logged in.
func ClaudeLoggedIn(dir string, getenv func(string) string) bool {
	for _, k := range claudeLoginEnv {
		if v := getenv(k); v != "" && v != "0" {
			return true
		}
	}
	if runtime.GOOS == "darwin" {
		return true
	}
	var creds struct {
		ClaudeAiOauth *struct {
			AccessToken string `json:"accessToken"`
		} `json:"claudeAiOauth"`
	}
	if readJSON(filepath.Join(dir, ".credentials.json"), &creds) && creds.ClaudeAiOauth != nil &&
		strings.TrimSpace(creds.ClaudeAiOauth.AccessToken) != "" {
		return true
	}
	var settings struct {
		APIKeyHelper string `json:"apiKeyHelper"`
	}
	if readJSON(filepath.Join(dir, "settings.json"), &settings) && strings.TrimSpace(settings.APIKeyHelper) != "" {
		return true
	}
	var state struct {
		PrimaryAPIKey string `json:"primaryApiKey"`
	}
	return readJSON(filepath.Join(dir, ".claude.json"), &state) && strings.TrimSpace(state.PrimaryAPIKey) != ""
}

// readJSON reads a JSON file into v; false when it is missing or unreadable.
func readJSON(path string, v any) bool {
	data, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(data, v) == nil
}

// NotLoggedIn is R7.7's check before the first session: Claude Code with a
// config folder of its own, where strom can tell without starting it, and Codex
// (codexNotLoggedIn). It returns the advice for the person and true when the agent
// has no login.
func NotLoggedIn(ctx context.Context, r *research.Research, p SessionPlan) (string, bool) {
	if IsCodex(p.Profile) {
		return codexNotLoggedIn(ctx, r, p)
	}
	if !IsClaude(p.Profile) || !separateClaudeDir(p.ClaudeDir, r.Getenv("HOME")) {
		return "", false
	}
	if ClaudeLoggedIn(p.ClaudeDir, r.Getenv) {
		return "", false
	}
	return LoginAdvice(r, p), true
}
