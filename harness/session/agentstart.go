package session

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// AgentStartError means the agent's program could not be started at all (not
// found, not executable, an argument list too long for the system): no agent ran,
// so there was no session, no commit and nothing counted toward parking.
type AgentStartError struct {
	Program string
	Err     error
}

func (e *AgentStartError) Error() string {
	return fmt.Sprintf("start the agent: %s: %s — no session ran; check its program (agent.name, agent.command or the words after --)", e.Program, e.Cause())
}

func (e *AgentStartError) Unwrap() error { return e.Err }

// Cause is the system's reason in a person's words.
func (e *AgentStartError) Cause() string {
	var errno syscall.Errno
	switch {
	case errors.Is(e.Err, exec.ErrNotFound):
		return "not found on PATH"
	case errors.Is(e.Err, syscall.E2BIG):
		return "the argument list is too long for the system"
	case errors.As(e.Err, &errno):
		return errno.Error()
	}
	return e.Err.Error()
}

// StartError describes a failed start of argv.
func StartError(argv []string, err error) error {
	prog := "(no program)"
	if len(argv) > 0 {
		prog = argv[0]
		if len(prog) > 80 {
			prog = prog[:80] + "…"
		}
		prog = strings.ToValidUTF8(prog, "?")
	}
	return &AgentStartError{Program: prog, Err: err}
}

// NotStartedDetail is the sentence for an agent whose shell could not start the
// program it names: the exit and the shell's last words ("sh: 1: ./x.sh: not found").
func NotStartedDetail(p *messages.Printer, status string, tail []byte) string {
	last := ""
	for _, l := range strings.Split(limits.StripVT(string(tail)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			last = l
		}
	}
	if r := []rune(last); len(r) > 160 {
		last = string(r[:159]) + "…"
	}
	if last == "" {
		return p.Say("watch.not_started", messages.Args{"Status": status})
	}
	return p.Say("watch.not_started_said", messages.Args{"Status": status, "Said": termsafe.String(last)})
}
