package harness

import (
	"github.com/strom-research/strom/harness/limits"
)

// A Claude Code screen that waits for a person (login method, trust this folder,
// approve an API key, the bypass-mode warning, a permission prompt, first-run
// setup) ends an unattended session: strom never answers it on the person's
// behalf, because a blind Enter may trust a folder, accept bypass mode or run a
// command the person would refuse. The session ends with the screen's advice,
// one sentence saying what to run once by hand, and the run stops for a person.

// personScreen reports a screen on the agent's output that needs a person, and
// how the session ends for it: a login screen means the agent is not logged in,
// any other screen that the agent failed to get going.
func personScreen(p sessionPlan, tail []byte) (limits.Screen, End, bool) {
	// A person at the keyboard (strom run --interactive, a chat) answers the
	// screens; only Claude Code shows them.
	if p.Interactive || !isClaude(p.Profile) || p.Profile.StreamJSON {
		return limits.Screen{}, 0, false
	}
	scr, ok := limits.ClaudeScreen(string(tail))
	if !ok {
		return limits.Screen{}, 0, false
	}
	if scr.Kind == limits.ScreenLogin {
		return scr, EndNotLoggedIn, true
	}
	return scr, EndAgentFailed, true
}
