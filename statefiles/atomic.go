package statefiles

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with data so that a reader sees either the old or the new
// content, never a mix: a temporary file in the same folder (named .tmp-*, ignored by
// .strom/.gitignore so a concurrent `git add -A` does not catch it), fsync, rename,
// fsync of the folder. Under .strom/ a link, a fifo or a device at path or on the
// way to it is refused before anything is written (checkPath).
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, true)
}

// WriteTransient replaces path with data atomically like WriteAtomic, creating its
// folder, but without the fsyncs: for files that need not outlive a crash — caches
// strom rebuilds (the memo of validated contents, the kept last session) and
// requests to a running harness — which the agent's commands write often.
func WriteTransient(path string, data []byte) error {
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return replace(path, data, 0o644, false)
}

func replace(path string, data []byte, perm os.FileMode, durable bool) error {
	if _, err := checkPath(path, false); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	failpoint()
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	failpoint()
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	failpoint()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
		failpoint()
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	failpoint()
	ok = true
	if !durable {
		return nil
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	failpoint()
	return nil
}
