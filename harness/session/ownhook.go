package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/hooks"
	"github.com/strom-research/strom/internal/capped"
	"github.com/strom-research/strom/internal/procgroup"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// Bounds of the try of the person's own pre-commit hook.
const (
	// ownHookTimeout bounds the copy of the index and the hook's run; a hook not
	// done by then is not reported.
	ownHookTimeout = 30 * time.Second
	// ownHookMaxBytes bounds the files copied for the hook; a larger index is not
	// tried.
	ownHookMaxBytes = 64 << 20
)

// TryOwnHook runs the person's own pre-commit hook once, as git would run it on a
// commit of what is staged now, and returns the sentence to say when it fails, ""
// when it passes or was not tried. strom's commits skip the hook (--no-verify), so
// a failure stops nothing; it is said so that the person learns of it before
// their own commit stops at it.
//
// Nothing of the person's files can change: the hook runs in a temporary folder
// holding the index's files as stored, with a copy of the index as its own
// (GIT_INDEX_FILE), in a process group of its own killed whole once it has ended
// or its time is up. A hook that was changed while an agent worked (its change
// time inside a session kept in .strom/sessions) is not run: the agent may have
// written it, and strom never runs what the person did not choose.
func TryOwnHook(ctx context.Context, r *research.Research, g *gitrepo.Repo) string {
	hook := ownHook(ctx, g)
	if hook == "" || changedInSession(hook, SessionsDir(r)) {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, ownHookTimeout)
	defer cancel()
	tmp, err := os.MkdirTemp("", "strom-hook-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(tmp)
	tree, index := filepath.Join(tmp, "tree"), filepath.Join(tmp, "index")
	if ok, err := g.CopyIndex(ctx, tree, ownHookMaxBytes); err != nil || !ok {
		return ""
	}
	if data, err := os.ReadFile(filepath.Join(g.GitDir, "index")); err == nil {
		if os.WriteFile(index, data, 0o600) != nil {
			return ""
		}
	}
	cmd := exec.CommandContext(ctx, hook)
	cmd.Dir = tree
	cmd.Env = ownHookEnv(os.Environ(), g.GitDir, tree, index)
	out := &capped.Tail{N: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	err = procgroup.Run(cmd)
	if err == nil || ctx.Err() != nil {
		return ""
	}
	cause := err.Error()
	if said := lastLine(out.String()); said != "" {
		cause = said
	}
	return r.Messages().Say("run.own_hook_fails", messages.Args{"Hook": termsafe.Line(hook), "Cause": termsafe.Excerpt(cause)})
}

// ownHook is the person's own pre-commit hook as git would run it on their
// commit: the hooks folder's pre-commit, or, where that is strom's, the hook it
// runs first (pre-commit.strom-chained). "" when there is none git would run (a
// hook git runs is a file it may execute).
func ownHook(ctx context.Context, g *gitrepo.Repo) string {
	dir, err := g.HooksDir(ctx)
	if err != nil {
		return ""
	}
	hook := filepath.Join(dir, "pre-commit")
	data, err := os.ReadFile(hook)
	if err != nil {
		return ""
	}
	if bytes.Contains(data, []byte(hooks.Marker)) {
		hook += hooks.ChainedSuffix
	}
	fi, err := os.Stat(hook)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return hook
}

// changedInSession reports whether hook's change time falls inside a session
// whose files sessions keeps: from its start, which its id names, to the last
// change of its files. A session's files that an agent rewrote can only make it
// longer; the id, a file's name, it cannot change without a program of its own.
func changedInSession(hook, sessions string) bool {
	changed, ok := changeTime(hook)
	if !ok {
		return true
	}
	entries, err := os.ReadDir(sessions)
	if err != nil {
		return false
	}
	type span struct{ from, to time.Time }
	spans := map[string]*span{}
	for _, e := range entries {
		id, _, _ := strings.Cut(e.Name(), ".")
		if len(id) < 16 {
			continue
		}
		from, err := time.Parse("20060102T150405Z", id[:16])
		if err != nil {
			continue
		}
		s := spans[id]
		if s == nil {
			s = &span{from: from, to: from}
			spans[id] = s
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(s.to) {
			s.to = fi.ModTime()
		}
	}
	for _, s := range spans {
		// A second before: the id's time is cut to the second.
		if !changed.Before(s.from.Add(-time.Second)) && !changed.After(s.to.Add(time.Second)) {
			return true
		}
	}
	return false
}

// ownHookEnv is the person's environment with git pointed at the copy: the
// repository's git dir, the temporary work tree and index, and core.symlinks false,
// as the copy holds a symbolic link as a file.
func ownHookEnv(env []string, gitDir, tree, index string) []string {
	n := 0
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_CONFIG_COUNT":
			n, _ = strconv.Atoi(v)
			continue
		case k == "GIT_DIR", k == "GIT_WORK_TREE", k == "GIT_INDEX_FILE", k == "GIT_COMMON_DIR":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_DIR="+gitDir, "GIT_WORK_TREE="+tree, "GIT_INDEX_FILE="+index,
		"GIT_CONFIG_COUNT="+strconv.Itoa(n+1), fmt.Sprintf("GIT_CONFIG_KEY_%d=core.symlinks", n),
		fmt.Sprintf("GIT_CONFIG_VALUE_%d=false", n))
}
