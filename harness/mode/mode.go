// Package mode is what a research is: a research an agent works on, a Strom
// archive (R7.8), or a research waiting for its agent (R7.8.1); and how a research
// begins (strom init) in the mode chosen for new researches.
//
// Its guarantee: only a person switches the mode, never while a session works;
// switching to an archive parks exactly the open, started and waiting tasks with
// ArchiveReason and switching back returns exactly those, nothing deleted; a
// research waiting for its agent keeps its saved mode and its tasks as they are.
package mode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// ModeWaiting is how strom mode names a research whose agent is not on this
// computer (R7.8.1). It is never saved: mode.json keeps research.
const ModeWaiting = "waiting"

// Errors of agent work refused by the research's mode.
var (
	// ErrArchive means the research is a Strom archive, where no agent works.
	ErrArchive = errors.New("the research is a Strom archive, so no agent works on it")
	// ErrWaitingForAgent means the research's agent is not on this computer.
	ErrWaitingForAgent = errors.New("the research waits for its agent")
	// ErrSessionWorking means a session works in the research, so its mode stays.
	ErrSessionWorking = errors.New("a session is working in this research")
	// ErrRunWaiting means a run waits for its condition in the research, so its mode stays.
	ErrRunWaiting = errors.New("a strom run waits in this research")
	// ErrNoAgent means research cannot be switched on: its agent is not installed.
	ErrNoAgent = errors.New("the research's agent is not installed on this computer")
	// ErrDeclined means a person said no to installing the agent, or no one could be
	// asked.
	ErrDeclined = errors.New("the agent was not installed")
)

// State is what strom mode shows.
type State struct {
	Saved   string // research or archive, as .strom/mode.json says
	Shown   string // research, archive, or waiting (research without its agent)
	Agent   string // the agent this research works with
	Binary  string // the agent's program
	Install string // how to install it, "" when strom does not know
	Working bool   // a session works in the research right now
}

// Text is the state in words: research, archive, or research waiting for an agent.
func (m State) Text() string {
	switch m.Shown {
	case statefiles.ModeArchive:
		return "archive"
	case ModeWaiting:
		return fmt.Sprintf("research waiting for an agent (%s is not installed on this computer: %s)", m.Binary, installAdvice(m.Binary, m.Install))
	}
	return "research"
}

// Advice says how to install the research's agent, or which installed one to choose.
func (m State) Advice() string { return installAdvice(m.Binary, m.Install) }

// SayAdvice is Advice in p's language.
func (m State) SayAdvice(p *messages.Printer) string {
	return sayInstallAdvice(p, m.Binary, m.Install)
}

// installAdvice says how to install the agent's program (install, from its
// profile) or choose an agent that is installed.
func installAdvice(binary, install string) string { return sayInstallAdvice(nil, binary, install) }

func sayInstallAdvice(p *messages.Printer, binary, install string) string {
	how := p.Say("advice.install")
	if install != "" {
		how = p.Say("advice.install_with", messages.Args{"Install": install})
	}
	for _, name := range agents.InstalledAgents {
		if _, err := exec.LookPath(name); err == nil && name != binary {
			return p.Say("advice.or_installed", messages.Args{"How": how, "Agent": name})
		}
	}
	return p.Say("advice.or_another", messages.Args{"How": how})
}

// Mode reads the research's mode as strom mode shows it (R7.8, R7.8.1).
func Mode(ctx context.Context, r *research.Research) (State, error) {
	m, err := r.Tree.LoadMode()
	if err != nil {
		return State{}, err
	}
	ri, _ := runfiles.LiveRun(r)
	return Of(r, m, ri)
}

// Of is Mode from the saved mode and the live run (nil when none), for a
// caller that has read both already.
func Of(r *research.Research, m *statefiles.Mode, ri *runfiles.RunInfo) (State, error) {
	s, err := r.Settings()
	if err != nil {
		return State{Saved: m.Mode, Shown: m.Mode}, err
	}
	return OfSettings(r, m, ri, s)
}

// OfSettings is Of under settings the caller has read.
func OfSettings(r *research.Research, m *statefiles.Mode, ri *runfiles.RunInfo, s statefiles.Settings) (State, error) {
	ms := State{Saved: m.Mode, Shown: m.Mode}
	prof, err := agents.AgentProfile(r, s, "")
	if err != nil {
		return ms, err
	}
	ms.Agent, ms.Binary, ms.Install = prof.Name, prof.Binary, prof.Install
	ms.Working = ri != nil && ri.Session != ""
	// An agent that works here right now, whichever it is, makes it a research.
	if ms.Saved == statefiles.ModeResearch && !ms.Working && !prof.Installed(exec.LookPath) {
		ms.Shown = ModeWaiting
	}
	return ms, nil
}

