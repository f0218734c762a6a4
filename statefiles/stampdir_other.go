//go:build !linux

package statefiles

import (
	"errors"
	"os"
	"path/filepath"
)

// stampDir is a folder of stamped files (the records' segments, the queue's
// shards): its own stamp and each file's are a stat of the path
// (stampdir_linux.go stats by name relative to the open folder).
type stampDir struct {
	path string
}

// openStampDir checks the folder at path is there; a missing one is
// os.ErrNotExist.
func openStampDir(path string) (*stampDir, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return &stampDir{path: path}, nil
}

func (d *stampDir) close() {}

// own is the folder's own stamp: inode, size and times, no tail.
func (d *stampDir) own() (stamp, error) {
	fi, err := os.Stat(d.path)
	if err != nil {
		return stamp{}, err
	}
	return stampOfInfo(fi, fi.Size()), nil
}

// stat is statStamp of the file name in the folder.
func (d *stampDir) stat(name string) (stamp, error) {
	return statStamp(filepath.Join(d.path, name))
}

// statOnly is the stamp of the file name in the folder without its tail: inode,
// size and times (a missing file has the stamp of an empty one).
func (d *stampDir) statOnly(name string) (stamp, error) {
	fi, err := os.Stat(filepath.Join(d.path, name))
	if errors.Is(err, os.ErrNotExist) {
		return stamp{Tail: tailSum(nil)}, nil
	}
	if err != nil {
		return stamp{}, err
	}
	return stampOfInfo(fi, fi.Size()), nil
}

// entries lists the folder.
func (d *stampDir) entries() ([]os.DirEntry, error) {
	return os.ReadDir(d.path)
}
