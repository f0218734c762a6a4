package consent

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/statefiles"
)

// Research identifies a research on this computer: the root commit of its history
// (the same in every clone) and the folder of its work tree (this clone). A value
// allowed for one clone is not allowed for another clone elsewhere, nor for a
// different research that happens to sit in the same folder later.
type Research struct {
	Root string `json:"root"`
	Path string `json:"path"`
}

// Identify names the research of the git repo g.
func Identify(ctx context.Context, g *gitrepo.Repo) (Research, error) {
	root, err := g.RootCommit(ctx, "")
	if err != nil {
		return Research{}, err
	}
	return Research{Root: root, Path: realPath(g.Root)}, nil
}

// IdentifyTree names the research whose work tree's top folder is top, as Identify
// does, mostly without starting git: HEAD is read from the ref files and its root
// commit from the cache file roots (a commit's first-parent root never changes, so
// the cache is never stale), or else its first parent's. open gives the repo where
// that cannot be done.
func IdentifyTree(ctx context.Context, top, roots string, open func(context.Context) (*gitrepo.Repo, error)) (Research, error) {
	if g, ok := gitrepo.Discover(top); ok {
		if head, err := g.Head(ctx); err == nil {
			known := cachedRoots(roots)
			if root := known[head]; root != "" {
				return Research{Root: root, Path: realPath(top)}, nil
			}
			// Commits since (sessions', a person's) share their first parents'
			// root: the nearest one the cache knows, of the last rootsBack, in one
			// git process instead of a walk of the whole first-parent history.
			if roots != "" {
				if line, err := g.FirstParents(ctx, head, rootsBack); err == nil {
					for _, c := range line {
						if root := known[c]; root != "" {
							keepRoot(roots, head, root)
							return Research{Root: root, Path: realPath(top)}, nil
						}
					}
				}
			}
			if root, err := g.RootCommit(ctx, head); err == nil {
				keepRoot(roots, head, root)
				return Research{Root: root, Path: realPath(top)}, nil
			}
		}
	}
	g, err := open(ctx)
	if err != nil {
		return Research{}, err
	}
	return Identify(ctx, g)
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}

// Store is the user config's record of allowed values.
type Store struct {
	File statefiles.SettingsFile
}

// NewStore is the store of the user config getenv names.
func NewStore(getenv func(string) string) Store {
	return Store{File: statefiles.AllowedFile(getenv)}
}

// Load reads every allowed value on this computer.
func (s Store) Load() (*statefiles.Allowed, error) { return statefiles.LoadAllowed(s.File) }

// NotAllowed returns the values of vs that are not allowed for research.
func NotAllowed(a *statefiles.Allowed, research Research, vs []Value) []Value {
	var out []Value
	for _, v := range vs {
		if !allows(a, research, v) {
			out = append(out, v)
		}
	}
	return out
}

func allows(a *statefiles.Allowed, research Research, v Value) bool {
	return slices.ContainsFunc(a.Entries, func(e statefiles.AllowedEntry) bool {
		return e.Root == research.Root && e.Path == research.Path && e.Setting == v.Setting && e.SHA256 == v.SHA256
	})
}

// Allow records vs as allowed for research; an earlier value of the same setting
// is no longer allowed.
func (s Store) Allow(ctx context.Context, research Research, vs []Value, now time.Time) error {
	return statefiles.UpdateAllowed(ctx, s.File, func(a *statefiles.Allowed) error {
		for _, v := range vs {
			a.Entries = slices.DeleteFunc(a.Entries, func(e statefiles.AllowedEntry) bool {
				return e.Root == research.Root && e.Path == research.Path && e.Setting == v.Setting
			})
			a.Entries = append(a.Entries, statefiles.AllowedEntry{
				Root: research.Root, Path: research.Path, Setting: v.Setting, SHA256: v.SHA256, At: now.UTC().Truncate(time.Second),
			})
		}
		return nil
	})
}

// Revoke forgets what was allowed for research: the settings named, or all of
// them when none is. It returns the entries it removed.
func (s Store) Revoke(ctx context.Context, research Research, settings []string) ([]statefiles.AllowedEntry, error) {
	var gone []statefiles.AllowedEntry
	err := statefiles.UpdateAllowed(ctx, s.File, func(a *statefiles.Allowed) error {
		a.Entries = slices.DeleteFunc(a.Entries, func(e statefiles.AllowedEntry) bool {
			drop := e.Root == research.Root && e.Path == research.Path &&
				(len(settings) == 0 || slices.Contains(settings, e.Setting))
			if drop {
				gone = append(gone, e)
			}
			return drop
		})
		return nil
	})
	return gone, err
}
