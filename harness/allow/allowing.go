// Package allow is a research's side of consent: which tree settings that start
// programs, and which of the agents' own project files, a person on this computer
// allowed for this research (strom allow, strom status, the menu).
//
// Its guarantee: a run and a chat start no program that a tree setting names and
// no person here allowed; a session that changed such a setting says so in its
// commit (Strom-Consent), and the next run refuses until a person allows.
package allow

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/shellword"
	"github.com/strom-research/strom/statefiles"
)

// TrailerConsent on a session's commit names the tree settings that start programs
// and were not allowed on this computer when the session ended: the session (or
// someone during it) changed them, and the next run refuses until a person allows.
const TrailerConsent = "Strom-Consent"

// Consent reviews the tree settings that start programs: their values and which of
// them no person on this computer allowed for this research. strom status, strom
// allow and the menu show it; a run and a chat refuse while anything is not allowed.
func Consent(ctx context.Context, r *research.Research) (consent.Review, error) {
	s, err := r.Settings()
	if err != nil {
		return consent.Review{}, err
	}
	return ConsentOf(ctx, r, s)
}

func ConsentOf(ctx context.Context, r *research.Research, s statefiles.Settings) (consent.Review, error) {
	return ConsentFor(ctx, r, s, "", nil)
}

// ConsentFor is consentOf for a command that starts the agent agent (its --agent,
// "" for the settings' own) with the words args after "--": the tree's agent.name
// then chooses nothing, and the agent files reviewed are those of the agent that
// starts.
func ConsentFor(ctx context.Context, r *research.Research, s statefiles.Settings, agent string, args []string) (consent.Review, error) {
	sub := consent.Subject{Tree: s.Tree, File: s.TreeFile.Shown, Own: ownSetting(s), Root: r.Tree.Root}
	if agent != "" {
		sub.Unused = []string{"agent.name"}
	}
	if prof, err := agents.AgentProfile(r, s, agent); err == nil && !isHome(r.Tree.Root, r.Getenv("HOME")) {
		cmdline, _ := s.Resolve("agent.command", "")
		sub.Program = agentProgram(prof, args, cmdline.Value)
	}
	return consent.Check(ctx, consent.NewStore(r.Getenv), sub, func(ctx context.Context) (consent.Research, error) { return identity(ctx, r) })
}

// isHome reports whether the research's folder is the person's home folder, where
// the agents' project files (~/.claude/settings.json, ~/.codex/) are their own user
// settings, which the agents write themselves.
func isHome(root, home string) bool {
	if home == "" {
		return false
	}
	a, errA := filepath.EvalSymlinks(root)
	b, errB := filepath.EvalSymlinks(home)
	return errA == nil && errB == nil && a == b
}

// ownSetting gives the person's own value of a setting: their user settings', or
// strom's default (claude for agent.name, as agentProfile has it).
func ownSetting(s statefiles.Settings) func(string) (string, bool) {
	own := s
	own.Tree = nil
	return func(name string) (string, bool) {
		v, err := own.Resolve(name, "")
		if err != nil {
			return "", false
		}
		if name == "agent.name" && v.Value == "" {
			return "claude", true
		}
		return v.Value, v.Value != ""
	}
}

// agentProgram is the agent program a profile starts, as consent.AgentFiles names
// it (claude, codex, opencode, grok), "" for another: its binary, else the first
// word of its command, of the words after "--" or of agent.command.
func agentProgram(p agents.Profile, args []string, cmdline string) string {
	if agents.IsClaude(p) {
		return "claude"
	}
	words := []string{p.Binary}
	switch {
	case len(p.Command) > 0:
		words = append(words, p.Command[0])
	case len(args) > 0:
		words = append(words, args[0])
	default:
		if w, err := shellword.Split(cmdline); err == nil && len(w) > 0 {
			words = append(words, w[0])
		}
	}
	for _, w := range words {
		if prog := filepath.Base(w); w != "" && len(consent.FilesOf(prog)) > 0 {
			return prog
		}
	}
	return ""
}

// identity is the research's consent identity, found once per process (a run asks
// for it at its start and again at every session's commit), and mostly without git
// (consent.IdentifyTree), which strom status would otherwise start every time.
func identity(ctx context.Context, r *research.Research) (consent.Research, error) {
	if r.Kept.Consent != nil {
		return *r.Kept.Consent, nil
	}
	id, err := consent.IdentifyTree(ctx, r.Tree.Root, consent.RootsFile(), r.Git)
	if err != nil {
		return id, err
	}
	r.Kept.Consent = &id
	return id, nil
}

