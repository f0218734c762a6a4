package agents

import (
	"encoding/json"
	"errors"
	"go/format"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strom-research/strom/harness/limits"
)

func TestShippedProfiles(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		extraTime, interactive, streamJSON bool
		binary, prompt                     string
	}{
		"claude":          {true, true, false, "claude", PromptArgument},
		"claude-headless": {false, false, true, "claude", PromptArgument},
		"codex":           {true, true, false, "codex", PromptArgument},
		"codex-exec":      {false, false, false, "codex", PromptArgument},
		"opencode":        {true, true, false, "opencode", PromptArgument},
		"grok":            {false, false, false, "grok", PromptArgument},
		"command":         {false, false, false, "", PromptArgument},
		"demo":            {true, true, false, "", PromptFile},
	}
	if diff := cmp.Diff([]string{"claude", "claude-headless", "codex", "codex-exec", "command", "demo", "grok", "opencode"}, Names(nil)); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := Lookup(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != name || p.ExtraTime != w.extraTime || p.Interactive != w.interactive ||
				p.StreamJSON != w.streamJSON || p.Binary != w.binary || p.Prompt != w.prompt {
				t.Errorf("Lookup(%q) = %+v, want %+v", name, p, w)
			}
			// Lookup compiles only a profile's own patterns; the set it uses must too.
			if err := p.Patterns().Validate(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if p.ExtraTime && (p.WrapUp == "" || p.Nudge == "" || p.Finish == "") {
				t.Errorf("%s takes extra time but lacks a nudge, wrap-up or finish text", name)
			}
			// The demo agent closes early on these words; a nudge must not
			// contain them, a wrap-up and a finish request must.
			if p.Nudge != "" && typedWrapUp(p.Nudge) {
				t.Errorf("%s: the nudge %q reads as a request to wrap up", name, p.Nudge)
			}
			for _, s := range []string{p.WrapUp, p.Finish} {
				if s != "" && !typedWrapUp(s) {
					t.Errorf("%s: %q does not read as a request to wrap up", name, s)
				}
			}
		})
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	headless, err := Lookup("claude-headless", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := headless.Patterns(), limits.Defaults("claude"); !cmp.Equal(got.Limit, want.Limit) || !cmp.Equal(got.Login, want.Login) || len(got.Limit) == 0 {
		t.Errorf("claude-headless patterns = %+v, want claude's", got)
	}
	over := map[string]json.RawMessage{"codex": json.RawMessage(`{"limit": ["^Out of quota(?: until (?P<reset>.+))?$"]}`)}
	codex, err := Lookup("codex", over)
	if err != nil {
		t.Fatal(err)
	}
	pat := codex.Patterns()
	if diff := cmp.Diff([]string{"^Out of quota(?: until (?P<reset>.+))?$"}, pat.Limit); diff != "" {
		t.Errorf("overridden limit patterns (-want +got):\n%s", diff)
	}
	if !cmp.Equal(pat.Login, limits.Defaults("codex").Login) {
		t.Errorf("login patterns changed although only limit was overridden: %q", pat.Login)
	}
	if s, ok := pat.Match("Out of quota until 5pm\n"); !ok || s.Reset != "5pm" {
		t.Errorf("Match with the override = %+v, %v", s, ok)
	}
}

