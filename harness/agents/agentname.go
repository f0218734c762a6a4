package agents

import "os/exec"

// InstalledAgents is the order in which strom init picks an agent.
var InstalledAgents = []string{"claude", "codex", "opencode", "grok"}

// DetectAgent returns the first agent CLI installed on this computer, or claude when
// none is: the research then waits for its agent.
func DetectAgent() string {
	for _, name := range InstalledAgents {
		if _, err := exec.LookPath(name); err == nil {
			return name
		}
	}
	return "claude"
}
