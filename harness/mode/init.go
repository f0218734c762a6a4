package mode

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// InitOptions are the choices of `strom init`.
type InitOptions struct {
	Agent string // "" = the first installed agent, else claude
	Mode  string // research ("" too) or archive: what strom setup chose for new researches (R7.8)
}

// ErrAlreadyInitialised means strom init found a research repo already.
var ErrAlreadyInitialised = errors.New("this research repo is already initialised")

// ErrLeftOut means strom init found a research in the index that the work tree
// lacks: a sparse checkout leaves .strom/ out, or it was deleted.
var ErrLeftOut = errors.New("the index holds a research the work tree lacks")

// Init prepares dir as a research repo: git init when needed, .strom/ with defaults,
// its .gitignore, the pre-commit hook, and one commit of it all.
func Init(ctx context.Context, dir string, opts InitOptions, env research.Env, installHooks func(ctx context.Context, g *gitrepo.Repo) error) (*research.Research, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init research: %w", err)
	}
	g, err := gitrepo.Open(ctx, abs)
	if errors.Is(err, gitrepo.ErrBareRepo) {
		// git init there would make a nested .git, and sessions would commit the bare
		// repository's own files.
		return nil, messages.Errorf(gitrepo.ErrBareRepo, "init.bare", messages.Args{"Dir": abs})
	}
	if errors.Is(err, gitrepo.ErrNotRepo) {
		g, err = gitrepo.Init(ctx, abs)
	}
	if err != nil {
		return nil, err
	}
	tree := statefiles.At(g.Root)
	r := research.New(tree, g, env)
	if tree.Exists() {
		return r, messages.Errorf(ErrAlreadyInitialised, "init.already", messages.Args{"Root": g.Root})
	}
	// A research the index holds but the work tree lacks (a sparse checkout that
	// leaves .strom/ out, or a hand that deleted it) is the research still: a new
	// .strom/ committed over it would empty its queue.
	if held, err := g.IndexPaths(ctx, statefiles.DirName); err != nil {
		return nil, err
	} else if len(held) > 0 {
		return nil, messages.Errorf(ErrLeftOut, "init.left_out", nil)
	}
	if ip, err := g.InProgress(ctx); err != nil {
		return nil, err
	} else if ip != "" {
		return nil, messages.New("init.in_progress", messages.Args{"What": ip, "Root": g.Root})
	}
	// Refuse before writing anything what would make the first commit fail or go
	// astray.
	if err := g.OnBranch(); err != nil {
		return nil, err
	}
	if err := g.Writable(); err != nil {
		return nil, err
	}
	agent := opts.Agent
	if agent == "" {
		agent = agents.DetectAgent()
	}
	mode := opts.Mode
	if mode == "" {
		mode = statefiles.ModeResearch
	}
	now := r.Now().UTC()
	err = tree.Locked(ctx, func() error {
		if err := statefiles.WriteAtomic(tree.Path(statefiles.GitignoreFile), []byte(statefiles.Gitignore), 0o644); err != nil {
			return err
		}
		if err := statefiles.WriteAtomic(tree.Path(statefiles.AttributesFile), []byte(statefiles.Attributes), 0o644); err != nil {
			return err
		}
		cfg := statefiles.NewConfig()
		cfg.Settings = map[string]any{"agent.name": agent}
		if err := tree.TreeConfig().Save(cfg); err != nil {
			return err
		}
		if err := tree.SaveQueue(statefiles.NewQueue()); err != nil {
			return err
		}
		if err := tree.SaveMode(&statefiles.Mode{Version: 1, Mode: mode, Changed: &now}); err != nil {
			return err
		}
		if err := tree.SavePark(&statefiles.Park{Version: 1}); err != nil {
			return err
		}
		if installHooks != nil {
			if err := installHooks(ctx, g); err != nil {
				return err
			}
		}
		// Only .strom/: the person's own uncommitted work stays theirs to commit.
		msg := gitrepo.Message{
			Subject:  "strom: start the research",
			Body:     "The queue is empty; add tasks with strom task add.",
			Trailers: []gitrepo.Trailer{{Key: "Strom-Init", Value: agent}},
		}
		if mode == statefiles.ModeArchive {
			msg.Body = "Only a Strom archive: no agent works on it; strom mode research switches research on."
			msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: research.TrailerMode, Value: mode})
		}
		_, err := r.CommitPaths(ctx, msg, []string{statefiles.DirName})
		return err
	})
	if err != nil {
		return nil, err
	}
	// The agent chosen here is the person's choice on this computer: allowed, so
	// the research they just made is not refused (harness/consent). A clone of it
	// elsewhere is another research and asks there.
	if _, err := allow.AllowSetting(ctx, r, "agent.name"); err != nil {
		return nil, err
	}
	return r, nil
}
