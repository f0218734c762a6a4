package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/procgroup"
)

// codexStatusTimeout bounds `codex login status`, which answers at once from the
// files under CODEX_HOME.
const codexStatusTimeout = 30 * time.Second

// codexLocalProviders are Codex's built-in providers that need no login.
var codexLocalProviders = []string{"oss", "ollama", "lmstudio"}

// codexConfig is what strom reads of Codex's config.toml: the model provider and,
// for a provider of the person's own, where its key comes from.
type codexConfig struct {
	ModelProvider  string `toml:"model_provider"`
	ModelProviders map[string]struct {
		EnvKey             string `toml:"env_key"`
		RequiresOpenAIAuth bool   `toml:"requires_openai_auth"`
	} `toml:"model_providers"`
}

// IsCodex reports whether a profile starts Codex, its TUI or codex exec.
func IsCodex(p Profile) bool {
	return filepath.Base(p.Binary) == "codex" || p.PatternSet == "codex" || p.Name == "codex"
}

// codexHome is Codex's own folder: CODEX_HOME, else ~/.codex.
func codexHome(r *research.Research) string {
	if h := strings.TrimSpace(r.Getenv("CODEX_HOME")); h != "" {
		return h
	}
	return filepath.Join(r.Getenv("HOME"), ".codex")
}

// codexNotLoggedIn is R7.7's check before the first session for Codex, as cheap as
// Codex allows: a provider of the person's own that takes its key from the
// environment needs that variable set; one that needs no key passes; the OpenAI
// login (the default provider, or one with requires_openai_auth) is asked of
// `codex login status`, which says "Not logged in" without one. It returns the
// sentence for the person and true when Codex cannot log in. When strom cannot
// tell (no codex to ask, an unreadable config) it lets the session find out.
func codexNotLoggedIn(ctx context.Context, r *research.Research, p SessionPlan) (string, bool) {
	var cfg codexConfig
	path := filepath.Join(codexHome(r), "config.toml")
	if _, err := toml.DecodeFile(path, &cfg); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	provider := cfg.ModelProvider
	if provider == "" {
		provider = "openai"
	}
	if mp, ok := cfg.ModelProviders[provider]; ok && !mp.RequiresOpenAIAuth {
		if mp.EnvKey != "" && strings.TrimSpace(r.Getenv(mp.EnvKey)) == "" {
			return fmt.Sprintf("set %s: Codex's model provider %s (%s) reads its API key from it", mp.EnvKey, provider, path), true
		}
		return "", false
	}
	if slices.Contains(codexLocalProviders, provider) {
		return "", false
	}
	if r.Getenv("CODEX_API_KEY") != "" || r.Getenv("OPENAI_API_KEY") != "" {
		return "", false
	}
	bin := "codex"
	if len(p.Profile.Command) > 0 {
		bin = p.Profile.Command[0]
	}
	ctx, cancel := context.WithTimeout(ctx, codexStatusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "login", "status")
	if r.Tree != nil {
		cmd.Dir = r.Tree.Root
	}
	// Codex and whatever it started end with its answer.
	var out bytes.Buffer
	w := &capped.Writer{B: &out, N: 1 << 16}
	cmd.Stdout, cmd.Stderr = w, w
	if err := procgroup.Run(cmd); err == nil {
		return "", false
	}
	if sig, ok := p.Profile.Patterns().Match(out.String()); ok && sig.Text == "Not logged in" {
		return LoginAdvice(r, p), true
	}
	return "", false
}
