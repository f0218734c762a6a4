//go:build !unix

package procgroup

import "os/exec"

// inGroup leaves cmd as it is: without process groups (Windows, until a job object
// holds the program and what it starts) the context stops the program alone.
func inGroup(cmd *exec.Cmd) {}

// killGroup has no group to kill.
func killGroup(pgid int) bool { return false }
