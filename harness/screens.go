package harness

import (
	"github.com/strom-research/strom/harness/limits"
)

// A Claude Code or Codex screen that waits for a person (login method, trust this folder,
// approve an API key, the bypass-mode warning, a permission prompt, first-run
// setup) ends an unattended session: strom never answers it on the person's
// behalf, because a blind Enter may trust a folder, accept bypass mode or run a
// command the person would refuse. The session ends with the screen's advice,
// one sentence saying what to run once by hand, and the run stops for a person.

// personScreen reports a screen on the agent's output that needs a person, and
// how the session ends for it: a login screen means the agent is not logged in,
// any other screen that the agent failed to get going.
//
// Codex's TUI shows two such screens: "Trust this folder?" and its sign-in menu;
// both Codex and codex exec wait for ever for a network they cannot reach.
func personScreen(p sessionPlan, tail []byte) (limits.Screen, End, bool) {
	// A person at the keyboard (strom run --interactive, a chat) answers the
	// screens; only Claude Code shows them.
	if p.Interactive || p.Profile.StreamJSON {
		return limits.Screen{}, 0, false
	}
	var scr limits.Screen
	ok := false
	switch {
	case isClaude(p.Profile):
		scr, ok = limits.ClaudeScreen(string(tail))
	case isCodex(p.Profile):
		scr, ok = limits.CodexScreen(string(tail))
		// Codex redraws the folder's name cell by cell: the session knows it.
		if ok && scr.Kind == limits.ScreenTrust && p.Root != "" {
			scr.Advice = limits.CodexTrustAdvice(p.Root)
		}
	}
	if !ok {
		return limits.Screen{}, 0, false
	}
	if scr.Kind == limits.ScreenLogin {
		return scr, EndNotLoggedIn, true
	}
	return scr, EndAgentFailed, true
}
