// Package harness runs strom's work on a research repo: it keeps the queue's rules,
// starts sessions, enforces their time limits, asks gates, and closes every session
// with exactly one commit whose trailers say why it ended.
//
// Its guarantee: whatever happens to a session — the agent finishes, hangs, crashes,
// hits a limit, or strom itself is killed — what the agent wrote and recorded ends up
// in a commit, and its task is either done, waiting, parked or back in the queue.
package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/remote"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// Research is one research repo: its .strom/ state and its git repository.
type Research struct {
	Tree   *statefiles.Tree
	Clock  clock.Clock
	Getenv func(string) string

	git *gitrepo.Repo
	id  *consent.Research // the consent identity, once found (allowing.go)
	// mark, when set, is told of the moments a session passes (agent started,
	// agent ended, commit made); benchmarks measure the harness's own time with it.
	mark func(event string)
	// prunedAt is when this process last pruned the sessions folder.
	prunedAt time.Time
	// sync is the remote a run shares the research through (sync.remote), nil
	// when the research is worked in this clone alone.
	sync *remote.Sync
	// syncOut is where a synced run says what its integrations did (renumbering).
	syncOut io.Writer
	// versionKnown is the agent program's file (path, size, time) whose version
	// was last found known: its --version is not asked again (agentversion.go).
	versionKnown string
}

func (r *Research) marked(event string) {
	if r.mark != nil {
		r.mark(event)
	}
}

// Env is what every harness call needs from its surroundings.
type Env struct {
	Clock  clock.Clock
	Getenv func(string) string
	// Notice, when set, is told in one line what strom mended by itself on the
	// way (a change a stopped strom left half written).
	Notice io.Writer
}

