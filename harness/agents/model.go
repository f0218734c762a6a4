package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/strom-research/strom/internal/termsafe"
)

// maxModelText bounds a model id or a client version kept for a commit's trailer:
// outside text, on one line.
const maxModelText = 200

// ModelText is a model id or a client version as a trailer carries it: on one
// line, without control characters, at most maxModelText bytes; "" for none.
func ModelText(s string) string {
	s = strings.TrimSpace(termsafe.Line(strings.TrimSpace(s)))
	if len(s) > maxModelText {
		s = strings.ToValidUTF8(s[:maxModelText], "")
	}
	return s
}

// ConfiguredModel is the model the agent's client is configured to use, as the
// client reads it before it starts: its command line (argv, the words strom starts
// it with), then the environment and its configuration files, in the client's
// own order. "" when strom does not know the client or nothing names a model
// (the client then takes its own default, which it does not say). getenv is the
// agent's environment; dir is the folder the agent starts in.
//
//   - Claude Code: --model, ANTHROPIC_MODEL (its own report, the statusLine or
//     stream-json, comes first where there is one).
//   - Codex: -m/--model, -c model=…, then model in $CODEX_HOME/config.toml
//     (~/.codex), or the model of the profile it names.
//   - OpenCode: -m/--model, then model in the project's opencode.json, the file
//     OPENCODE_CONFIG names, or ~/.config/opencode/opencode.json.
//   - Grok CLI: -m/--model, GROK_MODEL, then model in the project's
//     .grok/settings.json or defaultModel in ~/.grok/user-settings.json.
func ConfiguredModel(binary string, argv []string, getenv func(string) string, dir string) string {
	if m := modelFlag(binary, argv); m != "" {
		return ModelText(m)
	}
	home := getenv("HOME")
	var m string
	switch binary {
	case "claude":
		m = getenv("ANTHROPIC_MODEL")
	case "codex":
		codexHome := getenv("CODEX_HOME")
		if codexHome == "" && home != "" {
			codexHome = filepath.Join(home, ".codex")
		}
		if codexHome != "" {
			m = codexConfigModel(filepath.Join(codexHome, "config.toml"))
		}
	case "opencode":
		m = jsonKey(filepath.Join(dir, "opencode.json"), "model")
		if m == "" {
			m = jsonKey(filepath.Join(dir, "opencode.jsonc"), "model")
		}
		if m == "" && getenv("OPENCODE_CONFIG") != "" {
			m = jsonKey(getenv("OPENCODE_CONFIG"), "model")
		}
		if m == "" {
			cfg := getenv("XDG_CONFIG_HOME")
			if cfg == "" && home != "" {
				cfg = filepath.Join(home, ".config")
			}
			if cfg != "" {
				m = jsonKey(filepath.Join(cfg, "opencode", "opencode.json"), "model")
			}
		}
	case "grok":
		m = getenv("GROK_MODEL")
		if m == "" {
			m = jsonKey(filepath.Join(dir, ".grok", "settings.json"), "model")
		}
		if m == "" && home != "" {
			m = jsonKey(filepath.Join(home, ".grok", "user-settings.json"), "defaultModel")
		}
	}
	return ModelText(m)
}

// modelFlag reads the model from a client's command line: -m/--model (Claude
// Code: --model), and Codex's -c/--config model=….
func modelFlag(binary string, argv []string) string {
	short := binary == "codex" || binary == "opencode" || binary == "grok"
	if binary != "claude" && !short {
		return ""
	}
	found := ""
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		next := ""
		if i+1 < len(argv) {
			next = argv[i+1]
		}
		switch {
		case a == "--":
			return found
		case a == "--model" || (short && a == "-m"):
			found, i = next, i+1
		case strings.HasPrefix(a, "--model="):
			found = strings.TrimPrefix(a, "--model=")
		case binary == "codex" && (a == "-c" || a == "--config"):
			if v, ok := strings.CutPrefix(next, "model="); ok {
				found = strings.Trim(v, `"'`)
			}
			i++
		}
	}
	return found
}

// codexConfigModel is the model a Codex config.toml names: the profile's it
// selects, else its own.
func codexConfigModel(path string) string {
	data, err := readSmall(path)
	if err != nil {
		return ""
	}
	var cfg struct {
		Model    string `toml:"model"`
		Profile  string `toml:"profile"`
		Profiles map[string]struct {
			Model string `toml:"model"`
		} `toml:"profiles"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return ""
	}
	if p, ok := cfg.Profiles[cfg.Profile]; ok && cfg.Profile != "" && p.Model != "" {
		return p.Model
	}
	return cfg.Model
}

// jsonKey is a string at the top of a JSON file, "" when the file or the key is
// not there or not JSON.
func jsonKey(path, key string) string {
	data, err := readSmall(path)
	if err != nil {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(data), &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}

// readSmall reads a client's settings file; one past 1 MiB is not read.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err == nil && len(data) > 1<<20 {
		err = errors.New("read client settings: larger than 1 MiB")
	}
	return data, err
}
