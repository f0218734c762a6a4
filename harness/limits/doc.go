// Package limits recognises, in an agent CLI's output, that the agent hit its
// subscription limit (and when that limit resets) or that it is not logged in,
// and recognises the Claude Code screens that need a person.
//
// Its guarantee: a signal is reported only for a message the agent itself
// printed, never for output that merely mentions one. Every pattern is anchored
// at the start of a screen line (after TUI glyphs such as ⎿, ●, ■, ❯ or >), so
// grep results ("path:"), quoted strings, diffs, prose and JSON that contain a
// limit sentence do not match. Patterns are data (patterns.json, one set per
// agent) that agent profiles carry and users may override; structured signals
// from stream-json and Codex --json events are read by ParseStreamJSON and are
// preferred to screen text.
package limits
