package limits

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClaudeScreenFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		kind ScreenKind // 0: no screen that needs a person
		text string
	}{
		{"01-no-network-first-screen.txt", ScreenOffline, "Failed to connect to api.anthropic.com: ENOTFOUND"},
		{"02-onboarding-theme.txt", ScreenOnboarding, "Choose the text style that looks best with your terminal"},
		{"onboarding-1-theme-auth-token.txt", ScreenOnboarding, "Choose the text style that looks best with your terminal"},
		{"03-login-method.txt", ScreenLogin, "Select login method:"},
		{"04-login-url.txt", ScreenLogin, "Paste code here if prompted >"},
		{"06-after-login-1.txt", ScreenOnboarding, "Security notes:"},
		{"onboarding-2-security.txt", ScreenOnboarding, "Security notes:"},
		{"07-after-login-2.txt", ScreenTrust, "Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source"},
		{"onboarding-3-trust.txt", ScreenTrust, "Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source"},
		{"15-bash-permission-prompt.txt", ScreenPermission, "Do you want to proceed?"},
		{"17-bypass-permissions-dialog.txt", ScreenBypass, "WARNING: Claude Code running in Bypass Permissions mode"},
		{"05-login-success.txt", 0, ""},
		{"08-not-logged-in-idle.txt", 0, ""},
		{"09-not-logged-in-after-prompt.txt", 0, ""},
		{"10-usage-subscriber.txt", 0, ""},
		{"11-429-five-hour-subscriber.txt", 0, ""},
		{"12-prompt-answered.txt", 0, ""},
		{"13-queued-while-busy.txt", 0, ""},
		{"14-queued-delivered.txt", 0, ""},
		{"16-bash-approved.txt", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, ok := ClaudeScreen(readScreen(t, tt.file))
			if tt.kind == 0 {
				if ok {
					t.Fatalf("ClaudeScreen = %+v, want no screen", got)
				}
				return
			}
			if !ok {
				t.Fatalf("ClaudeScreen found nothing, want %v", tt.kind)
			}
			if got.Kind != tt.kind || got.Text != tt.text {
				t.Errorf("ClaudeScreen = %v %q, want %v %q", got.Kind, got.Text, tt.kind, tt.text)
			}
			if got.Advice == "" || strings.Count(got.Advice, ". ") > 0 || !strings.HasSuffix(got.Advice, ".") {
				t.Errorf("advice %q is not one sentence", got.Advice)
			}
		})
	}
}

func TestClaudeScreenText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		kind   ScreenKind // 0: none
		advice string     // checked when not empty
	}{
		{"trust names the folder", " Accessing workspace:\n /home/ada/src/strom\n Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source\n ❯ 1. Yes, I trust this folder\n   2. No, exit",
			ScreenTrust, "Claude Code asks whether to trust /home/ada/src/strom: run `claude` once in this folder, answer the trust question, then run strom again."},
		{"trust without folder", "Quick safety check: Is this a project you created or one you trust?",
			ScreenTrust, "Claude Code asks whether to trust this folder: run `claude` once in this folder, answer the trust question, then run strom again."},
		{"older trust dialog", "│ Do you trust the files in this folder?                    │\n│ /home/ada/src/strom                                       │\n│ ❯ Yes, proceed                                            │",
			ScreenTrust, ""},
		{"trust refused exit", "Claude Code didn't start because this folder isn't trusted.", ScreenTrust, ""},
		{"api key approval", " Detected a custom API key in your environment\n ANTHROPIC_API_KEY: sk-ant-...XXXX\n Do you want to use this API key?\n   1. Yes\n ❯ 2. No (recommended)",
			ScreenAPIKey, ""},
		{"offline with ansi", "\x1b[31m Unable to connect to Anthropic services\x1b[39m\r\n Failed to connect to api.anthropic.com: ENOTFOUND\r\n", ScreenOffline, ""},
		{"theme", " Let's get started.\n Choose the text style that looks best with your terminal", ScreenOnboarding, ""},
		{"edit permission", " Edit file\n Do you want to make this edit to main.go?\n ❯ 1. Yes\n   2. Yes, allow all edits during this session\n   3. No", ScreenPermission, ""},
		// 2.1.332 redrawing over cells it keeps: the question and the first choice
		// in pieces, the second choice whole.
		{"bash permission redrawn in pieces", "\x1b[2BRunning echo found > found.txt\x1b[K\x1b[1B Do you w\x1b[11Gnt to proceed?\x1b[1C\x1b[1B❯\x1b[4G1.\x1b[7GYes\x1b[181G\x1b[K\x1b[1B   2. Yes, and always allow access to /tmp/repo from this project\x1b[K\x1b[1B   3.\x1b[7GYes,\x1b[12Gand\x1b[16Gswitch\x1b[23Gto\x1b[26Gauto\x1b[31Gmode\x1b[1B   4. No\x1b[K\x1b[1BEsc to cancel · Tab\x1b[22Gto amend\x1b[K",
			ScreenPermission, ""},
		{"model lists choices in prose", "● The options are:\n  1. Yes, if the register is there\n  2. Yes, and always ask the archive\n", 0, ""},
		{"model asks in prose", "● I can delete the build folder. Do you want to proceed?\n\n❯ ", 0, ""},
		{"question quoted in output", "  ⎿  Do you want to proceed? (y/n) y\n     done", 0, ""},
		{"ordinary session", "❯ say hello\n● hello from mock\n✻ Sautéed for 0s", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ClaudeScreen(tt.text)
			if tt.kind == 0 {
				if ok {
					t.Fatalf("ClaudeScreen = %+v, want no screen", got)
				}
				return
			}
			if !ok || got.Kind != tt.kind {
				t.Fatalf("ClaudeScreen = %+v, %v; want %v", got, ok, tt.kind)
			}
			if tt.advice != "" && got.Advice != tt.advice {
				t.Errorf("advice = %q, want %q", got.Advice, tt.advice)
			}
		})
	}
}

