package statefiles

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStampSeesAnEditThatKeepsSizeAndTime: an edit in place that keeps the file's
// size and sets its modification time back is seen by the stat alone (the change
// time moved), and a stamp that only stats agrees with the whole stamp of an
// unchanged file.
func TestStampSeesAnEditThatKeepsSizeAndTime(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "000001.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	was, err := stampOf(path)
	if err != nil {
		t.Fatal(err)
	}
	if cur, err := statStamp(path); err != nil || !was.same(cur) {
		t.Fatalf("the unchanged file's stat stamp %+v is not %+v (%v)", cur, was, err)
	}
	if cur, err := folderStat(t, path); err != nil || !was.same(cur) {
		t.Fatalf("the unchanged file's stamp in its folder %+v is not %+v (%v)", cur, was, err)
	}
	fi, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("2"), 5)
	f.Close()
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	cur, err := statStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Size != was.Size || cur.MTime != was.MTime {
		t.Fatalf("the edit did not keep size and time: %+v, %+v", cur, was)
	}
	if was.same(cur) {
		t.Errorf("an edit that kept size and time was not seen: %+v", cur)
	}
	if cur, err := folderStat(t, path); err != nil || was.same(cur) || cur.MTime != was.MTime {
		t.Errorf("an edit that kept size and time was not seen by its stamp in its folder: %+v (%v)", cur, err)
	}
}

// folderStat is the stamp of path as currentSources reads it: by its name in its
// open folder.
func folderStat(t *testing.T, path string) (stamp, error) {
	t.Helper()
	d, err := openStampDir(filepath.Dir(path))
	if err != nil {
		return stamp{}, err
	}
	defer d.close()
	return d.stat(filepath.Base(path))
}

// TestStampWholeSeconds: where the times are whole seconds the tails decide, and
// where they are finer the times do.
func TestStampWholeSeconds(t *testing.T) {
	t.Parallel()
	coarse := stamp{Ino: 1, Size: 10, MTime: 5e9, CTime: 6e9, Tail: "a"}
	if coarse.fine() {
		t.Fatal("whole seconds read as fine")
	}
	other := coarse
	other.Tail = "b"
	if coarse.same(other) {
		t.Error("coarse times with another tail read as the same file")
	}
	if !coarse.same(coarse) {
		t.Error("a coarse stamp is not the same as itself")
	}
	fine := stamp{Ino: 1, Size: 10, MTime: 5e9 + 1, CTime: 6e9 + 2, Tail: "a"}
	statOnly := fine
	statOnly.Tail = ""
	if !fine.same(statOnly) {
		t.Error("fine times: a stamp read by a stat alone differs")
	}
	later := statOnly
	later.CTime++
	if fine.same(later) {
		t.Error("a later change time read as the same file")
	}
}
