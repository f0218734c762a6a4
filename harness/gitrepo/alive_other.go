//go:build !unix

package gitrepo

// processAlive cannot tell here: every process counts as running, so nothing a
// note names is ever mended by guess.
func processAlive(pid int) bool { return true }

// gitRunningIn cannot tell here.
func gitRunningIn(root string) bool { return false }

// aliveKnown says whether processAlive can tell a process that ended.
const aliveKnown = false
