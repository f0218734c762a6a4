package session

import (
	"strings"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/messages"
)

// A Claude Code or Codex screen that waits for a person (login method, trust this folder,
// approve an API key, the bypass-mode warning, a permission prompt, first-run
// setup) ends an unattended session: strom never answers it on the person's
// behalf, because a blind Enter may trust a folder, accept bypass mode or run a
// command the person would refuse. The session ends with the screen's advice,
// one sentence saying what to run once by hand, and the run stops for a person.

// PersonScreen reports a screen on the agent's output that needs a person, and
// how the session ends for it: a login screen means the agent is not logged in,
// any other screen that the agent failed to get going.
//
// Codex's TUI shows two such screens: "Trust this folder?" and its sign-in menu;
// both Codex and codex exec wait for ever for a network they cannot reach.
func PersonScreen(p agents.SessionPlan, tail []byte) (limits.Screen, ends.End, bool) {
	// A person at the keyboard (strom run --interactive, a chat) answers the
	// screens; only Claude Code shows them.
	if p.Interactive || p.Profile.StreamJSON {
		return limits.Screen{}, 0, false
	}
	var scr limits.Screen
	ok := false
	switch {
	case agents.IsClaude(p.Profile):
		scr, ok = limits.ClaudeScreen(string(tail))
	case agents.IsCodex(p.Profile):
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
		return scr, ends.EndNotLoggedIn, true
	}
	return scr, ends.EndAgentFailed, true
}

// SayScreen is a screen's advice in the person's language: screen.claude.trust,
// screen.codex.login, …; limits writes it in English (it knows no catalogs), and
// the folder a trust question names is read back out of that sentence.
func SayScreen(p *messages.Printer, prof agents.SessionPlan, scr limits.Screen) string {
	agent := "claude"
	if agents.IsCodex(prof.Profile) {
		agent = "codex"
	}
	id := "screen." + agent + "." + scr.Kind.String()
	if !messages.Has(id) {
		return scr.Advice
	}
	folder := ""
	if _, rest, ok := strings.Cut(scr.Advice, "asks whether to trust "); ok {
		folder, _, _ = strings.Cut(rest, ": run `")
	}
	if folder == "this folder" {
		folder = p.Say("screen.this_folder")
	}
	return p.Say(id, messages.Args{"Folder": folder})
}
