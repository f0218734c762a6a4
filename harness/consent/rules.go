package consent

import (
	"strings"

	"github.com/strom-research/strom/statefiles"
)

// Rule classifies one key of a settings file. Path is the key's place in the file,
// its parts joined by "/": "settings/check.command" for a setting, "agents/*/command"
// for a field of every agent profile, "version" for a top-level key.
type Rule struct {
	Path string
	// Runs: the tree's value starts a program on this computer, or changes which
	// program starts or its arguments. Such a value takes effect only once a
	// person allowed it.
	Runs bool
	// Why says what the key does with programs, or why it starts none.
	Why string
}

// Rules is the one list of every key a settings file can hold. A key the config
// schema has and this list lacks fails the package test: whoever adds a setting
// decides here whether it starts something.
var Rules = []Rule{
	{Path: "version", Why: "the file's format"},

	{Path: "settings/check.command", Runs: true, Why: "a shell line strom runs before a session's commit"},
	{Path: "settings/agent.command", Runs: true, Why: "the program the command agent starts"},
	{Path: "settings/agent.permissions", Runs: true, Why: "the flags the agent starts with, which decide what it may do without asking"},
	{Path: "settings/agent.claudeConfigDir", Runs: true, Why: "Claude Code's own folder, whose settings.json names hooks and helpers Claude Code runs"},
	{Path: "settings/agent.name", Runs: true, Why: "which agent program strom starts, and so which of the research's own files that program loads and runs"},
	{Path: "settings/agent.claudeMode", Runs: true, Why: "headless starts claude -p, which never shows Claude Code's question whether to trust the folder and what its project settings run"},
	{Path: "settings/run.minutes", Why: "a number of minutes"},
	{Path: "settings/run.idleMinutes", Why: "a number of minutes"},
	{Path: "settings/run.sessionsPerTask", Why: "a number of sessions"},
	{Path: "settings/run.followUps", Why: "a depth of follow-up tasks"},
	{Path: "settings/check.summary", Why: "whether a session must rewrite its task's summary before it closes"},
	{Path: "settings/notify.desktop", Why: "a setting of the person's own, which a tree's file cannot set (it is not read from there)"},
	{Path: "settings/notify.details", Why: "a setting of the person's own, which a tree's file cannot set (it is not read from there)"},
	{Path: "settings/notify.url", Why: "a setting of the person's own, which a tree's file cannot set (it is not read from there)"},
	{Path: "settings/sync.remote", Why: "names a remote of this clone's own git config: its URL and the programs git runs for it come from that config, not from the tree"},
	{Path: "settings/messages.language", Why: "the language strom speaks"},
	{Path: "settings/menu.accessible", Why: "read from the user's settings only: how the menu asks"},
	{Path: "settings/init.mode", Why: "read from the user's settings only: what strom init makes of a new research"},
	{Path: "settings/run.gate", Why: "read from the user's settings only, where a person confirms it on a terminal"},

	{Path: "consent/*", Why: "a person's confirmation, read from the user's settings only"},

	{Path: "agents/*/command", Runs: true, Why: "the program an agent profile starts and its arguments"},
	{Path: "agents/*/permissions", Runs: true, Why: "the flags an agent profile adds for a permission level"},
	{Path: "agents/*/prompt", Runs: true, Why: "how the prompt reaches the agent: changes its arguments"},
	{Path: "agents/*/nudge", Runs: true, Why: "text typed into the agent's terminal, where a TUI may run it as a command"},
	{Path: "agents/*/wrap_up", Runs: true, Why: "text typed into the agent's terminal, where a TUI may run it as a command"},
	{Path: "agents/*/finish", Runs: true, Why: "text typed into the agent's terminal, where a TUI may run it as a command"},
	{Path: "agents/*/name", Why: "a label; Lookup names the profile by its key"},
	{Path: "agents/*/extra_time", Why: "whether the wrap-up text (guarded itself) is typed"},
	{Path: "agents/*/interactive", Why: "whether the agent reads typed text (guarded itself)"},
	{Path: "agents/*/pattern_set", Why: "which built-in screen patterns are read"},
	{Path: "agents/*/limit", Why: "screen patterns strom reads, never runs"},
	{Path: "agents/*/login", Why: "screen patterns strom reads, never runs"},
	{Path: "agents/*/binary", Runs: true, Why: "which agent program a profile is: how strom prepares it and which of its project files need allowing"},
	{Path: "agents/*/install", Why: "advice shown to a person; strom runs only the shipped profile's line, on a person's yes"},
	{Path: "agents/*/stream_json", Why: "how the agent's output is read"},

	{Path: "archives/*/probe", Runs: true, Why: "a shell line strom runs to see whether an archive answers"},
}

// RuleFor returns the rule of a key path ("agents/mine/command" matches
// "agents/*/command"); ok is false for a key no rule covers.
func RuleFor(path string) (Rule, bool) {
	parts := strings.Split(path, "/")
	for _, r := range Rules {
		if matches(strings.Split(r.Path, "/"), parts) {
			return r, true
		}
	}
	return Rule{}, false
}

// Guarded reports whether the tree's value of a setting (a name under "settings",
// such as check.command, or an archive's archives.NAME.probe) starts a program.
func Guarded(setting string) bool {
	path := "settings/" + setting
	if name, ok := statefiles.ArchiveOf(setting); ok {
		path = "archives/" + name + "/probe"
	}
	r, ok := RuleFor(path)
	return ok && r.Runs
}

// matches reports whether pattern covers parts: part for part, "*" for any one,
// and a rule for a key covers what lies inside it ("agents/*/permissions" covers
// "agents/claude/permissions/bypass").
func matches(pattern, parts []string) bool {
	if len(pattern) > len(parts) {
		return false
	}
	for i := range pattern {
		if pattern[i] != "*" && pattern[i] != parts[i] {
			return false
		}
	}
	return true
}
