package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// ownTerminal opens the terminal f again as a file of its own, whose reads its
// Close ends: a question that Ctrl-C answered leaves no reader behind that would
// take the next line typed (the menu goes on asking in the same process). Nil
// where the system does not name f's terminal (no /proc).
func ownTerminal(f *os.File) *os.File {
	path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil || !strings.HasPrefix(path, "/dev/") {
		return nil
	}
	own, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	return own
}