// ConsentOrigins says where each value of rv came from: the commit that last
// changed it, or the work tree.
func ConsentOrigins(ctx context.Context, r *research.Research, rv consent.Review) (map[string]consent.Origin, error) {
	g, err := r.Git(ctx)
	if err != nil {
		return nil, err
	}
	return consent.Origins(ctx, g, statefiles.DirName+"/"+statefiles.ConfigFile, rv.Values)
}

// Allow records the values of rv that were not allowed as allowed for this
// research: a person said yes on a terminal. A face without a terminal (the app's
// page, a script) has no way to allow, by design: whoever can reach it is not
// necessarily the person at this computer.
func Allow(ctx context.Context, r *research.Research, rv consent.Review) error {
	if len(rv.NotAllowed) == 0 {
		return nil
	}
	return consent.NewStore(r.Getenv).Allow(ctx, rv.Research, rv.NotAllowed, r.Now())
}

// AllowSetting allows the tree's value of one setting, as a person just set it on a
// terminal (strom config set … --for-tree). It reports whether there was one to allow.
func AllowSetting(ctx context.Context, r *research.Research, name string) (bool, error) {
	rv, err := Consent(ctx, r)
	if err != nil {
		return false, err
	}
	for _, v := range rv.NotAllowed {
		if v.Setting == name {
			return true, consent.NewStore(r.Getenv).Allow(ctx, rv.Research, []consent.Value{v}, r.Now())
		}
	}
	return false, nil
}

// Revoke forgets what a person allowed for this research: the settings named, or
// all when none is.
func Revoke(ctx context.Context, r *research.Research, settings []string) ([]statefiles.AllowedEntry, error) {
	id, err := identity(ctx, r)
	if err != nil {
		return nil, err
	}
	return consent.NewStore(r.Getenv).Revoke(ctx, id, settings)
}

// RequireAllowed refuses, in the sentence of a run, while any of the named tree
// settings has a value no person on this computer allowed: for commands that start
// a program one of them names outside a run, such as strom gate test asking Claude
// Code in agent.claudeConfigDir. terminal: a person is at a terminal.
func RequireAllowed(ctx context.Context, r *research.Research, terminal bool, settings ...string) error {
	rv, err := Consent(ctx, r)
	if err != nil {
		return err
	}
	var named []consent.Value
	for _, v := range rv.NotAllowed {
		if slices.Contains(settings, v.Setting) {
			named = append(named, v)
		}
	}
	rv.NotAllowed = named
	return rv.Err(terminal)
}

// AllowedCheck is the check command an agent's `strom session close` may run: the
// resolved check.command, unless it comes from the tree and is not allowed. Then
// no check runs now; the session's commit runs the one the run started with.
func AllowedCheck(ctx context.Context, r *research.Research) string {
	s, err := r.Settings()
	if err != nil {
		return ""
	}
	c, err := s.Resolve("check.command", "")
	if err != nil || c.Value == "" {
		return ""
	}
	if c.Source == statefiles.FromTree {
		rv, err := ConsentOf(ctx, r, s)
		if err != nil {
			return ""
		}
		for _, v := range rv.NotAllowed {
			if v.Setting == "check.command" {
				return ""
			}
		}
	}
	return c.Value
}

// AgentFilesAllowed refuses, as a run does at its start, while a project file the
// plan's agent loads by itself is not allowed: a run keeps the settings it started
// with, but the agent's program reads its files anew at every start.
func AgentFilesAllowed(ctx context.Context, r *research.Research, p agents.SessionPlan, terminal bool) error {
	sub := consent.Subject{Root: r.Tree.Root}
	if !isHome(r.Tree.Root, r.Getenv("HOME")) {
		sub.Program = agentProgram(p.Profile, p.Vars.ExtraArgs, p.Vars.Command)
	}
	rv, err := consent.Check(ctx, consent.NewStore(r.Getenv), sub, func(ctx context.Context) (consent.Research, error) { return identity(ctx, r) })
	if err != nil {
		return err
	}
	return rv.Err(terminal)
}

// NotAllowedNow names the tree settings that start programs, and the agent's own
// files, that are not allowed at the end of a session of plan p. The run started
// with all of them allowed, so these changed while the session worked.
func NotAllowedNow(ctx context.Context, r *research.Research, p agents.SessionPlan) []string {
	s, err := r.Settings()
	if err != nil {
		return nil
	}
	rv, err := ConsentFor(ctx, r, s, p.Agent, p.Vars.ExtraArgs)
	if err != nil {
		return nil
	}
	var names []string
	for _, v := range rv.NotAllowed {
		names = append(names, v.Setting)
	}
	return names
}
