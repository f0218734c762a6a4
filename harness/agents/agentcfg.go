package agents

import (
	"encoding/json"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// mergedAgents gathers profile overrides: the tree's replace the user's.
// LookupAgent returns the profile called name: a shipped one, or one the settings
// define or change (NAME in the user's or the tree's config).
func LookupAgent(s statefiles.Settings, name string) (Profile, error) {
	return Lookup(name, MergedAgents(s))
}

func MergedAgents(s statefiles.Settings) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, c := range []*statefiles.Config{s.User, s.Tree} {
		if c == nil {
			continue
		}
		for k, v := range c.Agents {
			out[k] = v
		}
	}
	return out
}

// AgentProfile resolves the agent a research works with: override, else the
// setting agent.name, else claude; Claude Code headless when agent.claudeMode says so.
func AgentProfile(r *research.Research, s statefiles.Settings, override string) (Profile, error) {
	name := override
	if name == "" {
		a, err := s.Resolve("agent.name", "")
		if err != nil {
			return Profile{}, err
		}
		name = a.Value
	}
	if name == "" {
		name = "claude"
	}
	if name == "claude" {
		if m, err := s.Resolve("agent.claudeMode", ""); err == nil && m.Value == "headless" {
			name = "claude-headless"
		}
	}
	return LookupAgent(s, name)
}
