package views

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/statefiles"
)

// AgentNames lists the agents a research may work with: the shipped profiles and
// those the settings define, sorted.
func AgentNames(s statefiles.Settings) []string { return agents.Names(agents.MergedAgents(s)) }

// InstalledGates lists the conditions a person installed under plugins/gates/ of
// the user config (each a folder with an executable gate), sorted.
func InstalledGates(getenv func(string) string) []string {
	dir := filepath.Join(statefiles.UserConfigDir(getenv), "plugins", "gates")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name(), "gate"))
		if err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// CheckStateFiles reads every state file of the research and of the user's settings
// against its schema and returns what is wrong, one error a file; none when all
// are valid. It changes nothing.
func CheckStateFiles(r *research.Research) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	_, err := r.Tree.LoadQueue()
	add(err)
	_, err = r.Tree.LoadProgress()
	add(err)
	_, err = r.Tree.LoadPark()
	add(err)
	_, err = r.Tree.LoadMode()
	add(err)
	_, err = r.Tree.TreeConfig().Load()
	add(err)
	_, err = statefiles.UserConfig(r.Getenv).Load()
	add(err)
	return errs
}
