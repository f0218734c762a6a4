package limits

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// ScreenKind names a Claude Code screen that waits for a person.
type ScreenKind int

const (
	// ScreenOnboarding: first-run theme picker or security notes.
	ScreenOnboarding ScreenKind = iota + 1
	// ScreenLogin: the login method menu or the login URL.
	ScreenLogin
	// ScreenTrust: the workspace trust dialog, or the exit after it.
	ScreenTrust
	// ScreenAPIKey: whether to use the API key found in the environment.
	ScreenAPIKey
	// ScreenBypass: the Bypass Permissions mode warning.
	ScreenBypass
	// ScreenPermission: a tool permission prompt in mid-session.
	ScreenPermission
	// ScreenOffline: Claude Code cannot reach Anthropic's servers and exits.
	ScreenOffline
)

// screenWords holds the stable wire words of ScreenKind.
var screenWords = map[ScreenKind]string{
	ScreenOnboarding: "onboarding",
	ScreenLogin:      "login",
	ScreenTrust:      "trust",
	ScreenAPIKey:     "api-key",
	ScreenBypass:     "bypass",
	ScreenPermission: "permission",
	ScreenOffline:    "offline",
}

// String returns the wire word, such as "trust".
func (k ScreenKind) String() string {
	if w, ok := screenWords[k]; ok {
		return w
	}
	return fmt.Sprintf("ScreenKind(%d)", int(k))
}

// MarshalText writes the wire word.
func (k ScreenKind) MarshalText() ([]byte, error) {
	if _, ok := screenWords[k]; !ok {
		return nil, fmt.Errorf("marshal screen kind %d: unknown kind", int(k))
	}
	return []byte(k.String()), nil
}

// Screen is a recognised Claude Code screen that needs a person.
type Screen struct {
	Kind ScreenKind `json:"kind"`
	// Text is the screen line that identified it, normalized.
	Text string `json:"text"`
	// Advice is one sentence for the person: what the screen asks and what to
	// run once by hand before running strom again.
	Advice string `json:"advice"`
}

type screenRule struct {
	kind ScreenKind
	re   *regexp.Regexp
	// choices: the line is a permission prompt's question, which the model could
	// write in prose too; it counts only with the prompt's first choice below it.
	choices bool
}

// screenRules recognise the screens by a line that starts a cell (after TUI
// glyphs). Texts are those of Claude Code 2.1.197 and the older variants
// reported in its issue tracker. They compile on first use, not at start-up.
var screenRules = sync.OnceValue(func() []screenRule {
	return []screenRule{
		{ScreenOffline, regexp.MustCompile(`^(?:Unable to connect to Anthropic services|Failed to connect to api\.anthropic\.com)`), false},
		{ScreenBypass, regexp.MustCompile(`^WARNING: Claude Code running in Bypass Permissions mode`), false},
		{ScreenAPIKey, regexp.MustCompile(`^Detected a custom API key`), false},
		{ScreenTrust, regexp.MustCompile(`^(?:Quick safety check: )?Is this a project you created or one you trust\?|^Do you trust the files in this folder\?|^Claude Code didn't start because this folder isn't trusted`), false},
		{ScreenLogin, regexp.MustCompile(`^Select login method:|^Paste code here if prompted|^Browser didn't open\? Use the url below to sign in`), false},
		{ScreenOnboarding, regexp.MustCompile(`^Let's get started\.|^Choose the text style that looks best with your terminal|^Security notes:`), false},
		// Claude Code 2.1.332 heads its prompt "This command requires approval": a
		// redraw that keeps the cells already on the screen can leave the question
		// below it in pieces ("Do y", "u want to"), the heading whole.
		{ScreenPermission, regexp.MustCompile(`^Do you want to (?:proceed|make this edit|create|allow|run|fetch)\b[^?]*\?|^This command requires approval$`), true},
	}
})

var (
	// firstYesRE is the first choice of a permission prompt; the question
	// alone could be the model asking in prose.
	firstYesRE = lazyRE(`^1\. Yes\b`)
	// laterChoicesRE are a permission prompt's later choices, which no prose
	// starts with: a redraw can leave the question and the first choice in
	// pieces and these whole (2.1.332: "2. Yes, and always allow access to …
	// from this project"). They count where no whole question is found.
	laterChoicesRE = lazyRE(`^2\. Yes, and (?:always allow|don't ask again)\b|^3\. Yes, and switch to auto mode\b`)
	// workspaceRE introduces the folder in the trust dialog.
	workspaceRE = lazyRE(`^Accessing workspace:\s*(.*)$`)
)

