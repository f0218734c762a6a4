package statefiles

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/schemas"
)

// Config is a settings file: the user's ($XDG_CONFIG_HOME/strom/config.json) or the
// tree's (.strom/config.json). Both have the same shape.
type Config struct {
	Version  int                        `json:"version"`
	Settings map[string]any             `json:"settings,omitempty"`
	Consent  map[string]string          `json:"consent,omitempty"`
	Agents   map[string]json.RawMessage `json:"agents,omitempty"`
	// Archives are the outside sources tasks can need, by name (archives.go).
	Archives map[string]Archive `json:"archives,omitempty"`
}

// NewConfig returns an empty settings file.
func NewConfig() *Config { return &Config{Version: 1} }

// SettingsFile is one settings file on disk.
type SettingsFile struct {
	Path  string // absolute path
	Shown string // how messages name it
}

// TreeConfig is the tree's settings file.
func (t *Tree) TreeConfig() SettingsFile {
	return SettingsFile{Path: t.Path(ConfigFile), Shown: t.rel(ConfigFile)}
}

// UserConfigDir is $XDG_CONFIG_HOME/strom, or ~/.config/strom.
func UserConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "strom")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".config", "strom")
}

// UserConfig is the user's settings file.
func UserConfig(getenv func(string) string) SettingsFile {
	p := filepath.Join(UserConfigDir(getenv), "config.json")
	return SettingsFile{Path: p, Shown: p}
}

// Load reads and validates the settings; a missing file is empty.
func (f SettingsFile) Load() (*Config, error) {
	c := NewConfig()
	if _, err := loadFile(f.Path, f.Shown, schemas.Config, c); err != nil {
		return nil, err
	}
	// Numbers come back as float64 from encoding/json; keep whole numbers whole.
	for k, v := range c.Settings {
		if n, ok := v.(float64); ok && n == float64(int64(n)) {
			c.Settings[k] = int64(n)
		}
	}
	return c, nil
}

// Save validates and writes the settings.
func (f SettingsFile) Save(c *Config) error {
	return saveFile(f.Path, f.Shown, schemas.Config, c)
}

// Update loads, changes and saves the settings under lock. The user file is locked
// by its own lock file beside it; the tree's by the tree lock.
func (f SettingsFile) Update(ctx context.Context, fn func(*Config) error) error {
	return f.locked(ctx, func() error {
		c, err := f.Load()
		if err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
		return f.Save(c)
	})
}

