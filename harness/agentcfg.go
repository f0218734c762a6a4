package harness

import (
	"encoding/json"

	"github.com/strom-research/strom/statefiles"
)

// mergedAgents gathers profile overrides: the tree's replace the user's.
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
