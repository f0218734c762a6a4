package consent

import (
	"context"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/statefiles"
)

// Review is what a research's tree settings ask of this computer.
type Review struct {
	Research Research `json:"research"`
	// Values are the tree settings that start programs, allowed or not.
	Values []Value `json:"values"`
	// NotAllowed are those of Values no person on this computer allowed.
	NotAllowed []Value `json:"not_allowed"`
	// File names the tree's settings file in messages.
	File string `json:"file"`
}

// OK reports that every tree setting that starts a program is allowed.
func (rv Review) OK() bool { return len(rv.NotAllowed) == 0 }

// Allowed reports whether the value v of rv is allowed.
func (rv Review) Allowed(v Value) bool {
	for _, n := range rv.NotAllowed {
		if n.Setting == v.Setting {
			return false
		}
	}
	return true
}

// Err is the refusal of a run or a chat when something is not allowed, nil when
// everything is. terminal: a person is at a terminal now.
func (rv Review) Err(terminal bool) error {
	if rv.OK() {
		return nil
	}
	return &NotAllowedError{Values: rv.NotAllowed, File: rv.File, Terminal: terminal}
}

// Check reviews the tree's settings file as loaded (the values a run would use)
// against the store. identify (Identify, or a caller's memory of it) is asked for
// the research's identity only when the tree sets something that starts a program:
// most researches never pay for it.
func Check(ctx context.Context, store Store, tree *statefiles.Config, file string, identify func(context.Context) (Research, error)) (Review, error) {
	rv := Review{File: file}
	vs, err := Values(tree)
	if err != nil || len(vs) == 0 {
		return rv, err
	}
	rv.Values = vs
	if rv.Research, err = identify(ctx); err != nil {
		return rv, err
	}
	a, err := store.Load()
	if err != nil {
		return rv, err
	}
	rv.NotAllowed = NotAllowed(a, rv.Research, vs)
	return rv, nil
}

// Origin is where a value came from: the commit that last changed it, or the work
// tree when the value is not committed.
type Origin struct {
	Commit      *gitrepo.Commit
	Uncommitted bool // the work tree's value differs from HEAD's
}

// Origins finds, for each value, the commit that gave the setting its value. path
// is the settings file relative to the work tree's top; current is the file as it
// is in the work tree now. A value added in the work tree and never committed has
// Uncommitted set.
func Origins(ctx context.Context, g *gitrepo.Repo, path string, vs []Value) (map[string]Origin, error) {
	versions, err := g.FileVersions(ctx, path)
	if err != nil {
		return nil, err
	}
	out := map[string]Origin{}
	for _, v := range vs {
		at := func(i int) (string, bool) {
			if versions[i].Data == nil {
				return "", false
			}
			return textIn(versions[i].Data, v.path)
		}
		if len(versions) == 0 {
			out[v.Setting] = Origin{Uncommitted: true}
			continue
		}
		if t, ok := at(0); !ok || t != v.Text {
			out[v.Setting] = Origin{Uncommitted: true}
			continue
		}
		i := 0
		for i+1 < len(versions) {
			if t, ok := at(i + 1); !ok || t != v.Text {
				break
			}
			i++
		}
		c := versions[i].Commit
		out[v.Setting] = Origin{Commit: &c}
	}
	return out, nil
}
