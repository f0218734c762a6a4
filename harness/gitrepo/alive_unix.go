//go:build unix

package gitrepo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// aliveKnown says whether processAlive can tell a process that ended.
const aliveKnown = true

// processAlive reports whether a process of pid runs: it exists (a signal 0
// reaches it, or it is another user's) and, where /proc tells, is no zombie that
// nobody reaped.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc here: the signal's answer stands
	}
	// "pid (comm) S …": the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// gitRunningIn reports whether a git process runs with its working folder in the
// work tree at root, where /proc tells (false where it does not).
func gitRunningIn(root string) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil || string(bytes.TrimSpace(comm)) != "git" || !processAlive(pid) {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err == nil && (cwd == root || len(cwd) > len(root) && cwd[:len(root)+1] == root+"/") {
			return true
		}
	}
	return false
}
