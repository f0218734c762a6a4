package gitrepo

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

const (
	seedTree   = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	seedParent = "1111111111111111111111111111111111111111"
)

// seedCommits are commit contents as git writes them, with the headers other
// tools add.
var seedCommits = []string{
	"tree " + seedTree + "\nauthor A U Thor <a@example.org> 1795000000 +0100\ncommitter C <c@example.org> 1795000060 -0130\n\nsubject\n\nbody\n",
	"tree " + seedTree + "\nparent " + seedParent + "\nparent 2222222222222222222222222222222222222222\nauthor A <a@b> 1795000000 +0000\ncommitter A <a@b> 1795000000 +0000\nmergetag object " + seedParent + "\n type commit\n tag v1\n\nMerge tag v1\n",
	"tree " + seedTree + "\nparent " + seedParent + "\nauthor A <a@b> 1795000000 +0200\ncommitter A <a@b> 1795000000 +0200\nencoding ISO-8859-2\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n",
	"tree " + seedTree + "\nauthor <a@b> 1795000000 +0000\ncommitter <a@b> 1795000000 +0000\n\n",
	"tree " + seedTree + "\nauthor A <a@b> 1795000000 +0000\ncommitter A <a@b> 1795000000 +0000\n\nno trailing newline",
}

// TestParseCommit: the layouts git writes are read as go-git reads them; a layout
// git might read otherwise is left to git (errObjectLayout).
func TestParseCommit(t *testing.T) {
	t.Parallel()
	for _, raw := range seedCommits {
		if _, err := parseCommit(plumbing.ZeroHash, []byte(raw)); err != nil {
			t.Errorf("%q: %v", raw, err)
		}
		agreesWithGoGit(t, []byte(raw))
	}
	for _, raw := range []string{
		"",
		"author A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nno tree\n",
		"tree " + seedTree + "\ncommitter A <a@b> 1 +0000\nauthor A <a@b> 1 +0000\n\nswapped\n",
		"tree " + seedTree + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\nauthor B <b@c> 1 +0000\n\ntwo authors\n",
		"tree " + seedTree + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\nparent " + seedParent + "\n\nparent late\n",
		"tree " + seedTree + "\nauthor A <x> <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\ntwo addresses\n",
		"tree " + seedTree + "\nauthor A\t<a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\na tab\n",
		"tree " + seedTree + "\nauthor A <a@b> 1\ncommitter A <a@b> 1 +0000\n\nno zone\n",
		"tree " + seedTree + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n",
		"tree " + strings.ToUpper(seedTree) + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nupper case\n",
	} {
		if c, err := parseCommit(plumbing.ZeroHash, []byte(raw)); !errors.Is(err, errObjectLayout) {
			t.Errorf("%q: %+v, %v; want errObjectLayout", raw, c, err)
		}
	}
}

// agreesWithGoGit fails when parseCommit reads raw and go-git reads its author,
// dates, parents or message otherwise.
func agreesWithGoGit(t *testing.T, raw []byte) {
	t.Helper()
	c, err := parseCommit(plumbing.ZeroHash, raw)
	if err != nil {
		return
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.CommitObject)
	obj.Write(raw)
	var g object.Commit
	if err := g.Decode(obj); err != nil {
		t.Fatalf("parseCommit read %q, go-git refuses it: %v", raw, err)
	}
	type read struct {
		Author, Message string
		When            int64
		Zone            string
		Committed       int64
		Parents         []plumbing.Hash
	}
	mine := read{c.author, c.message, c.when.Unix(), c.when.Format("-0700"), c.committed, c.parents}
	theirs := read{g.Author.Name + " <" + g.Author.Email + ">", g.Message, g.Author.When.Unix(), g.Author.When.Format("-0700"), g.Committer.When.Unix(), g.ParentHashes}
	if d := cmp.Diff(theirs, mine); d != "" {
		t.Fatalf("parseCommit and go-git read %q apart (-go-git +strom):\n%s", raw, d)
	}
}

// FuzzParseCommit: whatever commit content parseCommit reads, go-git reads the
// same author, dates, parents and message from it, and no bytes make it panic.
func FuzzParseCommit(f *testing.F) {
	for _, s := range seedCommits {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		agreesWithGoGit(t, raw)
	})
}

// TestLogOddCommit: a commit in a layout strom does not read itself (two author
// lines, a tab before the address) is read through git: Log gives git's answer.
func TestLogOddCommit(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r.Root, "a.txt", "a")
	base := commitAll(t, r.Root, sessionMessageN(1, "done").String())
	for _, headers := range []string{
		"author A <a@example.org> 1795000000 +0000\ncommitter C <c@example.org> 1795000000 +0000\nauthor B <b@example.org> 1795000000 +0000\n",
		"author A\t<a@example.org> 1795000000 +0000\ncommitter C <c@example.org> 1795000000 +0000\n",
	} {
		raw := "tree " + gitIn(t, r.Root, "rev-parse", "HEAD^{tree}") + "\nparent " + base + "\n" + headers + "\n" + sessionMessageN(2, "done").String()
		odd, err := gitEnvIn(r.Root, nil, raw, "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		gitIn(t, r.Root, "update-ref", "HEAD", odd)
		if _, err := r.logObjects(ctxT(t), LogOptions{Max: 5}); !errors.Is(err, errObjectLayout) {
			t.Errorf("%q: the object files read it: %v", headers, err)
		}
		want, err := r.logCLI(ctxT(t), LogOptions{Max: 5})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Log(ctxT(t), LogOptions{Max: 5})
		if err != nil || !cmp.Equal(got, want) || len(got) != 2 || got[0].Hash != odd {
			t.Errorf("%q: Log = %+v, %v; git %+v", headers, got, err, want)
		}
	}
}
