// Package research is the handle every room of the harness works through: one
// research repo's .strom/ state, its git repository, its settings, the person's
// language and its commits.
//
// Its guarantee: every commit strom makes goes through CommitPaths, with the
// outside text it carries escaped for a terminal and the user's hooks not run, so
// that no hook keeps a session's work out of the history; the tree's own
// migrations are committed as they happen.
package research

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
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

	// Mark, when set, is told of the moments a session passes (agent started,
	// agent ended, commit made); benchmarks measure the harness's own time with it.
	Mark func(event string)
	// Sync is the remote a run shares the research through (sync.remote), nil
	// when the research is worked in this clone alone.
	Sync *remote.Sync
	// SyncOut is where a synced run says what its integrations did (renumbering).
	SyncOut io.Writer
	// Kept is what this process found out once and need not find out again.
	Kept Kept

	git *gitrepo.Repo
}

// Kept is what one strom process remembers of a research between the calls it
// makes.
type Kept struct {
	// Consent is the consent identity, once found.
	Consent *consent.Research
	// Pruned is when this process last pruned the sessions folder.
	Pruned time.Time
	// AgentVersion is the agent program's file (path, size, time) whose version
	// was last found known: its --version is not asked again.
	AgentVersion string
	// AgentVersionSaid is the version the agent's program last said to
	// --version ("2.1.197"), "" when it was not asked: a session commit's
	// Strom-Agent-Version where the agent does not say its own.
	AgentVersionSaid string
	// OwnHookTried: the person's own pre-commit hook was tried before this
	// process's first session (session.TryOwnHook).
	OwnHookTried bool
}

// Marked tells Mark of a moment a session passes.
func (r *Research) Marked(event string) {
	if r.Mark != nil {
		r.Mark(event)
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

// New is the research of tree, its git already open when g is not nil.
func New(tree *statefiles.Tree, g *gitrepo.Repo, env Env) *Research {
	env = env.withDefaults()
	r := &Research{Tree: tree, Clock: env.Clock, Getenv: env.Getenv, git: g}
	r.wireTree(tree)
	return r
}

// Open finds the research repo at dir or above it.
func Open(dir string, env Env) (*Research, error) {
	env = env.withDefaults()
	tree, err := statefiles.Find(dir)
	if err != nil {
		return nil, err
	}
	r := New(tree, nil, env)
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

// SafeMessage is msg as strom commits it: git log prints a commit's message to a
// terminal raw, so the outside text it carries (a title, records, a gate's words)
// has its control characters escaped as strom prints them (termsafe): the
// subject and each trailer's value on one line, the body's lines each kept.
func SafeMessage(msg gitrepo.Message) gitrepo.Message {
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
	return r.CommitPaths(ctx, msg, nil, leave...)
}

// CommitPaths commits only paths (all when empty), leaving the paths leave out;
// the caller holds the lock. The harness checks state files itself, so the user's
// hooks do not run: a failing hook must never keep a session's work out of the
// history.
func (r *Research) CommitPaths(ctx context.Context, msg gitrepo.Message, only []string, leave ...string) (string, error) {
	msg = SafeMessage(msg)
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
	return sha, err
}

// wireTree lets the tree commit its migrations and read the queue at HEAD.
func (r *Research) wireTree(tree *statefiles.Tree) {
	tree.OnMigrate = func(from, to, tasks int) error { return CommitMigration(r, from, to, tasks) }
	tree.HeadQueue = func() (*statefiles.Queue, error) { return HeadQueue(r) }
	tree.OnMigrateProgress = func(records int) error { return CommitProgressMigration(r, records) }
}

// Synced reports whether the tree's settings share the research through a
// remote (sync.remote set), usable or not.
func (r *Research) Synced() bool {
	s, err := r.Settings()
	if err != nil {
		return false
	}
	v, err := s.Resolve("sync.remote", "")
	return err == nil && v.Value != ""
}

// Host is this machine's name in claims and Strom-Host trailers: STROM_HOST,
// else the host name.
func (r *Research) Host() string {
	if h := strings.TrimSpace(r.Getenv("STROM_HOST")); h != "" {
		return h
	}
	h, _ := os.Hostname()
	return h
}

// QueuePaths are the queue's files of this research as a commit takes them:
// queue.json, the tasks' files and, where there are any, the records' files.
func (r *Research) QueuePaths() []string {
	paths := []string{statefiles.DirName + "/" + statefiles.QueueFile, statefiles.DirName + "/" + statefiles.TasksDir}
	if fi, err := os.Lstat(r.Tree.Path(statefiles.RecordsDir)); err == nil && fi.IsDir() {
		paths = append(paths, statefiles.DirName+"/"+statefiles.RecordsDir)
	}
	return paths
}
