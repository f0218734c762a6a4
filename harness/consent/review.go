package consent

import (
	"context"
	"slices"

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

// Subject is what a review looks at: the tree's settings file as loaded (the
// values a run would use) and the agent's own project files in the work tree.
type Subject struct {
	Tree *statefiles.Config
	File string // how messages name the tree's settings file
	// Own gives the person's own value of a setting, from their user settings or
	// strom's default (nil: none). A tree value equal to it changes nothing on
	// this computer and needs no allowing.
	Own func(setting string) (string, bool)
	// Unused names settings the command's own choices override, such as
	// agent.name under --agent: their tree values start nothing now.
	Unused []string
	// Root is the work tree's top folder, Program the agent's program whose
	// project files (AgentFiles) are reviewed there; "" for none.
	Root, Program string
}

// Check reviews the subject against the store. identify (Identify, or a caller's
// memory of it) is asked for the research's identity only when something needs
// allowing: most researches never pay for it.
func Check(ctx context.Context, store Store, sub Subject, identify func(context.Context) (Research, error)) (Review, error) {
	rv := Review{File: sub.File}
	vs, err := Values(sub.Tree)
	if err != nil {
		return rv, err
	}
	vs = slices.DeleteFunc(vs, func(v Value) bool {
		if slices.Contains(sub.Unused, v.Setting) {
			return true
		}
		if len(v.path) != 2 || v.path[0] != "settings" || sub.Own == nil {
			return false
		}
		own, ok := sub.Own(v.Setting)
		return ok && own == v.Text
	})
	if sub.Root != "" && sub.Program != "" {
		files, err := FileValues(sub.Root, sub.Program)
		if err != nil {
			return rv, err
		}
		vs = append(vs, files...)
	}
	if len(vs) == 0 {
		return rv, nil
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
// Uncommitted set. An agent's file is looked up in its own history.
func Origins(ctx context.Context, g *gitrepo.Repo, path string, vs []Value) (map[string]Origin, error) {
	settings, err := g.FileVersions(ctx, path)
	if err != nil {
		return nil, err
	}
	out := map[string]Origin{}
	for _, v := range vs {
		versions, text := settings, func(data []byte) (string, bool) { return textIn(data, v.path) }
		if v.File != "" {
			if versions, err = g.FileVersions(ctx, v.File); err != nil {
				return nil, err
			}
			text = func(data []byte) (string, bool) { return fileHash(v, data) }
		}
		out[v.Setting] = originOf(versions, v.Text, text)
	}
	return out, nil
}

// originOf is the oldest commit of an unbroken run, from the newest, of versions
// whose text is want.
func originOf(versions []gitrepo.FileVersion, want string, text func([]byte) (string, bool)) Origin {
	at := func(i int) (string, bool) {
		if versions[i].Data == nil {
			return "", false
		}
		return text(versions[i].Data)
	}
	if len(versions) == 0 {
		return Origin{Uncommitted: true}
	}
	if t, ok := at(0); !ok || t != want {
		return Origin{Uncommitted: true}
	}
	i := 0
	for i+1 < len(versions) {
		if t, ok := at(i + 1); !ok || t != want {
			break
		}
		i++
	}
	c := versions[i].Commit
	return Origin{Commit: &c}
}