func (e Env) withDefaults() Env {
	if e.Clock == nil {
		e.Clock = clock.Real{}
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	return e
}

// Open finds the research repo at dir or above it.
func Open(dir string, env Env) (*Research, error) {
	env = env.withDefaults()
	tree, err := statefiles.Find(dir)
	if err != nil {
		return nil, err
	}
	r := &Research{Tree: tree, Clock: env.Clock, Getenv: env.Getenv}
	r.wireTree(tree)
	if env.Notice != nil {
		tree.OnFinish = func(files []string) {
			fmt.Fprintln(env.Notice, r.Messages().Say("files.finished", messages.Args{"Files": strings.Join(files, ", ")}))
		}
		tree.OnHeal = func(ids []string) {
			if len(ids) == 0 {
				fmt.Fprintln(env.Notice, r.Messages().Say("files.healed_count", nil))
				return
			}
			fmt.Fprintln(env.Notice, r.Messages().Say("files.healed", messages.Args{"Tasks": strings.Join(ids, ", ")}))
		}
	}
	return r, nil
}

// Git opens the repo's git access on first use: commands that only read the queue
// never pay for it.
func (r *Research) Git(ctx context.Context) (*gitrepo.Repo, error) {
	if r.git != nil {
		return r.git, nil
	}
	g, err := gitrepo.Open(ctx, r.Tree.Root)
	if err != nil {
		return nil, err
	}
	r.git = g
	return g, nil
}

// Now is the research's clock reading.
func (r *Research) Now() time.Time { return r.Clock.Now() }

// Settings reads the user's and the tree's settings.
func (r *Research) Settings() (statefiles.Settings, error) {
	return statefiles.LoadSettings(r.Getenv, r.Tree)
}

// NewSessionID returns a session id like 20261130T091204Z-4f2a: sortable by start
// time, unique by its random suffix.
func NewSessionID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// ValidSessionID reports whether id can be a session's id: the ids NewSessionID
// makes, and nothing that could name a path (no separator, no dot). Session ids
// name files under .strom/run/ and .strom/sessions/; one that comes from outside
// (STROM_SESSION, run.json) must not lead out of them. A loop, not a regexp:
// every strom start would pay for compiling one.
func ValidSessionID(id string) bool {
	if id == "" || len(id) > 81 {
		return false
	}
	for i, c := range id {
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && (i == 0 || c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// safeMessage is msg as strom commits it: git log prints a commit's message to a
// terminal raw, so the outside text it carries (a title, records, a gate's words)
// has its control characters escaped as strom prints them (termsafe): the
// subject and each trailer's value on one line, the body's lines each kept.
func safeMessage(msg gitrepo.Message) gitrepo.Message {
	msg.Subject = termsafe.Line(msg.Subject)
	msg.Body = termsafe.String(msg.Body)
	if len(msg.Trailers) > 0 {
		trailers := make([]gitrepo.Trailer, len(msg.Trailers))
		for i, t := range msg.Trailers {
			trailers[i] = gitrepo.Trailer{Key: t.Key, Value: termsafe.Line(t.Value)}
		}
		msg.Trailers = trailers
	}
	return msg
}

// CommitLocked is Commit for a caller that already holds the state lock, leaving
// the paths leave out of it. Sessions that changed nothing still get their
// commit: the history then says the session happened and why it ended.
func (r *Research) CommitLocked(ctx context.Context, msg gitrepo.Message, leave ...string) (string, error) {
	return r.commitPaths(ctx, msg, nil, leave...)
}

// commitPaths commits only paths (all when empty), leaving the paths leave out;
// the caller holds the lock. The harness checks state files itself, so the user's
// hooks do not run: a failing hook must never keep a session's work out of the
// history.
func (r *Research) commitPaths(ctx context.Context, msg gitrepo.Message, only []string, leave ...string) (string, error) {
	msg = safeMessage(msg)
	g, err := r.Git(ctx)
	if err != nil {
		return "", err
	}
	if len(only) == 0 {
		leave = append(leave, stromHookFiles(ctx, r, g)...)
	}
	sha, err := g.Checkpoint(ctx, msg, gitrepo.CheckpointOptions{
		Only:          only,
		Leave:         leave,
		AllowMarkers:  true,
		AllowEmpty:    true,
		NoVerify:      true,
		FallbackName:  "strom",
		FallbackEmail: "strom@localhost",
	})
	if err == nil && len(only) == 0 {
		// Every task strom wrote is in the commit now.
		r.Tree.ClearWrittenTasks()
	}
	if err == nil {
		if _, ok := msg.Trailer(TrailerSession); ok {
			// Read the new session back once now, so that the next strom status
			// (often the agent's, in the next session) finds it kept for this HEAD:
			// one commit read, put before the sessions kept for the one before.
			_, _ = LastSession(ctx, r)
		}
	}
	return sha, err
}

// InitOptions are the choices of `strom init`.
type InitOptions struct {
	Agent string // "" = the first installed agent, else claude
	Mode  string // research ("" too) or archive: what strom setup chose for new researches (R7.8)
}

// ErrAlreadyInitialised means strom init found a research repo already.
var ErrAlreadyInitialised = errors.New("this research repo is already initialised")

// Init prepares dir as a research repo: git init when needed, .strom/ with defaults,
// its .gitignore, the pre-commit hook, and one commit of it all.
func Init(ctx context.Context, dir string, opts InitOptions, env Env, installHooks func(ctx context.Context, g *gitrepo.Repo) error) (*Research, error) {
	env = env.withDefaults()
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
	r := &Research{Tree: tree, Clock: env.Clock, Getenv: env.Getenv, git: g}
	r.wireTree(tree)
	if tree.Exists() {
		return r, messages.Errorf(ErrAlreadyInitialised, "init.already", messages.Args{"Root": g.Root})
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
		agent = DetectAgent()
	}
	mode := opts.Mode
	if mode == "" {
		mode = statefiles.ModeResearch
	}
	now := env.Clock.Now().UTC()
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
			msg.Trailers = append(msg.Trailers, gitrepo.Trailer{Key: TrailerMode, Value: mode})
		}
		_, err := r.commitPaths(ctx, msg, []string{statefiles.DirName})
		return err
	})
	if err != nil {
		return nil, err
	}
	// The agent chosen here is the person's choice on this computer: allowed, so
	// the research they just made is not refused (harness/consent). A clone of it
	// elsewhere is another research and asks there.
	if _, err := AllowSetting(ctx, r, "agent.name"); err != nil {
		return nil, err
	}
	return r, nil
}

// wireTree lets the tree commit its migrations and read the queue at HEAD.
func (r *Research) wireTree(tree *statefiles.Tree) {
	tree.OnMigrate = func(from, to, tasks int) error { return commitMigration(r, from, to, tasks) }
	tree.HeadQueue = func() (*statefiles.Queue, error) { return headQueue(r) }
	tree.OnMigrateProgress = func(records int) error { return commitProgressMigration(r, records) }
}