func TestScreenKindString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind ScreenKind
		want string
	}{
		{ScreenOnboarding, "onboarding"}, {ScreenLogin, "login"}, {ScreenTrust, "trust"},
		{ScreenAPIKey, "api-key"}, {ScreenBypass, "bypass"}, {ScreenPermission, "permission"},
		{ScreenOffline, "offline"}, {ScreenKind(99), "ScreenKind(99)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.kind.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			b, err := tt.kind.MarshalText()
			if _, known := screenWords[tt.kind]; known != (err == nil) || (known && string(b) != tt.want) {
				t.Errorf("MarshalText() = %q, %v", b, err)
			}
		})
	}
}

// TestScreensMatchReference keeps testdata/ in step with the reference screens
// in shared/, which sits beside the clone in CI and on developer machines.
func TestScreensMatchReference(t *testing.T) {
	t.Parallel()
	ref := filepath.Join("..", "..", "..", "shared", "reference", "claude-code-2.1.197-screens")
	entries, err := os.ReadDir(ref)
	if os.IsNotExist(err) {
		t.Skipf("no reference screens at %s: testdata/ is the only copy", ref)
	}
	if err != nil {
		t.Fatalf("read reference screens: %v", err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(ref, e.Name()))
			if err != nil {
				t.Fatalf("read reference screen: %v", err)
			}
			got, err := os.ReadFile(filepath.Join(screensDir, e.Name()))
			if err != nil {
				t.Fatalf("read testdata screen (copy it from %s): %v", ref, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("testdata copy differs from %s: copy it again", filepath.Join(ref, e.Name()))
			}
		})
	}
}

// A permission prompt of Claude Code 2.1.332 that a redraw left in pieces (the
// question's "o" kept from the screen before, skipped by a cursor move) is found
// by its heading.
func TestPermissionPromptRedrawn(t *testing.T) {
	t.Parallel()
	raw := "\x1b[1B Bash command\x1b[K\x1b[1C\x1b[1Brun\x1b[6Gsh\x1b[9G-c 'echo\x1b[18Gfound\x1b[1BThis\x1b[7Gcommand\x1b[15Grequires\x1b[24Gapproval" +
		"\x1b[2B Do y\x1b[7Gu want to\x1b[17Gproceed?\x1b[K\x1b[1C\x1b[1B❯\x1b[4G1.\x1b[7GYes\x1b[181G\x1b[K\x1b[1B   2. Yes, and don’t ask again\x1b[K\x1b[1B   4. No\x1b[K"
	s, ok := ClaudeScreen(raw)
	if !ok || s.Kind != ScreenPermission {
		t.Fatalf("ClaudeScreen = %+v, %v; want the permission prompt", s, ok)
	}
	// The heading alone, as prose with no choices after it, is no prompt.
	if s, ok := ClaudeScreen("This command requires approval\nI will ask the person first.\n"); ok {
		t.Errorf("prose read as %+v", s)
	}
}
