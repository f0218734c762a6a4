package agents

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/testenv"
)

func TestCodexNotLoggedIn(t *testing.T) {
	t.Parallel()
	// A stand-in for `codex login status`: logged in when $FAKE_LOGGED_IN is set.
	bin := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\n[ \"$1 $2\" = \"login status\" ] || exit 9\nif [ -n \"$FAKE_LOGGED_IN\" ]; then echo 'Logged in using ChatGPT'; exit 0; fi\necho 'Not logged in'; exit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	custom := "model_provider = \"mock\"\n[model_providers.mock]\nbase_url = \"http://127.0.0.1:9/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n"
	tests := []struct {
		name, config string
		env          map[string]string
		want         string // the advice, "" for logged in
	}{
		{name: "no config, no login", want: "run codex once and log in"},
		{name: "no config, a ChatGPT login", env: map[string]string{"FAKE_LOGGED_IN": "1"}},
		{name: "an API key in the environment", env: map[string]string{"OPENAI_API_KEY": "sk"}},
		{name: "own provider with its key", config: custom, env: map[string]string{"MOCK_API_KEY": "sk"}},
		{name: "own provider without its key", config: custom, want: "set MOCK_API_KEY: Codex's model provider mock (CODEX/config.toml) reads its API key from it"},
		{name: "own provider needing the OpenAI login", config: "model_provider = \"m\"\n[model_providers.m]\nrequires_openai_auth = true\n", want: "run codex once and log in"},
		{name: "own provider without a key", config: "model_provider = \"m\"\n[model_providers.m]\nbase_url = \"http://127.0.0.1:9/v1\"\n"},
		{name: "a local model", config: "model_provider = \"ollama\"\n"},
		{name: "an unreadable config leaves it to the session", config: "model_provider = [\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"CODEX_HOME": home}
			for k, v := range tt.env {
				env[k] = v
			}
			r := &research.Research{Getenv: func(k string) string { return env[k] }}
			prof := Profile{Name: "codex", Binary: "codex", Command: []string{bin}}
			// The stand-in reads the process environment, not r.Getenv.
			if tt.env["FAKE_LOGGED_IN"] != "" {
				prof.Command = []string{writeWrapper(t, bin)}
			}
			got, ok := codexNotLoggedIn(context.Background(), r, SessionPlan{Profile: prof})
			want := strings.Replace(tt.want, "CODEX", home, 1)
			if ok != (want != "") || got != want {
				t.Errorf("codexNotLoggedIn = %q, %v; want %q", got, ok, want)
			}
		})
	}
}

// writeWrapper returns a program that runs bin logged in.
func writeWrapper(t *testing.T, bin string) string {
	t.Helper()
	w := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(w, []byte("#!/bin/sh\nFAKE_LOGGED_IN=1 exec "+bin+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// `codex login status` is answered by what it printed and its exit, whatever it left
// running: a child holding its output neither delays the answer nor outlives it.
func TestCodexLoginLeavesChild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	child := filepath.Join(dir, "child")
	script := "#!/bin/sh\nsleep 300 &\necho $! > '" + child + "'\necho 'Not logged in'\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	r := &research.Research{Getenv: func(k string) string { return map[string]string{"CODEX_HOME": home}[k] }}
	prof := Profile{Name: "codex", Binary: "codex", Command: []string{bin}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type answer struct {
		advice string
		ok     bool
	}
	done := make(chan answer, 1)
	go func() {
		advice, ok := codexNotLoggedIn(ctx, r, SessionPlan{Profile: prof})
		done <- answer{advice, ok}
	}()
	got := testenv.WaitAnswer(t, done, cancel, child)
	if !got.ok || got.advice != "run codex once and log in" {
		t.Errorf("codexNotLoggedIn = %q, %v; want the advice to log in", got.advice, got.ok)
	}
}