// RefuseAgentWork refuses agent work in an archive, and in a research whose agent
// (prof, the one this work would start) is not on this computer.
func RefuseAgentWork(r *research.Research, prof agents.Profile) error {
	m, err := r.Tree.LoadMode()
	if err != nil {
		return err
	}
	if m.Mode == statefiles.ModeArchive {
		return messages.Wrap(ErrArchive, r.Messages().Say("refuse.archive"))
	}
	if !prof.Installed(exec.LookPath) {
		return messages.Wrap(ErrWaitingForAgent, r.Messages().Say("refuse.waiting", messages.Args{"Binary": prof.Binary,
			"Advice": sayInstallAdvice(r.Messages(), prof.Binary, prof.Install)}))
	}
	return nil
}

// ModeSwitch is what a switch of mode did.
type ModeSwitch struct {
	From, To string
	Tasks    []statefiles.Task // the tasks parked, or returned, as they are now
	Commit   string            // "" when nothing changed
}

// ArchiveReason is why tasks wait while the research is a Strom archive.
const ArchiveReason = "kept for later: the research is a Strom archive"

// Recover commits what a crashed run left, so that its task parks from the queue
// too; check is the run's check command.
type Recover func(ctx context.Context, r *research.Research, out func(string), check string) error

// Switch switches the research to archive or research (R7.8). Only a person
// does: confirm asks them, after every check has passed and while no run can
// start. Switching to archive parks the open, started and waiting tasks with
// ArchiveReason; switching back returns exactly those to where they were. Nothing
// is deleted, and the switch is one commit of .strom/ with a Strom-Mode trailer.
//
// install, when not nil, is offered the shipped install line of an agent that is not
// installed when research is switched on (R7.8): it asks the person and runs the line
// on a yes, or returns ErrDeclined.
func Switch(ctx context.Context, r *research.Research, to string, confirm func(question string) error, install func(binary, line string) error, out func(string), recoverCrash Recover) (ModeSwitch, error) {
	ms := ModeSwitch{To: to}
	if to != statefiles.ModeArchive && to != statefiles.ModeResearch {
		return ms, messages.New("mode.unknown", messages.Args{"Mode": to})
	}
	unlock, err := runfiles.LockRun(r)
	if errors.Is(err, runfiles.ErrRunning) {
		return ms, runWorkingError(r)
	}
	if err != nil {
		return ms, err
	}
	defer unlock()
	m, err := r.Tree.LoadMode()
	if err != nil {
		return ms, err
	}
	ms.From = m.Mode
	if m.Mode == to {
		return ms, nil
	}
	if to == statefiles.ModeResearch {
		s, err := r.Settings()
		if err != nil {
			return ms, err
		}
		prof, err := agents.AgentProfile(r, s, "")
		if err != nil {
			return ms, err
		}
		if err := installAgent(r, prof, install); err != nil {
			return ms, err
		}
	}
	q, err := r.Tree.LoadQueue()
	if err != nil {
		return ms, err
	}
	n := 0
	for _, t := range q.Tasks {
		if moves(t, to) {
			n++
		}
	}
	if confirm != nil {
		if err := confirm(modeQuestion(r, to, n)); err != nil {
			return ms, err
		}
	}
	// What a crashed run left is committed first: its task then parks from the queue.
	if out == nil {
		out = func(string) {}
	}
	if err := recoverCrash(ctx, r, out, allow.AllowedCheck(ctx, r)); err != nil {
		return ms, err
	}
	err = r.Tree.Locked(ctx, func() error {
		q, err := r.Tree.LoadQueue()
		if err != nil {
			return err
		}
		now := r.Now()
		ms.Tasks = nil
		for i := range q.Tasks {
			t := &q.Tasks[i]
			if !moves(*t, to) {
				continue
			}
			if to == statefiles.ModeArchive {
				err = t.Park(ArchiveReason, now)
			} else {
				err = t.Unpark(now)
			}
			if err != nil {
				return err
			}
			ms.Tasks = append(ms.Tasks, *t)
		}
		if err := r.Tree.SaveQueue(q); err != nil {
			return err
		}
		changed := now.UTC()
		if err := r.Tree.SaveMode(&statefiles.Mode{Version: 1, Mode: to, Changed: &changed}); err != nil {
			return err
		}
		ms.Commit, err = r.CommitPaths(ctx, modeMessage(r.Messages(), to, ms.Tasks), []string{statefiles.DirName})
		return err
	})
	if err != nil {
		return ms, fmt.Errorf("switch to %s: %w", to, err)
	}
	return ms, nil
}

