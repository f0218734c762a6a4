package hooks

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClaudeOverlay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, strom, session string
	}{
		{"plain path", "/usr/local/bin/strom", "20261130T091204Z-4f2a"},
		{"path with a blank and a quote", "/home/Anna Nováková/it's/strom", "20261130T091204Z-4f2a"},
		{"shell characters", "/tmp/$(touch x);`y`/strom", "s'1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := ClaudeOverlay(tt.strom, tt.session)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				StatusLine struct{ Type, Command string } `json:"statusLine"`
				Hooks      map[string][]struct {
					Matcher string
					Hooks   []struct{ Type, Command string }
				} `json:"hooks"`
				Permissions struct{ Allow []string } `json:"permissions"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("overlay is not valid JSON: %v\n%s", err, b)
			}
			if got.StatusLine.Type != "command" {
				t.Errorf("statusLine type = %q", got.StatusLine.Type)
			}
			checkShell(t, "statusLine", got.StatusLine.Command, tt.strom, "usage", "report", "--session", tt.session)
			for event, want := range map[string]string{
				"Stop": "claude-stop", "UserPromptSubmit": "claude-event", "PostToolUse": "claude-event",
			} {
				m := got.Hooks[event]
				if len(m) != 1 || len(m[0].Hooks) != 1 || m[0].Hooks[0].Type != "command" {
					t.Errorf("hooks.%s = %+v, want one command hook", event, m)
					continue
				}
				checkShell(t, event, m[0].Hooks[0].Command, tt.strom, "hooks", want)
			}
			if !strings.Contains(strings.Join(got.Permissions.Allow, " "), "Bash(strom:*)") {
				t.Errorf("permissions.allow = %q, want Bash(strom:*)", got.Permissions.Allow)
			}
		})
	}
}

// checkShell asserts that sh reads command as exactly the words want.
func checkShell(t *testing.T, what, command string, want ...string) {
	t.Helper()
	// The shell is the judge: printf shows each word it received.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("%s: no sh to judge the quoting: %v", what, err)
	}
	out, err := exec.CommandContext(t.Context(), sh, "-c", "printf '%s\\n' "+command).Output()
	if err != nil {
		t.Fatalf("%s: sh: %v", what, err)
	}
	if diff := cmp.Diff(strings.Join(want, "\n")+"\n", string(out)); diff != "" {
		t.Errorf("%s: sh reads %q as (-want +got):\n%s", what, command, diff)
	}
}

func TestClaudeOverlayNeedsPathAndSession(t *testing.T) {
	t.Parallel()
	tests := []struct{ strom, session, want string }{
		{"", "s1", "build claude settings: the path of strom is empty"},
		{"/bin/strom", "", "build claude settings: the session id is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if _, err := ClaudeOverlay(tt.strom, tt.session); err == nil || err.Error() != tt.want {
				t.Errorf("ClaudeOverlay(%q, %q) error = %v, want %q", tt.strom, tt.session, err, tt.want)
			}
		})
	}
}
