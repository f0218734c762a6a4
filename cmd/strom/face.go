package main

import (
	"errors"
	"os"
	"syscall"

	"github.com/strom-research/strom/internal/buildinfo"
	"github.com/strom-research/strom/messages"
)

// execFace runs the program name in strom's place, with args and strom's
// environment: strom-app for strom app, strom-menu for the menu and strom setup.
// A face that needs libraries no other command does — the app's web server with
// TLS and HTML templates, the menu's terminal forms — is a program of its own, so
// that the commands an agent runs many times a session do not start them: they
// cost every strom process 0.5 to 1 ms (BENCHMARKS.md, "A research's
// age"). The program is looked for beside strom's own binary, then on PATH; make
// install and go install …/cmd/...@version put them in one folder.
func (s *sys) execFace(name string, args []string) error {
	release := buildinfo.Release(buildVersion())
	path, dir := buildinfo.Sibling(name)
	if path == "" {
		return errors.New(s.msg().Say("face.missing", messages.Args{"Program": name, "Dir": dir, "Version": release}))
	}
	env := append(os.Environ(), buildinfo.CallerEnv+"="+buildVersion())
	err := syscall.Exec(path, append([]string{name}, args...), env)
	return errors.New(s.msg().Say("face.start", messages.Args{"Program": path, "Problem": err.Error(), "Version": release}))
}
