package gitrepo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestStagedPaths: the staged paths under a pathspec, deleted ones included, each
// with whether it is staged as a symbolic link; on an unborn branch too.
func TestStagedPaths(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	ctx := t.Context()
	writeFile(t, r.Root, ".strom/queue.json", "{}\n")
	writeFile(t, r.Root, ".strom/gone.json", "{}\n")
	gitIn(t, r.Root, "add", "-A")
	got, err := r.StagedPaths(ctx, ".strom")
	if err != nil {
		t.Fatal(err)
	}
	want := []Staged{{Path: ".strom/gone.json"}, {Path: ".strom/queue.json"}}
	if !slices.Equal(got, want) {
		t.Fatalf("unborn: %v, want %v", got, want)
	}
	gitIn(t, r.Root, "commit", "-q", "-m", "state")

	if err := os.Symlink("../../outside", filepath.Join(r.Root, ".strom", "sessions")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(r.Root, ".strom", "queue.json"))
	if err := os.Symlink("../elsewhere.json", filepath.Join(r.Root, ".strom", "queue.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.Root, "notes.txt", "not under .strom\n")
	os.Remove(filepath.Join(r.Root, ".strom", "gone.json"))
	gitIn(t, r.Root, "add", "-A")
	got, err = r.StagedPaths(ctx, ".strom")
	if err != nil {
		t.Fatal(err)
	}
	want = []Staged{{Path: ".strom/gone.json"}, {Path: ".strom/queue.json", Link: true}, {Path: ".strom/sessions", Link: true}}
	if !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}