func TestArgv(t *testing.T) {
	t.Parallel()
	base := Vars{
		Prompt:     "Work on T-1.",
		PromptFile: "/tmp/p.md",
		Settings:   "/tmp/s.json",
		Session:    "20261130T091204Z-4f2a",
		Strom:      "/usr/bin/strom",
	}
	with := func(f func(*Vars)) Vars { v := base; f(&v); return v }
	tests := []struct {
		name      string
		agent     string
		overrides string
		vars      Vars
		want      []string
		wantErr   string
	}{
		// ask says the mode: without a flag Claude Code 2.1.332 starts in "auto".
		{name: "claude asks", agent: "claude", vars: base,
			want: []string{"claude", "--settings", "/tmp/s.json", "--permission-mode", "default", "Work on T-1."}},
		{name: "claude headless asks", agent: "claude-headless", vars: with(func(v *Vars) { v.Permissions = PermAsk }),
			want: []string{"claude", "-p", "--verbose", "--output-format", "stream-json", "--settings", "/tmp/s.json", "--permission-mode", "default", "Work on T-1."}},
		{name: "claude accept edits", agent: "claude", vars: with(func(v *Vars) { v.Permissions = PermAcceptEdits }),
			want: []string{"claude", "--settings", "/tmp/s.json", "--permission-mode", "acceptEdits", "Work on T-1."}},
		{name: "claude bypass with extra args", agent: "claude",
			vars: with(func(v *Vars) { v.Permissions = PermBypass; v.ExtraArgs = []string{"--model", "opus"} }),
			want: []string{"claude", "--settings", "/tmp/s.json", "--dangerously-skip-permissions", "--model", "opus", "Work on T-1."}},
		{name: "claude headless", agent: "claude-headless", vars: with(func(v *Vars) { v.Permissions = PermBypass }),
			want: []string{"claude", "-p", "--verbose", "--output-format", "stream-json", "--settings", "/tmp/s.json", "--dangerously-skip-permissions", "Work on T-1."}},
		{name: "codex", agent: "codex", vars: with(func(v *Vars) { v.Permissions = PermBypass }),
			want: []string{"codex", "--no-daemon", "-c", "allow_login_shell=false", "--dangerously-bypass-approvals-and-sandbox", "Work on T-1."}},
		{name: "codex accept-edits", agent: "codex", vars: with(func(v *Vars) { v.Permissions = PermAcceptEdits }),
			want: []string{"codex", "--no-daemon", "-c", "allow_login_shell=false", "--sandbox", "workspace-write", "--ask-for-approval", "never", "Work on T-1."}},
		{name: "codex exec", agent: "codex-exec", vars: with(func(v *Vars) { v.Permissions = PermAcceptEdits }),
			want: []string{"codex", "exec", "-c", "allow_login_shell=false", "--sandbox", "workspace-write", "Work on T-1."}},
		{name: "opencode bypass", agent: "opencode", vars: with(func(v *Vars) { v.Permissions = PermBypass }),
			want: []string{"opencode", "--auto", "--prompt", "Work on T-1."}},
		{name: "opencode", agent: "opencode", vars: base,
			want: []string{"opencode", "--prompt", "Work on T-1."}},
		{name: "grok", agent: "grok", vars: base,
			want: []string{"grok", "--prompt", "Work on T-1."}},
		{name: "demo", agent: "demo", vars: base,
			want: []string{"/usr/bin/strom", "demo-agent", "--prompt-file", "/tmp/p.md"}},
		{name: "command after --", agent: "command", vars: with(func(v *Vars) { v.ExtraArgs = []string{"./my-agent.sh", "--fast"} }),
			want: []string{"./my-agent.sh", "--fast", "Work on T-1."}},
		{name: "command after -- wins over the setting", agent: "command",
			vars: with(func(v *Vars) { v.ExtraArgs = []string{"./b.sh"}; v.Command = "./a.sh" }),
			want: []string{"./b.sh", "Work on T-1."}},
		{name: "command from the setting", agent: "command",
			vars: with(func(v *Vars) { v.Command = `python3 "my agent.py" --prompt-file {prompt_file} --session={session}` }),
			want: []string{"python3", "my agent.py", "--prompt-file", "/tmp/p.md", "--session=20261130T091204Z-4f2a"}},
		{name: "command with the prompt on stdin", agent: "command", overrides: `{"command": {"prompt": "stdin"}}`,
			vars: with(func(v *Vars) { v.Command = "./agent" }),
			want: []string{"./agent"}},
		{name: "command given in the override as a line", agent: "command", overrides: `{"command": {"command": "./agent --x 'a b'"}}`,
			vars: with(func(v *Vars) { v.ExtraArgs = []string{"--y"} }),
			want: []string{"./agent", "--x", "a b", "--y", "Work on T-1."}},
		{name: "prompt file appended", agent: "command", overrides: `{"command": {"prompt": "file"}}`,
			vars: with(func(v *Vars) { v.Command = "./agent" }),
			want: []string{"./agent", "/tmp/p.md"}},
		{name: "a prompt quoting a placeholder is not expanded again", agent: "grok",
			vars: with(func(v *Vars) { v.Prompt = "see {settings} and {prompt}" }),
			want: []string{"grok", "--prompt", "see {settings} and {prompt}"}},
		{name: "no program", agent: "command", vars: base,
			wantErr: "the command agent needs a program: set agent.command or give it after --: strom run --agent command -- ./my-agent.sh"},
		{name: "unclosed quote in the setting", agent: "command", vars: with(func(v *Vars) { v.Command = `./a "b` }),
			wantErr: "read agent.command: a double quote is not closed"},
		{name: "unknown permissions", agent: "claude", vars: with(func(v *Vars) { v.Permissions = "yolo" }),
			wantErr: `choose permissions "yolo": use ask, accept-edits, bypass`},
		{name: "no settings path", agent: "claude", vars: with(func(v *Vars) { v.Settings = "" }),
			wantErr: "expand agent command: {settings} has no value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var over map[string]json.RawMessage
			if tt.overrides != "" {
				if err := json.Unmarshal([]byte(tt.overrides), &over); err != nil {
					t.Fatal(err)
				}
			}
			p, err := Lookup(tt.agent, over)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Argv(tt.vars)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Argv error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Argv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgvNoCommandIsSentinel(t *testing.T) {
	t.Parallel()
	p, err := Lookup("command", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Argv(Vars{Prompt: "x"}); !errors.Is(err, ErrNoCommand) {
		t.Errorf("Argv error = %v, want ErrNoCommand", err)
	}
}

func TestLookupOverride(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		agent     string
		overrides string
		check     func(t *testing.T, p Profile)
		wantErr   string
		sentinel  error
	}{
		{name: "only given fields replace", agent: "claude", overrides: `{"claude": {"nudge": "Keep going."}}`,
			check: func(t *testing.T, p Profile) {
				shipped, _ := Lookup("claude", nil)
				want := shipped
				want.Nudge = "Keep going."
				if diff := cmp.Diff(want, p); diff != "" {
					t.Errorf("profile (-want +got):\n%s", diff)
				}
			}},
		{name: "permissions merge key by key", agent: "claude",
			overrides: `{"claude": {"permissions": {"bypass": ["--permission-mode", "bypassPermissions"]}}}`,
			check: func(t *testing.T, p Profile) {
				want := map[string][]string{
					"ask":          {"--permission-mode", "default"},
					"accept-edits": {"--permission-mode", "acceptEdits"},
					"bypass":       {"--permission-mode", "bypassPermissions"},
				}
				if diff := cmp.Diff(want, p.Permissions); diff != "" {
					t.Errorf("permissions (-want +got):\n%s", diff)
				}
			}},
		{name: "a new agent from the settings", agent: "gemini",
			overrides: `{"gemini": {"command": ["gemini", "-i", "{prompt}"], "binary": "gemini", "interactive": true}}`,
			check: func(t *testing.T, p Profile) {
				if p.Name != "gemini" || p.Prompt != PromptArgument || !p.Interactive || len(p.Patterns().Limit) == 0 {
					t.Errorf("profile = %+v, patterns %+v", p, p.Patterns())
				}
			}},
		{name: "the override cannot rename", agent: "codex", overrides: `{"codex": {"name": "claude"}}`,
			check: func(t *testing.T, p Profile) {
				if p.Name != "codex" {
					t.Errorf("Name = %q", p.Name)
				}
			}},
		{name: "unknown agent", agent: "gpt", overrides: `{"mine": {"command": ["x"]}}`, sentinel: ErrUnknownAgent,
			wantErr: `unknown agent "gpt": use claude, claude-headless, codex, codex-exec, command, demo, grok, mine, opencode`},
		{name: "misspelt field", agent: "codex", overrides: `{"codex": {"extratime": false}}`, sentinel: ErrBadProfile,
			wantErr: `read the settings for agent codex: json: unknown field "extratime"`},
		{name: "bad prompt word", agent: "codex", overrides: `{"codex": {"prompt": "pipe"}}`, sentinel: ErrBadProfile,
			wantErr: `check agent codex: prompt is "pipe": use argument, stdin, file, typed`},
		{name: "bad permission word", agent: "claude", overrides: `{"claude": {"permissions": {"all": []}}}`, sentinel: ErrBadProfile,
			wantErr: `check agent claude: permissions has "all"`},
		{name: "list placeholder inside a word", agent: "codex", overrides: `{"codex": {"command": ["codex", "--x={args}"]}}`, sentinel: ErrBadProfile,
			wantErr: "{args} must be a whole argument"},
		{name: "bad pattern", agent: "codex", overrides: `{"codex": {"login": ["^(unclosed"]}}`, sentinel: ErrBadProfile,
			wantErr: "check agent codex:"},
		{name: "versions not a version", agent: "mine", overrides: `{"mine": {"command": ["x"], "versions": {"program": "x", "from": "2.1", "to": "2.1.332"}}}`, sentinel: ErrBadProfile,
			wantErr: `check agent mine: versions "2.1" to "2.1.332": give both ends as MAJOR.MINOR.PATCH`},
		{name: "versions backwards", agent: "mine", overrides: `{"mine": {"command": ["x"], "versions": {"program": "x", "from": "2.1.332", "to": "2.1.197"}}}`, sentinel: ErrBadProfile,
			wantErr: `check agent mine: versions 2.1.332 to 2.1.197: the first is newer`},
		{name: "versions of no program", agent: "mine", overrides: `{"mine": {"command": ["x"], "versions": {"from": "2.1.197", "to": "2.1.332"}}}`, sentinel: ErrBadProfile,
			wantErr: `check agent mine: versions "2.1.197" to "2.1.332": name their program`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var over map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.overrides), &over); err != nil {
				t.Fatal(err)
			}
			p, err := Lookup(tt.agent, over)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Lookup error = %v, want %q", err, tt.wantErr)
				}
				if !errors.Is(err, tt.sentinel) {
					t.Errorf("Lookup error %v is not %v", err, tt.sentinel)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}
}

// TestShippedProfilesGenerated: the shipped profiles built in as Go data
// (profiles_gen.go) are what profiles.json says, decoded as a person's override is,
// and the file is what go generate ./harness/agents writes.
func TestShippedProfilesGenerated(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("profiles.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("profiles.json: %v", err)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(raw)), shippedNames[:]); diff != "" {
		t.Errorf("profiles_gen.go names other profiles than profiles.json (-json +gen): run go generate ./harness/agents\n%s", diff)
	}
	for name, r := range raw {
		want := Profile{Prompt: PromptArgument}
		if err := decodeStrict(r, &want); err != nil {
			t.Fatalf("profiles.json: %s: %v", name, err)
		}
		got, ok := shipped(name)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("profile %s built in as %#v, profiles.json says %#v: run go generate ./harness/agents", name, got, want)
		}
	}
	src, err := ShippedSource(data)
	if err == nil {
		src, err = format.Source(src)
	}
	if err != nil {
		t.Fatal(err)
	}
	gen, err := os.ReadFile("profiles_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(src), string(gen)); diff != "" {
		t.Errorf("profiles_gen.go is not what profiles.json says (-json +gen): run go generate ./harness/agents\n%s", diff)
	}
}

func TestLookupReturnsFreshCopies(t *testing.T) {
	t.Parallel()
	p, err := Lookup("claude", nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Permissions["bypass"][0] = "--changed"
	p.Command[0] = "changed"
	again, err := Lookup("claude", nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Permissions["bypass"][0] != "--dangerously-skip-permissions" || again.Command[0] != "claude" {
		t.Errorf("a caller's change leaked into the next Lookup: %+v", again)
	}
}

func TestInstalled(t *testing.T) {
	t.Parallel()
	onPath := func(have ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, h := range have {
				if h == name {
					return "/usr/bin/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	tests := []struct {
		agent string
		path  []string
		want  bool
	}{
		{"claude", []string{"claude"}, true},
		{"claude", []string{"codex"}, false},
		{"claude-headless", []string{"claude"}, true},
		{"codex", nil, false},
		{"demo", nil, true},
		{"command", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			t.Parallel()
			p, err := Lookup(tt.agent, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Installed(onPath(tt.path...)); got != tt.want {
				t.Errorf("Installed with %q on PATH = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// TestShippedInstall: only a shipped profile's install line is offered to run.
func TestShippedInstall(t *testing.T) {
	t.Parallel()
	if got, want := ShippedInstall("claude"), "npm install -g @anthropic-ai/claude-code"; got != want {
		t.Errorf("ShippedInstall(claude) = %q, want %q", got, want)
	}
	for _, b := range []string{"", "sh", "my-agent"} {
		if got := ShippedInstall(b); got != "" {
			t.Errorf("ShippedInstall(%q) = %q, want none", b, got)
		}
	}
}