// codexRules recognise Codex's screens that wait for a person (Codex 0.171.0):
// the folder trust question, the sign-in menu, and the endless wait for a
// network (codex exec and the TUI print it, and wait for ever, when the model
// provider cannot be reached, as without a login offline).
var codexRules = sync.OnceValue(func() []screenRule {
	return []screenRule{
		{ScreenOffline, regexp.MustCompile(`^(?:ERROR: )?Reconnecting\.\.\. waiting for network`), false},
		{ScreenTrust, regexp.MustCompile(`^Trust this folder\? Codex can read, edit, and run files here`), false},
		{ScreenLogin, regexp.MustCompile(`^Welcome to Codex, OpenAI's command-line coding agent|^Finish signing in via your browser`), false},
	}
})

// CodexScreen reports the Codex screen in text (raw terminal output) that waits
// for a person, as ClaudeScreen does for Claude Code.
func CodexScreen(text string) (Screen, bool) {
	units := matchUnits(text)
	for i := len(units) - 1; i >= 0; i-- {
		for _, r := range codexRules() {
			if !r.re.MatchString(units[i]) {
				continue
			}
			scr := Screen{Kind: r.kind, Text: units[i]}
			switch r.kind {
			case ScreenTrust:
				folder := "this folder"
				// "Folder access" and the folder stand above the question.
				if i > 0 && strings.Contains(units[i-1], "/") {
					folder = units[i-1]
				}
				scr.Advice = CodexTrustAdvice(folder)
			case ScreenLogin:
				scr.Advice = "Codex is not logged in and asks how to sign in: run `codex` once by hand, sign in, then run strom again."
			case ScreenOffline:
				scr.Advice = "Codex cannot reach its model provider and waits for the network: check this machine's network and Codex's login (run `codex` once and log in), then run strom again."
			}
			return scr, true
		}
	}
	return Screen{}, false
}

// CodexTrustAdvice is the sentence for Codex's trust question about folder.
func CodexTrustAdvice(folder string) string {
	return fmt.Sprintf("Codex asks whether to trust %s: run `codex` once in this folder, answer the trust question, then run strom again.", folder)
}

// permissionLookahead is how many cells after the question the choices start.
const permissionLookahead = 4

// ClaudeScreen reports the Claude Code screen in text (raw terminal output)
// that waits for a person. When text shows several, the lowest on the screen
// wins: it is the one waiting now. A logged-out prompt is no screen: Match
// reports it as a Login signal.
func ClaudeScreen(text string) (Screen, bool) {
	units := matchUnits(text)
	for i := len(units) - 1; i >= 0; i-- {
		for _, r := range screenRules() {
			if !r.re.MatchString(units[i]) {
				continue
			}
			if r.choices && !choicesFollow(units[i+1:]) {
				continue
			}
			return Screen{Kind: r.kind, Text: units[i], Advice: advice(r.kind, units[:i+1])}, true
		}
	}
	for i := len(units) - 1; i >= 0; i-- {
		if laterChoicesRE().MatchString(units[i]) {
			return Screen{Kind: ScreenPermission, Text: units[i], Advice: advice(ScreenPermission, units[:i+1])}, true
		}
	}
	return Screen{}, false
}

func choicesFollow(units []string) bool {
	for _, u := range units[:min(len(units), permissionLookahead)] {
		if firstYesRE().MatchString(u) {
			return true
		}
	}
	return false
}

// advice writes the sentence for a person; above are the cells up to and
// including the one that identified the screen.
func advice(kind ScreenKind, above []string) string {
	switch kind {
	case ScreenOnboarding:
		return "Claude Code shows its first-run setup: run `claude` once by hand, finish the setup, then run strom again."
	case ScreenLogin:
		return "Claude Code is not logged in and asks how to log in: run `claude` once by hand, log in, then run strom again."
	case ScreenTrust:
		return fmt.Sprintf("Claude Code asks whether to trust %s: run `claude` once in this folder, answer the trust question, then run strom again.", trustFolder(above))
	case ScreenAPIKey:
		return "Claude Code asks whether to use the API key set in the environment: run `claude` once by hand with the same environment, answer the question, then run strom again."
	case ScreenBypass:
		return "Claude Code asks to accept Bypass Permissions mode: run `claude --dangerously-skip-permissions` once by hand, accept the warning, then run strom again."
	case ScreenPermission:
		return "Claude Code waits for permission to run a tool: allow the tool in the agent's permission settings (or run it in bypass permissions mode), then run strom again."
	case ScreenOffline:
		return "Claude Code cannot connect to Anthropic services: check this machine's network connection and proxy settings, then run strom again."
	}
	return ""
}

// trustFolder finds the folder the trust dialog names ("Accessing workspace:"
// and the path on the next line), or says "this folder".
func trustFolder(above []string) string {
	for i := len(above) - 1; i >= 0; i-- {
		m := workspaceRE().FindStringSubmatch(above[i])
		if m == nil {
			continue
		}
		folder := strings.TrimSpace(m[1])
		if folder == "" && i+1 < len(above) {
			folder = above[i+1]
		}
		if folder != "" && !strings.HasPrefix(folder, "Quick safety check") {
			return folder
		}
	}
	return "this folder"
}
