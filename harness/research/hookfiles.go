package research

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/hooks"
)

// stromHookFiles lists the files strom's hook installation wrote into a hooks
// folder inside the work tree (core.hooksPath set to a tracked folder): its
// pre-commit and the person's hook kept beside it. A session's commit leaves them
// out: they are strom's doing, not the agent's work, and the hook names this
// computer's strom binary. None when the hooks folder is outside the work tree.
func stromHookFiles(ctx context.Context, r *Research, g *gitrepo.Repo) []string {
	dir, err := g.HooksDir(ctx)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(g.Root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	// Inside the git dir (the usual .git/hooks) nothing is ever committed.
	if in, err := filepath.Rel(g.CommonDir, dir); err == nil && !strings.HasPrefix(in, "..") {
		return nil
	}
	hook := filepath.Join(dir, "pre-commit")
	data, err := os.ReadFile(hook)
	if err != nil || !bytes.Contains(data, []byte(hooks.Marker)) {
		return nil
	}
	return []string{hook, hook + hooks.ChainedSuffix}
}
