package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The copy holds what is staged, as stored: not the work tree's changes, not what
// a filter would make of it, a link as a file naming its target, the executable
// bit kept; and the work tree and the index are left as they were.
func TestCopyIndex(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	ctx := context.Background()
	writeFile(t, r.Root, "notes.md", "committed\n")
	writeFile(t, r.Root, "deep/run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.Root, "deep/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes.md", filepath.Join(r.Root, "link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.Root, ".gitattributes", "*.md filter=upper\n")
	commitAll(t, r.Root, "first")
	gitIn(t, r.Root, "config", "filter.upper.smudge", "tr a-z A-Z")
	writeFile(t, r.Root, "notes.md", "staged\n")
	gitIn(t, r.Root, "add", "notes.md")
	writeFile(t, r.Root, "notes.md", "only in the work tree\n")
	status := gitIn(t, r.Root, "status", "--porcelain")

	dir := filepath.Join(t.TempDir(), "copy")
	ok, err := r.CopyIndex(ctx, dir, 1<<20)
	if err != nil || !ok {
		t.Fatalf("CopyIndex = %v, %v", ok, err)
	}
	for name, want := range map[string]string{"notes.md": "staged\n", "deep/run.sh": "#!/bin/sh\n", "link": "notes.md"} {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			t.Errorf("%s is %v, want a file", name, fi.Mode())
		}
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "deep/run.sh")); fi.Mode()&0o111 == 0 {
		t.Errorf("deep/run.sh lost its executable bit: %v", fi.Mode())
	}
	if got, _ := os.ReadFile(filepath.Join(r.Root, "notes.md")); string(got) != "only in the work tree\n" {
		t.Errorf("the work tree's notes.md = %q", got)
	}
	if got := gitIn(t, r.Root, "status", "--porcelain"); got != status {
		t.Errorf("git status after the copy:\n%s\nwant\n%s", got, status)
	}

	// Larger than the bound: nothing is written.
	small := filepath.Join(t.TempDir(), "small")
	if ok, err := r.CopyIndex(ctx, small, 10); err != nil || ok {
		t.Fatalf("CopyIndex over the bound = %v, %v; want false, nil", ok, err)
	}
	if _, err := os.Stat(small); !os.IsNotExist(err) {
		t.Errorf("a copy over the bound wrote %s", small)
	}
}
