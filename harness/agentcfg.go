package harness

import (
	"encoding/json"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/statefiles"
)

// mergedAgents gathers profile overrides: the tree's replace the user's.
// LookupAgent returns the profile called name: a shipped one, or one the settings
// define or change (agents.NAME in the user's or the tree's config).
func LookupAgent(s statefiles.Settings, name string) (agents.Profile, error) {
	return agents.Lookup(name, mergedAgents(s))
}

func mergedAgents(s statefiles.Settings) map[string]json.RawMessage {
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
