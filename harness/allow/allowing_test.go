package allow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strom-research/strom/harness/agents"
)

// TestAgentProgram: the agent files reviewed are those of the program that starts:
// a shipped profile's, a profile's binary or the first word of its command, of the
// words after "--" or of agent.command; none for a program strom has no list for.
func TestAgentProgram(t *testing.T) {
	t.Parallel()
	shipped := func(name string) agents.Profile {
		p, err := agents.Lookup(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		p       agents.Profile
		args    []string
		cmdline string
		want    string
	}{
		{shipped("claude"), nil, "", "claude"},
		{shipped("claude-headless"), nil, "", "claude"},
		{shipped("codex-exec"), nil, "", "codex"},
		{shipped("opencode"), nil, "", "opencode"},
		{shipped("grok"), nil, "", "grok"},
		{shipped("demo"), nil, "", ""},
		{shipped("command"), []string{"/usr/local/bin/opencode", "run"}, "", "opencode"},
		{shipped("command"), nil, "codex exec 'do it'", "codex"},
		{shipped("command"), nil, "sh ./agent.sh", ""},
		{agents.Profile{Name: "mine", Binary: "grok", Command: []string{"sh", "x"}}, nil, "", "grok"},
	}
	for _, c := range cases {
		if got := agentProgram(c.p, c.args, c.cmdline); got != c.want {
			t.Errorf("%s %q %q: %q, want %q", c.p.Name, c.args, c.cmdline, got, c.want)
		}
	}
}

// TestIsHome: a research in the home folder has the agents' user settings there,
// not project files of its own.
func TestIsHome(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	if !isHome(home, link) || !isHome(link, home) {
		t.Error("the home folder through a link is not home")
	}
	if isHome(filepath.Dir(home), home) || isHome(home, "") {
		t.Error("another folder is home")
	}
}
