package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/internal/shellword"
	"github.com/strom-research/strom/internal/termsafe"

	"github.com/strom-research/strom/messages"
)

// How a profile passes the prompt to its agent (Profile.Prompt).
const (
	// PromptArgument: the prompt text is one argument, where {prompt} stands or
	// else last.
	PromptArgument = "argument"
	// PromptStdin: the harness writes the prompt to the program's terminal
	// after the start, then Enter and Ctrl-D.
	PromptStdin = "stdin"
	// PromptFile: the prompt is in a file whose path stands where {prompt_file}
	// stands, or else last.
	PromptFile = "file"
	// PromptTyped: the harness types the prompt into the TUI once it is ready.
	PromptTyped = "typed"
)

// promptModes lists the Prompt words in the order messages name them.
var promptModes = []string{PromptArgument, PromptStdin, PromptFile, PromptTyped}

// Permission levels a person chooses for an agent (Vars.Permissions). A
// profile maps each to its own flags, which say the level even where it is the
// client's default: a client's default changes between versions, and a settings
// file of the client's own may choose another. "" means PermAsk.
const (
	PermAsk         = "ask"          // the agent asks before acting
	PermAcceptEdits = "accept-edits" // file edits are allowed without asking
	PermBypass      = "bypass"       // everything is allowed without asking
)

var permissionWords = []string{PermAsk, PermAcceptEdits, PermBypass}

// Placeholders in Profile.Command. The scalar ones may stand anywhere inside an
// argument ("--prompt={prompt}"); the list ones must be a whole argument and
// expand to zero or more arguments.
const (
	PhPrompt      = "{prompt}"      // the prompt text, one argument
	PhPromptFile  = "{prompt_file}" // path of a file holding the prompt
	PhSettings    = "{settings}"    // path of the Claude Code settings overlay
	PhSession     = "{session}"     // the session id
	PhStrom       = "{strom}"       // path of the strom binary
	PhPermissions = "{permissions}" // the profile's flags for Vars.Permissions
	PhArgs        = "{args}"        // Vars.ExtraArgs; appended when absent
)

// Words is an argv. In JSON it is an array of strings, or one string read as a
// shell line (see shellword.Split), so a settings value such as
// "./my-agent.sh --fast" works as well as ["./my-agent.sh", "--fast"].
type Words []string

// UnmarshalJSON reads an array of strings or a shell line.
func (w *Words) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var line string
		if err := json.Unmarshal(b, &line); err != nil {
			return err
		}
		words, err := shellword.Split(line)
		if err != nil {
			return err
		}
		*w = words
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*w = list
	return nil
}

// Profile says how to start one agent and how to talk to it. The shipped
// profiles are in profiles.json (built in as Go data, profiles_gen.go: go generate
// ./harness/agents); a user override has the same JSON fields.
type Profile struct {
	// Name is the profile's name: claude, claude-headless, codex, codex-exec, opencode,
	// grok, command, demo, or a name a user defined.
	Name string `json:"name,omitempty"`
	// Command is the argv with placeholders ({prompt}, {prompt_file},
	// {settings}, {session}, {strom}, {permissions}, {args}). Empty for the
	// command profile: the program then comes from Vars.
	Command Words `json:"command"`
	// Permissions maps a permission level (ask, accept-edits, bypass) to the
	// flags that stand for {permissions}. A profile without it takes no flags.
	Permissions map[string][]string `json:"permissions,omitempty"`
	// Prompt is how the prompt is passed: argument, stdin, file or typed.
	Prompt string `json:"prompt"`
	// ExtraTime: the agent can take the 5 extra minutes at the time limit,
	// because text typed into its pty (WrapUp) reaches it.
	ExtraTime bool `json:"extra_time,omitempty"`
	// Interactive: the agent is a TUI (or reads lines) that text can be typed
	// into.
	Interactive bool `json:"interactive,omitempty"`
	// Nudge is typed when the agent sits idle; "" = no nudge.
	Nudge string `json:"nudge,omitempty"`
	// WrapUp is typed at the time limit when ExtraTime is set.
	WrapUp string `json:"wrap_up,omitempty"`
	// Finish is typed when a person asks the session to finish; "" = the
	// agent learns it from the note every strom command prints.
	Finish string `json:"finish,omitempty"`
	// PatternSet names the built-in limit and login patterns to use
	// (limits.Defaults); "" = Name.
	PatternSet string `json:"pattern_set,omitempty"`
	// Limit and Login replace the built-in patterns when not empty.
	Limit []string `json:"limit,omitempty"`
	Login []string `json:"login,omitempty"`
	// Binary is the program whose presence on PATH means the agent is
	// installed; "" = nothing to look for (demo, command).
	Binary string `json:"binary,omitempty"`
	// Install is how a person installs Binary ("npm install -g …"); "" when
	// strom does not know.
	Install string `json:"install,omitempty"`
	// StreamJSON: the output is Claude Code stream-json lines, which carry
	// structured limit and login signals.
	StreamJSON bool `json:"stream_json,omitempty"`
	// MessageJSON: the output is one JSON chat message a line (Grok CLI
	// headless), and the agent reports an API error as its own message: the
	// assistant's messages are read with the limit and login patterns.
	MessageJSON bool `json:"message_json,omitempty"`
	// Versions are the versions of the profile's program whose flags
	// (Permissions above all) strom knows: a client's defaults change between
	// versions (Claude Code 2.1.332 starts in its "auto" mode), so before a
	// session that starts Versions.Program strom asks it `--version` and starts
	// none outside this range, nor one that does not say. The zero range: no
	// check. Only profiles.json sets it; a settings file cannot (the config
	// schema has no such field).
	Versions VersionRange `json:"versions,omitzero"`
}

