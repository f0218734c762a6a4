package hooks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/strom-research/strom/internal/shellword"
)

// StromPermission is the Claude Code permission rule that lets the agent run
// every strom command without asking, whatever permission level it runs at.
const StromPermission = "Bash(strom:*)"

// overlay is the part of Claude Code's settings file that strom sets per run.
type overlay struct {
	StatusLine  overlayCommand            `json:"statusLine"`
	Hooks       map[string][]overlayMatch `json:"hooks"`
	Permissions overlayPermissions        `json:"permissions"`
}

type overlayCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

type overlayMatch struct {
	Matcher string           `json:"matcher,omitempty"`
	Hooks   []overlayCommand `json:"hooks"`
}

type overlayPermissions struct {
	Allow []string `json:"allow"`
}

// ClaudeOverlay returns the settings file given to Claude Code with
// --settings for one session. Its statusLine runs
// "strom usage report --session ID" (Claude Code hands the status JSON, with
// the plan's rate_limits, on stdin; strom prints a short status line back),
// its Stop hook runs "strom hooks claude-stop" (strom decides whether the
// agent may stop), its UserPromptSubmit and PostToolUse hooks run
// "strom hooks claude-event", and it allows Bash(strom:*) so the agent can
// always run strom commands. strom is the path of the strom binary; it and the
// session id are quoted for the shell.
func ClaudeOverlay(strom string, session string) ([]byte, error) {
	if strom == "" {
		return nil, errors.New("build claude settings: the path of strom is empty")
	}
	if session == "" {
		return nil, errors.New("build claude settings: the session id is empty")
	}
	bin := shellword.Quote(strom)
	hook := func(matcher, args string) []overlayMatch {
		return []overlayMatch{{Matcher: matcher, Hooks: []overlayCommand{{Type: "command", Command: bin + " " + args}}}}
	}
	o := overlay{
		StatusLine: overlayCommand{Type: "command", Command: bin + " usage report --session " + shellword.Quote(session)},
		Hooks: map[string][]overlayMatch{
			"Stop":             hook("", "hooks claude-stop"),
			"UserPromptSubmit": hook("", "hooks claude-event"),
			"PostToolUse":      hook("*", "hooks claude-event"),
		},
		Permissions: overlayPermissions{Allow: []string{StromPermission}},
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("build claude settings: %w", err)
	}
	return append(b, '\n'), nil
}