// locked runs fn under the lock of the folder of f: run/lock beside the file,
// for the tree's settings .strom/run/lock, the same lock every state change takes.
func (f SettingsFile) locked(ctx context.Context, fn func() error) error {
	lock := filepath.Join(RunDir, "lock")
	unlock, err := LockFile(ctx, filepath.Join(filepath.Dir(f.Path), lock), filepath.ToSlash(filepath.Join(filepath.Dir(f.Shown), lock)))
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// Kind is the type of a setting's value.
type Kind int

// Kinds of settings.
const (
	KindInt Kind = iota
	KindString
	KindEnum
	KindURL // an http:// or https:// address
)

// Key describes one setting: its type, its allowed values and where it may be set.
type Key struct {
	Name     string
	Kind     Kind
	Min, Max int
	Values   []string
	Default  string // shown when nothing is set; "" = unset
	Env      string // an environment variable that overrides the files
	UserOnly bool   // a setting for the whole computer, never for one tree
	Person   bool   // a person confirms changes on a terminal
	Help     string
}

// Keys lists every setting strom knows, in the order `strom config` shows them.
var Keys = []Key{
	{Name: "run.minutes", Kind: KindInt, Min: 5, Max: 600, Default: "60", Env: "STROM_RUN_MINUTES", Help: "time limit of one session, in minutes"},
	{Name: "run.idleMinutes", Kind: KindInt, Min: 1, Max: 600, Default: "10", Help: "minutes without output before an agent is nudged; twice that ends the session"},
	{Name: "run.sessionsPerTask", Kind: KindInt, Min: 0, Max: 100, Default: "10", Help: "sessions in a row a task may get without ending done or waiting before it is parked; 0 = no limit"},
	{Name: "run.followUps", Kind: KindInt, Min: 0, Max: 100, Default: "10", Help: "how deep a chain of follow-up tasks may grow, each added by a session of the one before, before the next is parked for a person; 0 = no limit"},
	{Name: "run.gate", Kind: KindString, UserOnly: true, Person: true, Help: "the condition asked before each session: \"<name> [args]\""},
	{Name: "agent.name", Kind: KindEnum, Values: []string{"claude", "codex", "opencode", "grok", "command", "demo"}, Help: "the agent that works in this research"},
	{Name: "agent.command", Kind: KindString, Help: "the program the command agent starts (a shell line)"},
	{Name: "agent.claudeConfigDir", Kind: KindString, Help: "Claude Code's own config folder (like CLAUDE_CONFIG_DIR)"},
	{Name: "agent.claudeMode", Kind: KindEnum, Values: []string{"tui", "headless"}, Default: "tui", Help: "run Claude Code as its interactive TUI or headless with stream-json"},
	{Name: "agent.permissions", Kind: KindEnum, Values: []string{"ask", "accept-edits", "bypass"}, Default: "accept-edits", Person: true, Help: "what the agent may do without asking"},
	{Name: "check.command", Kind: KindString, Help: "a shell line that must pass before a session's commit"},
	{Name: "check.summary", Kind: KindEnum, Values: []string{"on", "off"}, Default: "off", Help: "a session that recorded something may close only once it rewrote its task's summary (strom task summary)"},
	{Name: "init.mode", Kind: KindEnum, Values: []string{ModeResearch, ModeArchive}, Default: ModeResearch, UserOnly: true, Help: "what strom init makes of a new research: research, or only a Strom archive (strom setup asks)"},
	{Name: "sync.remote", Kind: KindString, Help: "the git remote several machines share this research through (claims and session commits are pushed there); unset = this clone alone"},
	{Name: "menu.accessible", Kind: KindEnum, Values: []string{"on", "off"}, Default: "off", UserOnly: true, Help: "the menu asks with numbered choices and plain lines (for screen readers and scripts), as ACCESSIBLE=1 in the environment does"},
	{Name: "notify.desktop", Kind: KindEnum, Values: []string{"on", "off"}, Default: "on", UserOnly: true, Help: "a desktop notification when a run ends and when a session leaves a question or parks a task"},
	{Name: "notify.url", Kind: KindURL, UserOnly: true, Help: "an address strom POSTs the same notification to (ntfy, Gotify, a webhook); unset = none"},
	{Name: "notify.details", Kind: KindEnum, Values: []string{"on", "off"}, Default: "off", UserOnly: true, Help: "the notifications carry the tasks' titles, questions and park reasons and the run's whole end line"},
	{Name: "messages.language", Kind: KindEnum, Values: []string{"en", "de", "cs", "system"}, Default: "system", UserOnly: true, Help: "the language of strom's messages; system follows LC_ALL, LC_MESSAGES, LANG"},
}

// RunSessions is the range of the sessions one strom run may be asked for (--max,
// the menu's "how many"): not a setting, so not among Keys, but kept with them so
// that every range a run takes has one place.
var RunSessions = Key{Name: "run.max", Kind: KindInt, Min: 1, Max: 100, Help: "at most this many sessions in one run"}

// LookupKey returns the description of a setting.
func LookupKey(name string) (Key, error) {
	if k, ok, err := archiveKey(name); ok {
		return k, err
	}
	for _, k := range Keys {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	sort.Strings(names)
	return Key{}, messages.Errorf(nil, "setting.unknown", messages.Args{"Name": termsafe.Excerpt(name), "Names": strings.Join(names, ", ")})
}

// RangeSentence describes the allowed values in words a Printer says in the
// person's language.
func (k Key) RangeSentence() *messages.Error {
	switch k.Kind {
	case KindInt:
		return messages.New("setting.range_int", messages.Args{"Min": k.Min, "Max": k.Max})
	case KindEnum:
		return messages.New("setting.range_enum", messages.Args{"Values": strings.Join(k.Values, ", ")})
	case KindURL:
		return messages.New("setting.range_url", nil)
	default:
		return messages.New("setting.range_text", nil)
	}
}

// Parse checks a value given as text and returns it typed. A refusal repeats at
// most the value's start (termsafe.Excerpt); text that is not UTF-8 is refused
// as every text strom takes is (ErrNotUTF8).
func (k Key) Parse(s string) (any, error) {
	bad := messages.Errorf(nil, "setting.bad_value", messages.Args{"Key": k.Name, "Range": k.RangeSentence(), "Value": termsafe.Excerpt(s)})
	switch k.Kind {
	case KindInt:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < k.Min || n > k.Max {
			return nil, bad
		}
		return int64(n), nil
	case KindEnum:
		for _, v := range k.Values {
			if v == s {
				return s, nil
			}
		}
		return nil, bad
	case KindURL:
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(s, " \t\r\n") {
			return nil, bad
		}
		return s, nil
	default:
		if strings.TrimSpace(s) == "" {
			return nil, bad
		}
		if !utf8.ValidString(s) {
			return nil, notUTF8(messages.New("setting.value_of", messages.Args{"Key": k.Name}), "")
		}
		return s, nil
	}
}

// Format writes a setting's value as text.
func Format(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// Source says where a resolved setting came from.
type Source string

// Sources of a setting, strongest first.
const (
	FromFlag    Source = "flag"
	FromEnv     Source = "environment"
	FromTree    Source = "tree"
	FromUser    Source = "user"
	FromDefault Source = "default"
)

// Resolved is a setting's value and where it came from.
type Resolved struct {
	Key    Key
	Value  string
	Source Source
	Where  string // the flag, variable or file that won
}

// Settings are the user's and the tree's settings read together.
type Settings struct {
	User, Tree *Config
	UserFile   SettingsFile
	TreeFile   SettingsFile
	Getenv     func(string) string
}

// LoadSettings reads the user's settings and, when tree is not nil, the tree's.
func LoadSettings(getenv func(string) string, tree *Tree) (Settings, error) {
	s := Settings{UserFile: UserConfig(getenv), Getenv: getenv}
	var err error
	if s.User, err = s.UserFile.Load(); err != nil {
		return Settings{}, err
	}
	if tree != nil {
		s.TreeFile = tree.TreeConfig()
		if s.Tree, err = s.TreeFile.Load(); err != nil {
			return Settings{}, err
		}
	}
	return s, nil
}

// Resolve gives a setting's value in the order flag > environment > tree > user >
// default (R7.2). flag is the value of a command-line flag, "" when not given.
func (s Settings) Resolve(name, flag string) (Resolved, error) {
	k, err := LookupKey(name)
	if err != nil {
		return Resolved{}, err
	}
	if flag != "" {
		if _, err := k.Parse(flag); err != nil {
			return Resolved{}, err
		}
		return Resolved{k, flag, FromFlag, "--" + strings.TrimPrefix(name, "run.")}, nil
	}
	if k.Env != "" && s.Getenv != nil {
		if v := s.Getenv(k.Env); v != "" {
			if _, err := k.Parse(v); err != nil {
				return Resolved{}, messages.Errorf(err, "setting.variable", messages.Args{"Env": k.Env, "Error": err})
			}
			return Resolved{k, v, FromEnv, k.Env}, nil
		}
	}
	if s.Tree != nil && !k.UserOnly {
		if v, ok := s.Tree.value(name); ok {
			return Resolved{k, Format(v), FromTree, s.TreeFile.Shown}, nil
		}
	}
	if s.User != nil {
		if v, ok := s.User.value(name); ok {
			return Resolved{k, Format(v), FromUser, s.UserFile.Shown}, nil
		}
	}
	return Resolved{k, k.Default, FromDefault, "default"}, nil
}

// Int resolves a whole-number setting.
func (s Settings) Int(name, flag string) (int, Resolved, error) {
	r, err := s.Resolve(name, flag)
	if err != nil {
		return 0, r, err
	}
	n, _ := strconv.Atoi(r.Value)
	return n, r, nil
}