// Names lists the profiles Lookup knows, the shipped ones and those only the
// overrides define, sorted.
func Names(overrides map[string]json.RawMessage) []string {
	names := slices.Clone(shippedNames[:])
	for n := range overrides {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Lookup returns the profile called name: the shipped profile with the
// user's override object for that name (overrides[name], the same JSON
// fields) laid over it. Only the fields the override gives replace the
// shipped ones; a map field such as permissions is merged key by key. A name
// that only the overrides know defines a new profile. An unknown name, an
// unknown field or an invalid value is an error.
func Lookup(name string, overrides map[string]json.RawMessage) (Profile, error) {
	p, isShipped := shipped(name)
	over, overridden := overrides[name]
	if !isShipped && !overridden {
		return Profile{}, messages.Errorf(ErrUnknownAgent, "agents.unknown", messages.Args{"Agent": termsafe.Excerpt(name), "Names": strings.Join(Names(overrides), ", ")})
	}
	if !isShipped {
		p = Profile{Prompt: PromptArgument}
	}
	if overridden {
		if err := decodeStrict(over, &p); err != nil {
			return Profile{}, messages.Errorf(ErrBadProfile, "agents.bad_settings", messages.Args{"Agent": name, "Error": err.Error()})
		}
	}
	p.Name = name
	if err := p.validate(); err != nil {
		return Profile{}, messages.Errorf(ErrBadProfile, "agents.bad_profile", messages.Args{"Agent": name, "Error": err.Error()})
	}
	return p, nil
}

// decodeStrict lays one JSON object over p, refusing unknown fields so that a
// misspelt setting is reported rather than ignored.
func decodeStrict(b []byte, p *Profile) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(p)
}

func (p Profile) validate() error {
	if !slices.Contains(promptModes, p.Prompt) {
		return fmt.Errorf("prompt is %q: use %s", p.Prompt, strings.Join(promptModes, ", "))
	}
	for k := range p.Permissions {
		if !slices.Contains(permissionWords, k) {
			return fmt.Errorf("permissions has %q: use %s", k, strings.Join(permissionWords, ", "))
		}
	}
	if p.Versions != (VersionRange{}) {
		if err := p.Versions.validate(); err != nil {
			return err
		}
	}
	for _, a := range p.Command {
		for _, ph := range []string{PhPermissions, PhArgs} {
			if a != ph && strings.Contains(a, ph) {
				return fmt.Errorf("command argument %q: %s must be a whole argument", a, ph)
			}
		}
	}
	// The built-in pattern sets are compiled by their own tests: only the
	// profile's own lists are compiled here, and a lookup reads no pattern set.
	return limits.Patterns{Agent: p.Name, Limit: p.Limit, Login: p.Login}.Validate()
}

// Patterns returns the limit and login patterns of this agent: the built-in
// set named by PatternSet (or Name), each list replaced by the profile's own
// when it has one.
func (p Profile) Patterns() limits.Patterns {
	set := p.PatternSet
	if set == "" {
		set = p.Name
	}
	pat := limits.Defaults(set)
	pat.Agent = p.Name
	if len(p.Limit) > 0 {
		pat.Limit = slices.Clone(p.Limit)
	}
	if len(p.Login) > 0 {
		pat.Login = slices.Clone(p.Login)
	}
	return pat
}

// Installed reports whether the agent's program is on PATH; lookPath is
// exec.LookPath in production. A profile without a Binary (demo, command) is
// always installed.
func (p Profile) Installed(lookPath func(string) (string, error)) bool {
	if p.Binary == "" {
		return true
	}
	_, err := lookPath(p.Binary)
	return err == nil
}

// Vars are the values Argv puts into a profile's command.
type Vars struct {
	Prompt     string // the prompt text: {prompt}
	PromptFile string // path of a file holding the prompt: {prompt_file}
	Settings   string // path of the Claude Code settings overlay: {settings}
	Session    string // the session id: {session}
	Strom      string // path of the strom binary: {strom}
	// Permissions is ask, accept-edits or bypass ("" = ask); the profile's
	// flags for it stand for {permissions}.
	Permissions string
	// ExtraArgs are the words a person gave after "--". For a profile without
	// a command (command) they are the program and its arguments; otherwise
	// they stand for {args}, or come last.
	ExtraArgs []string
	// Command is the agent.command setting, a shell line, used by a profile
	// without a command when no ExtraArgs are given.
	Command string
}

// Argv returns the argv that starts the agent. Placeholders are expanded; when
// the command names neither {prompt} nor {prompt_file}, the prompt text
// (Prompt "argument") or the prompt file's path (Prompt "file") comes last.
// A placeholder whose value is empty is an error, as is a profile with no
// program.
func (p Profile) Argv(v Vars) ([]string, error) {
	tmpl := []string(p.Command)
	extra := v.ExtraArgs
	if len(tmpl) == 0 {
		switch {
		case len(v.ExtraArgs) > 0:
			tmpl, extra = v.ExtraArgs, nil
		case strings.TrimSpace(v.Command) != "":
			words, err := shellword.Split(v.Command)
			if err != nil {
				return nil, fmt.Errorf("read agent.command: %w", err)
			}
			tmpl = words
		}
	}
	if len(tmpl) == 0 {
		return nil, messages.Errorf(ErrNoCommand, "agents.no_command", messages.Args{"Agent": p.Name})
	}
	perm := v.Permissions
	if perm == "" {
		perm = PermAsk
	}
	if !slices.Contains(permissionWords, perm) {
		return nil, fmt.Errorf("choose permissions %q: use %s", perm, strings.Join(permissionWords, ", "))
	}

	// Splice the list placeholders first, so that their words are expanded
	// like the rest but never spliced again.
	words := make([]string, 0, len(tmpl)+len(extra)+2)
	usedArgs := false
	for _, a := range tmpl {
		switch a {
		case PhArgs:
			words = append(words, extra...)
			usedArgs = true
		case PhPermissions:
			words = append(words, p.Permissions[perm]...)
		default:
			words = append(words, a)
		}
	}
	if !usedArgs {
		words = append(words, extra...)
	}
	usesPrompt := slices.ContainsFunc(words, func(a string) bool {
		return strings.Contains(a, PhPrompt) || strings.Contains(a, PhPromptFile)
	})
	if !usesPrompt {
		switch p.Prompt {
		case PromptArgument:
			words = append(words, PhPrompt)
		case PromptFile:
			words = append(words, PhPromptFile)
		}
	}

	values := []struct{ ph, val string }{
		{PhPrompt, v.Prompt},
		{PhPromptFile, v.PromptFile},
		{PhSettings, v.Settings},
		{PhSession, v.Session},
		{PhStrom, v.Strom},
	}
	pairs := make([]string, 0, 2*len(values))
	for _, x := range values {
		pairs = append(pairs, x.ph, x.val)
	}
	// One pass: a value that itself holds a placeholder (a prompt quoting
	// "{settings}") is never expanded again.
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(words))
	for i, a := range words {
		for _, x := range values {
			if x.val == "" && strings.Contains(a, x.ph) {
				return nil, fmt.Errorf("expand agent command: %s has no value", x.ph)
			}
		}
		out[i] = r.Replace(a)
	}
	return out, nil
}

// ShippedInstall is the install line of the shipped profile whose program is binary
// ("" when none says one). Only a shipped line is ever run, on a person's yes: the
// settings of a research could name any command.
func ShippedInstall(binary string) string {
	if binary == "" {
		return ""
	}
	for _, name := range shippedNames {
		p, err := Lookup(name, nil)
		if err == nil && p.Binary == binary && p.Install != "" {
			return p.Install
		}
	}
	return ""
}
