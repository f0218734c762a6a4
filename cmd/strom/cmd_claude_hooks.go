package main

import (
	"context"
	"io"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// maxHookInput bounds what a Claude Code hook reads from its stdin: the hook JSON
// is small, and a hook must never hang on a writer that does not stop.
const maxHookInput = 1 << 20

// hooksClaudeStopCommand is Claude Code's Stop hook in the per-run settings
// overlay. It always lets the agent stop: exit 0, nothing printed. Blocking a stop
// (exit 2, or a "block" decision) would keep a model turning forever when it has
// nothing left to do; strom learns that a session is over from `strom session
// close`, the time limit and the agent's exit, not from this hook.
func hooksClaudeStopCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks claude-stop")
	return &ffcli.Command{
		Name:       "claude-stop",
		ShortUsage: "strom hooks claude-stop < hook.json",
		ShortHelp:  "help.hooks.claude-stop.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.hooks.claude-stop.long", "help.hooks.always"),
		Exec: func(ctx context.Context, args []string) error {
			return s.quietHook()
		},
	}
}

// hooksClaudeEventCommand is Claude Code's UserPromptSubmit and PostToolUse hook
// in the overlay. It prints nothing (a UserPromptSubmit hook's output would reach
// the model) and exits 0, so a hook never stands in the agent's way.
func hooksClaudeEventCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom hooks claude-event")
	return &ffcli.Command{
		Name:       "claude-event",
		ShortUsage: "strom hooks claude-event < hook.json",
		ShortHelp:  "help.hooks.claude-event.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.hooks.claude-event.long", "help.hooks.always"),
		Exec: func(ctx context.Context, args []string) error {
			return s.quietHook()
		},
	}
}

// quietHook drains the hook's stdin and keeps the session's time notes off its
// output: Claude Code would show them, or hand them to the model.
func (s *sys) quietHook() error {
	s.json = true
	if s.stdin != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(s.stdin, maxHookInput))
	}
	return nil
}
