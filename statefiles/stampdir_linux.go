package statefiles

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// segmentDir is the segments' folder opened once: its own stamp is an fstat, and
// a segment's a stat by its bare name relative to it, so the kernel walks one
// component instead of the whole path, into one reused buffer.
type segmentDir struct {
	path string
	fd   int
	f    *os.File // the descriptor as a file, to list the folder
	st   unix.Stat_t
}

// openSegmentDir opens the folder at path; a missing one is os.ErrNotExist.
func openSegmentDir(path string) (*segmentDir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &segmentDir{path: path, fd: fd}, nil
}

func (d *segmentDir) close() {
	if d.f != nil {
		d.f.Close() // the file owns the descriptor once entries made it
		return
	}
	unix.Close(d.fd)
}

// own is the folder's own stamp: inode, size and times, no tail.
func (d *segmentDir) own() (stamp, error) {
	if err := unix.Fstat(d.fd, &d.st); err != nil {
		return stamp{}, &os.PathError{Op: "stat", Path: d.path, Err: err}
	}
	return d.stamp(), nil
}

// stat is statStamp of the file name in the folder.
func (d *segmentDir) stat(name string) (stamp, error) {
	err := unix.Fstatat(d.fd, name, &d.st, 0)
	if errors.Is(err, unix.ENOENT) {
		return stamp{Tail: tailSum(nil)}, nil
	}
	if err != nil {
		return stamp{}, &os.PathError{Op: "stat", Path: filepath.Join(d.path, name), Err: err}
	}
	if s := d.stamp(); s.fine() {
		return s, nil
	}
	return stampOf(filepath.Join(d.path, name))
}

func (d *segmentDir) stamp() stamp {
	return stamp{Ino: d.st.Ino, Size: d.st.Size, MTime: d.st.Mtim.Nano(), CTime: d.st.Ctim.Nano()}
}

// entries lists the folder, once.
func (d *segmentDir) entries() ([]os.DirEntry, error) {
	d.f = os.NewFile(uintptr(d.fd), d.path)
	return d.f.ReadDir(-1)
}
