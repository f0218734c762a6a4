package consent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/strom-research/strom/statefiles"
)

// Value is one tree setting that starts a program, with the value the tree gives it.
type Value struct {
	// Setting is how a person names it: check.command, agents.mine.command.
	Setting string `json:"setting"`
	// Text is the value: a string as it is, anything else as compact JSON with
	// its keys sorted.
	Text string `json:"value"`
	// SHA256 is the hash allowing records, of Text.
	SHA256 string `json:"sha256"`
	// Why says what the setting starts.
	Why string `json:"why"`
	// File is the work tree's path of an agent's own project file (AgentFiles),
	// "" for a setting; Setting is the same path then, and SHA256 (and Text) the
	// hash of what needs allowing of it.
	File string `json:"file,omitempty"`
	// Program is the agent program that reads File.
	Program string `json:"program,omitempty"`

	path []string // the key's place in the file
	json bool     // Text is JSON, not a string
}

// WhyID is the catalog id of Why (allow.why.<key>), for the person's language.
func (v Value) WhyID() string {
	if v.File != "" {
		return FileWhyID(v.Program, v.File)
	}
	r, _ := RuleFor(strings.Join(v.path, "/"))
	return WhyID(r.Path)
}

// WhyID is the catalog id of a rule's Why: settings/check.command is
// allow.why.check_command, agents/*/command allow.why.profile_command,
// archives/*/probe allow.why.archive_probe.
func WhyID(rulePath string) string {
	k := strings.NewReplacer("settings/", "", "agents/*/", "profile_", "archives/*/", "archive_", ".", "_", "/", "_", "*", "any").Replace(rulePath)
	return "allow.why." + strings.ToLower(k)
}

// Shown is the value as a person reads it: a string quoted, anything else as its
// JSON, a file as its hash.
func (v Value) Shown() string {
	if v.File != "" {
		return "sha256 " + v.SHA256
	}
	if v.json {
		return v.Text
	}
	return fmt.Sprintf("%q", v.Text)
}

// Quoted is the value for a sentence: Shown, cut after 100 characters.
func (v Value) Quoted() string {
	t := v.Shown()
	if r := []rune(t); len(r) > 100 {
		t = string(r[:99]) + "…"
	}
	return t
}

// Values lists the settings in c that start a program, in the order of Rules and,
// within a rule, by name. c is a tree's settings file; the user's need no allowing.
func Values(c *statefiles.Config) ([]Value, error) {
	if c == nil {
		return nil, nil
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("read the settings: %w", err)
	}
	return valuesOf(data)
}

// valuesOf lists the guarded values of a settings file's JSON.
func valuesOf(data []byte) ([]Value, error) {
	doc, err := decodeDoc(data)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, r := range Rules {
		if !r.Runs {
			continue
		}
		for _, p := range expand(doc, strings.Split(r.Path, "/")) {
			v, _ := lookup(doc, p)
			text, err := canonical(v)
			if err != nil {
				return nil, err
			}
			_, isString := v.(string)
			sum := sha256.Sum256([]byte(text))
			out = append(out, Value{Setting: settingName(p), Text: text, SHA256: hex.EncodeToString(sum[:]), Why: r.Why, path: p, json: !isString})
		}
	}
	return out, nil
}

func decodeDoc(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("read the settings: %w", err)
	}
	return doc, nil
}

// expand gives the concrete key paths in doc that pattern matches.
func expand(doc any, pattern []string) [][]string {
	if len(pattern) == 0 {
		return [][]string{nil}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	keys := []string{pattern[0]}
	if pattern[0] == "*" {
		keys = keys[:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	var out [][]string
	for _, k := range keys {
		child, ok := m[k]
		if !ok {
			continue
		}
		for _, rest := range expand(child, pattern[1:]) {
			out = append(out, append([]string{k}, rest...))
		}
	}
	return out
}

// lookup finds the value at a concrete key path.
func lookup(doc any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if doc, ok = m[k]; !ok {
			return nil, false
		}
	}
	return doc, true
}

// canonical is a value as text: a string as it is, anything else as JSON with
// sorted keys, so the same value always hashes the same.
func canonical(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("read the settings: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// settingName is how a person names a key path: a setting by its own name, other
// keys by their parts joined with dots.
func settingName(p []string) string {
	if len(p) == 2 && p[0] == "settings" {
		return p[1]
	}
	return strings.Join(p, ".")
}

// textIn is the value a settings file's JSON gives the key path, and whether it
// gives one.
func textIn(data []byte, path []string) (string, bool) {
	doc, err := decodeDoc(data)
	if err != nil {
		return "", false
	}
	v, ok := lookup(doc, path)
	if !ok {
		return "", false
	}
	t, err := canonical(v)
	return t, err == nil
}
