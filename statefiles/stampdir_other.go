//go:build !linux

package statefiles

import (
	"os"
	"path/filepath"
)

// segmentDir is the segments' folder: its own stamp and each segment's are a stat
// of the path (stampdir_linux.go stats by name relative to the open folder).
type segmentDir struct {
	path string
}

// openSegmentDir checks the folder at path is there; a missing one is
// os.ErrNotExist.
func openSegmentDir(path string) (*segmentDir, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return &segmentDir{path: path}, nil
}

func (d *segmentDir) close() {}

// own is the folder's own stamp: inode, size and times, no tail.
func (d *segmentDir) own() (stamp, error) {
	fi, err := os.Stat(d.path)
	if err != nil {
		return stamp{}, err
	}
	return stampOfInfo(fi, fi.Size()), nil
}

// stat is statStamp of the file name in the folder.
func (d *segmentDir) stat(name string) (stamp, error) {
	return statStamp(filepath.Join(d.path, name))
}

// entries lists the folder.
func (d *segmentDir) entries() ([]os.DirEntry, error) {
	return os.ReadDir(d.path)
}