// moves reports whether a switch to mode to parks or returns task t.
func moves(t statefiles.Task, to string) bool {
	if to == statefiles.ModeArchive {
		return t.State == statefiles.Open || t.State == statefiles.Started || t.State == statefiles.Waiting
	}
	return t.State == statefiles.Parked && t.Reason == ArchiveReason
}

// runWorkingError refuses a switch while a run holds the research.
func runWorkingError(r *research.Research) error {
	ri, _ := runfiles.LiveRun(r)
	if ri != nil && ri.Session != "" {
		return messages.Errorf(ErrSessionWorking, "mode.busy_session", messages.Args{"Session": ri.Session, "Task": ri.Task})
	}
	if ri != nil && !ri.PausedTill.IsZero() {
		return messages.Errorf(ErrRunWaiting, "mode.busy_waiting", messages.Args{"PID": ri.PID, "Until": runfiles.ClockAt(ri.PausedTill.Local()), "Why": ri.PauseWhy})
	}
	return messages.Errorf(ErrSessionWorking, "mode.busy_run", nil)
}

func modeQuestion(r *research.Research, to string, n int) string {
	if to == statefiles.ModeArchive {
		return r.Messages().Say("mode.question_archive", messages.Args{"Count": n})
	}
	return r.Messages().Say("mode.question_research", messages.Args{"Count": n})
}

// modeMessage is the switch's commit: its subject and body in the person's
// language, its Strom-Mode trailer as it is.
func modeMessage(p *messages.Printer, to string, tasks []statefiles.Task) gitrepo.Message {
	var ids []string
	for _, t := range tasks {
		ids = append(ids, fmt.Sprintf("%s %s", t.ID, t.State))
	}
	list := p.Say("mode.commit_none")
	if len(ids) > 0 {
		list = strings.Join(ids, ", ")
	}
	msg := gitrepo.Message{Trailers: []gitrepo.Trailer{{Key: research.TrailerMode, Value: to}}}
	if to == statefiles.ModeArchive {
		msg.Subject = p.Say("mode.commit_archive")
		msg.Body = p.Say("mode.commit_archive_body", messages.Args{"Reason": p.Say("task.archive_reason"), "Tasks": list})
	} else {
		msg.Subject = p.Say("mode.commit_research")
		msg.Body = p.Say("mode.commit_research_body", messages.Args{"Tasks": list})
	}
	return msg
}

// installAgent makes sure the research's agent is installed before research is
// switched on: when it is not, install (if any) is offered the agent's shipped
// install line — never one from the tree's settings. Whatever does not end with the
// program on PATH leaves the archive as it was, with a sentence saying what to do.
func installAgent(r *research.Research, prof agents.Profile, install func(binary, line string) error) error {
	if prof.Installed(func(name string) (string, error) { return lookPath(r, name) }) {
		return nil
	}
	stays := func(what *messages.Error) error {
		return messages.New("mode.stays_archive", messages.Args{"What": what, "Advice": sayInstallAdvice(r.Messages(), prof.Binary, prof.Install)})
	}
	line := agents.ShippedInstall(prof.Binary)
	if install == nil || line == "" {
		return stays(messages.New("mode.no_agent", messages.Args{"Binary": prof.Binary}))
	}
	switch err := install(prof.Binary, line); {
	case errors.Is(err, ErrDeclined):
		return stays(messages.New("mode.no_agent", messages.Args{"Binary": prof.Binary}))
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stays(messages.New("mode.install_ended", messages.Args{"Line": line, "Exit": ee.Error()}))
		}
		return stays(messages.New("mode.install_not_run", messages.Args{"Line": line, "Error": err.Error()}))
	}
	if !prof.Installed(func(name string) (string, error) { return lookPath(r, name) }) {
		return stays(messages.New("mode.install_no_path", messages.Args{"Line": line, "Binary": prof.Binary}))
	}
	return nil
}

// lookPath finds a program on the research's PATH (its Getenv), as exec.LookPath
// does on the process's.
func lookPath(r *research.Research, name string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(r.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("find %s: %w", name, exec.ErrNotFound)
}

// RunInstall runs an agent's install line (a shell line) for a person who said yes,
// with the person's terminal as its input and its output shown, on the research's
// PATH. It stays in strom's process group, the terminal's job, and is not run by
// procgroup: in a group of its own it could not read the terminal (a password, a
// question), or, handed the terminal, would stop alone on Ctrl-Z with strom waiting.
func RunInstall(ctx context.Context, r *research.Research, line string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = r.Tree.Root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(), "PATH="+r.Getenv("PATH"))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install the agent: %w", err)
	}
	return nil
}
