package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/procgroup"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// agentVersionTimeout bounds `program --version`. Claude Code answers in 0.02 to
// 0.2 s and OpenCode in 0.8 s; a machine under load may take far longer, which is
// no reason to stop a run.
const agentVersionTimeout = 2 * time.Minute

// CheckAgentVersion refuses to start an agent whose program is of a version the
// profile does not know the flags of (Profile.Versions), or that does not
// say its version: such a client may read the permission flags otherwise, or
// start with defaults of its own where strom passes none (issue 25). It asks the
// program the session starts, `program --version`, once for each call, and only
// when that program is the one the range is of (an override that starts another
// program is the person's choice); nil means the session may start, ctx's error
// that the run was stopped meanwhile.
func CheckAgentVersion(ctx context.Context, r *research.Research, p SessionPlan) error {
	prof := p.Profile
	if prof.Versions == (VersionRange{}) {
		return nil
	}
	argv, err := prof.Argv(Vars{Prompt: "x", PromptFile: "x", Settings: "x", Session: "x", Strom: p.Vars.Strom,
		Permissions: p.Vars.Permissions, ExtraArgs: p.Vars.ExtraArgs, Command: p.Vars.Command})
	if err != nil || filepath.Base(argv[0]) != prof.Versions.Program {
		return nil
	}
	// The version known for the file the program is now: a client that updates
	// itself replaces that file (or the link to it), so a file unchanged since its
	// last good answer is asked nothing again.
	stamp := programStamp(argv[0])
	if stamp != "" && stamp == r.Kept.AgentVersion {
		return nil
	}
	r.Kept.AgentVersionSaid = ""
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, agentVersionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], "--version")
	if r.Tree != nil {
		cmd.Dir = r.Tree.Root
	}
	// The client and whatever it started end with its answer.
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &capped.Writer{B: &stdout, N: 1 << 16}, &capped.Writer{B: &stderr, N: 1 << 16}
	runErr := procgroup.Run(cmd)
	if err := outer.Err(); err != nil {
		return err // stopped by hand: no sentence about the client
	}
	m := r.Messages()
	known := m.Say("versions.range", messages.Args{"From": prof.Versions.From, "To": prof.Versions.To})
	if prof.Versions.From == prof.Versions.To {
		known = prof.Versions.From
	}
	advice := m.Say("advice.version")
	if install := ShippedInstall(prof.Versions.Program); strings.HasPrefix(install, "npm install ") {
		advice = m.Say("advice.version_install", messages.Args{"Install": install + "@" + prof.Versions.To})
	}
	v, ok := ParseVersion(stdout.String())
	if runErr != nil || !ok {
		said := versionSaid(stdout.String() + "\n" + stderr.String())
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			said = m.Say("versions.no_answer", messages.Args{"Timeout": agentVersionTimeout})
		case said == "" && runErr != nil:
			said = runErr.Error()
		case said == "":
			said = m.Say("versions.nothing")
		}
		return messages.Wrap(ErrAgentVersion, m.Say("refuse.agent_no_version", messages.Args{
			"Program": prof.Versions.Program, "Said": said, "Known": known, "Advice": advice}))
	}
	if !prof.Versions.Contains(v) {
		return messages.Wrap(ErrAgentVersion, m.Say("refuse.agent_version", messages.Args{
			"Program": prof.Versions.Program, "Version": v.String(), "Known": known, "Advice": advice}))
	}
	r.Kept.AgentVersion, r.Kept.AgentVersionSaid = stamp, v.String()
	return nil
}

// programStamp names the file a program's name runs (on PATH, links followed)
// with its size and modification time; "" when it cannot be told.
func programStamp(name string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
}

// versionSaid is the first line of a program's output that is not blank, on one
// line and cut as strom quotes outside text (termsafe.Excerpt).
func versionSaid(out string) string {
	for line := range strings.Lines(out) {
		if line = strings.TrimSpace(line); line != "" {
			return termsafe.Excerpt(line)
		}
	}
	return ""
}

// ErrAgentVersion means the agent's program is of a version whose flags strom does
// not know, or did not say its version.
var ErrAgentVersion = errors.New("the agent's version is not one strom knows")
