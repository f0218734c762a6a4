package merge

import (
	"bytes"
	"context"
	"fmt"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/internal/shellword"
	"github.com/strom-research/strom/statefiles"
)

// Kinds of files the merge driver merges, by the driver names in
// .strom/.gitattributes.
var drivers = []struct{ name, kind, title string }{
	{"strom-queue", "queue", "strom: the queue, task by task"},
	{"strom-task", "task", "strom: a file of tasks, task by task and field by field"},
	{"strom-progress", "progress", "strom: the records, all of both sides"},
	{"strom-park", "park", "strom: the park counters, counter by counter"},
	{"strom-note", "note", "strom: the research's note, the one written later"},
}

// Install registers strom's merge drivers in the clone's git config, running strom
// (an absolute path) as `strom hooks merge-driver KIND %O %A %B %P`, and writes
// .strom/.gitattributes when it is missing or differs. It reports whether it
// changed anything.
func Install(ctx context.Context, g *gitrepo.Repo, tree *statefiles.Tree, strom string) (bool, error) {
	// One git process reads what is registered, and only what is missing or
	// names another strom is registered.
	have, err := g.ConfigMatching(ctx, `^merge\.strom-`)
	if err != nil {
		return false, fmt.Errorf("install merge drivers: %w", err)
	}
	return InstallHaving(ctx, g, tree, strom, have)
}

// InstallHaving is Install given the clone's git config as read (its
// merge.strom-* keys at least): a synced run reads its config once, and starts
// git to register drivers only when they are missing or name another strom.
func InstallHaving(ctx context.Context, g *gitrepo.Repo, tree *statefiles.Tree, strom string, have map[string]string) (bool, error) {
	changed := false
	path := tree.Path(statefiles.AttributesFile)
	if old, err := statefiles.ReadFile(path); err != nil || !bytes.Equal(old, []byte(statefiles.Attributes)) {
		if err := statefiles.WriteAtomic(path, []byte(statefiles.Attributes), 0o644); err != nil {
			return false, fmt.Errorf("install merge drivers: %w", err)
		}
		changed = true
	}
	for _, d := range drivers {
		cmd := shellword.Quote(strom) + " hooks merge-driver " + d.kind + " %O %A %B %P"
		if have["merge."+d.name+".driver"] == cmd && have["merge."+d.name+".name"] == d.title {
			continue
		}
		if err := g.SetConfig(ctx, "merge."+d.name+".name", d.title); err != nil {
			return changed, fmt.Errorf("install merge drivers: %w", err)
		}
		if err := g.SetConfig(ctx, "merge."+d.name+".driver", cmd); err != nil {
			return changed, fmt.Errorf("install merge drivers: %w", err)
		}
		changed = true
	}
	return changed, nil
}

// Files merges one file of the given kind (queue, task, progress, park, note) from its three
// versions, as git's merge driver does.
func Files(kind string, base, ours, theirs []byte) ([]byte, []string, error) {
	switch kind {
	case "queue":
		a, b := statefiles.QueueVersionOf(ours), statefiles.QueueVersionOf(theirs)
		if a != b && (a < statefiles.QueueVersion || b < statefiles.QueueVersion) {
			which, v := "their version", b
			if a < b {
				which, v = "our version", a
			}
			return nil, nil, fmt.Errorf("%w: %s of queue.json is of version %d (an older layout of the tasks): let strom migrate that side first (any strom command that changes the queue does), then merge again", ErrConflict, which, v)
		}
		switch a {
		case 1:
			return Queue(base, ours, theirs)
		case 2, 3:
			out, err := Order(base, ours, theirs)
			return out, nil, err
		}
		out, err := Live(base, ours, theirs)
		return out, nil, err
	case "task":
		if isShard(ours) || isShard(theirs) {
			out, err := Shard(base, ours, theirs)
			return out, nil, err
		}
		out, err := Task(base, ours, theirs)
		return out, nil, err
	case "progress":
		out, err := Progress(ours, theirs)
		return out, nil, err
	case "park":
		out, err := Park(base, ours, theirs)
		return out, nil, err
	case "note":
		out, err := Note(base, ours, theirs)
		return out, nil, err
	}
	return nil, nil, fmt.Errorf("strom merges queue, task, progress, park and note files, not %q", kind)
}
