package statefiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/strom-research/strom/messages"
)

// TestStateShown: a path is named from its last .strom element on; a path with
// none is not strom's.
func TestStateShown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, shown string
		ok          bool
	}{
		{"/r/.strom/progress/000001.jsonl", ".strom/progress/000001.jsonl", true},
		{"/r/.strom", ".strom", true},
		{"/r/.strom/", ".strom", true},
		{".strom/run/lock", ".strom/run/lock", true},
		{"/home/a/.strom/r/.strom/queue.json", ".strom/queue.json", true},
		{"/r/.stromx/queue.json", "", false},
		{"/r/x.strom/queue.json", "", false},
		{"/home/a/.config/strom/researches.json", "", false},
	} {
		shown, _, ok := stateShown(filepath.FromSlash(tc.path))
		if shown != tc.shown || ok != tc.ok {
			t.Errorf("stateShown(%q) = %q, %v; want %q, %v", tc.path, shown, ok, tc.shown, tc.ok)
		}
	}
}

// TestNoFollow: every way strom reads and writes a file under .strom/ refuses a
// link (to a file or a folder outside, dangling or not), a fifo, or a folder where
// a file belongs, with the sentence that names it; the link's target is not
// written, and nothing waits on the fifo.
func TestNoFollow(t *testing.T) {
	t.Parallel()
	const outside = "outside, untouched\n"
	ops := []struct {
		name string
		do   func(tr *Tree, path string) error
	}{
		{"ReadFile", func(_ *Tree, p string) error { _, err := ReadFile(p); return err }},
		{"OpenRead", func(_ *Tree, p string) error {
			f, err := OpenRead(p)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"append", func(_ *Tree, p string) error { return appendLine(p, []byte("{}\n")) }},
		{"WriteFile", func(_ *Tree, p string) error { return WriteFile(p, []byte("x"), 0o644) }},
		{"WriteAtomic", func(_ *Tree, p string) error { return WriteAtomic(p, []byte("x"), 0o644) }},
		{"WriteTransient", func(_ *Tree, p string) error { return WriteTransient(p, []byte("x")) }},
		{"LockFile", func(_ *Tree, p string) error {
			unlock, err := LockFile(context.Background(), p, "lock")
			if err == nil {
				unlock()
			}
			return err
		}},
	}
	setups := []struct {
		name  string
		rel   string // the path strom opens, under .strom/
		shown string // the path the refusal names
		kind  string
		make  func(t *testing.T, dir, target string)
	}{
		{"file link", "records/T-1-99.jsonl", ".strom/records/T-1-99.jsonl", kindLink, func(t *testing.T, dir, target string) {
			mkdir(t, filepath.Join(dir, "records"))
			symlink(t, target, filepath.Join(dir, "records", "T-1-99.jsonl"))
		}},
		{"dangling link", "run/lock", ".strom/run/lock", kindLink, func(t *testing.T, dir, target string) {
			mkdir(t, filepath.Join(dir, "run"))
			symlink(t, target+".new", filepath.Join(dir, "run", "lock"))
		}},
		{"folder link", "sessions/x.log", ".strom/sessions", kindLink, func(t *testing.T, dir, target string) {
			symlink(t, filepath.Dir(target), filepath.Join(dir, "sessions"))
		}},
		{"fifo", "queue.json", ".strom/queue.json", kindFifo, func(t *testing.T, dir, _ string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "queue.json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder for a file", "mode.json", ".strom/mode.json", kindFolder, func(t *testing.T, dir, _ string) {
			mkdir(t, filepath.Join(dir, "mode.json"))
		}},
		{"file for a folder", "gates/cap/hold.json", ".strom/gates", kindFile, func(t *testing.T, dir, _ string) {
			if err := os.WriteFile(filepath.Join(dir, "gates"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, s := range setups {
		for _, op := range ops {
			t.Run(s.name+"/"+op.name, func(t *testing.T) {
				t.Parallel()
				out := t.TempDir()
				target := filepath.Join(out, "rc")
				if err := os.WriteFile(target, []byte(outside), 0o644); err != nil {
					t.Fatal(err)
				}
				tr := At(t.TempDir())
				mkdir(t, tr.Dir)
				s.make(t, tr.Dir, target)
				done := make(chan error, 1)
				go func() { done <- op.do(tr, tr.Path(filepath.FromSlash(s.rel))) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("still waiting after 10 s")
				}
				var np *NotPlainError
				if !errors.As(err, &np) || !errors.Is(err, ErrNotPlain) {
					t.Fatalf("err = %v, want a *NotPlainError", err)
				}
				if np.File != s.shown || np.Kind != s.kind {
					t.Errorf("refused %s as %s, want %s as %s", np.File, np.Kind, s.shown, s.kind)
				}
				if b, _ := os.ReadFile(target); string(b) != outside {
					t.Errorf("the target outside holds %q", b)
				}
				if ents, _ := os.ReadDir(out); len(ents) != 1 {
					t.Errorf("the folder outside holds %d files, want 1", len(ents))
				}
			})
		}
	}
}

// TestNoFollowSentences: the refusals read as one sentence in each language.
func TestNoFollowSentences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		lang string
		want string
	}{
		{&NotPlainError{File: ".strom/progress/000001.jsonl", Kind: kindLink}, messages.English,
			".strom/progress/000001.jsonl is a symbolic link: strom follows no link under .strom/ — replace it with what it points to, or remove it, and run strom again"},
		{&NotPlainError{File: ".strom/queue.json", Kind: kindFifo}, messages.German,
			".strom/queue.json ist ein FIFO, wo strom eine Datei führt: strom liest und schreibt unter .strom/ nur gewöhnliche Dateien — den Eintrag entfernen und strom erneut ausführen"},
		{&NotPlainError{File: ".strom/run", Kind: kindFile, Folder: true}, messages.Czech,
			".strom/run je soubor tam, kde strom vede složku — odstranit to a znovu spustit strom"},
	} {
		if got := messages.For(tc.lang).Text(tc.err); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.lang, got, tc.want)
		}
	}
}

// TestNoFollowOutside: a path outside every .strom/ folder (the user config) is
// opened as the os package opens it, links followed.
func TestNoFollowOutside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "researches.json")
	symlink(t, target, link)
	if b, err := ReadFile(link); err != nil || string(b) != "{}" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if err := MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestNoFollowRecord: a records' file that is a link is refused by strom record's
// append and by a read, and an older strom's segment that is one by the move of
// the records into the files of a hundred, before anything is written anywhere.
func TestNoFollowRecord(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{RecordsFile("T-1"), ProgressDir + "/000001.jsonl"} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			ctx := context.Background()
			if _, err := tr.AddTask(ctx, func(id string) (Task, error) {
				return Task{ID: id, Title: "Find Anna", State: Open, Created: t0, Updated: t0}, nil
			}); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(t.TempDir(), "bashrc")
			if err := os.WriteFile(target, []byte("# rc\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := tr.Path(filepath.FromSlash(rel))
			mkdir(t, filepath.Dir(link))
			symlink(t, target, link)
			err := tr.AppendProgress(ctx, Record{Time: t0, Task: "T-1", Text: "see $(touch x)"})
			if !errors.Is(err, ErrNotPlain) {
				t.Fatalf("err = %v, want ErrNotPlain", err)
			}
			if b, _ := os.ReadFile(target); string(b) != "# rc\n" {
				t.Errorf("the target holds %q", b)
			}
			if _, err := tr.LoadProgress(); !errors.Is(err, ErrNotPlain) {
				t.Errorf("LoadProgress: %v, want ErrNotPlain", err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link is gone or replaced: %v", err)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
