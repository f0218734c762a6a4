package statefiles

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// stampDir is a folder of stamped files (the records' segments, the queue's
// shards) opened once: its own stamp is an fstat, and a file's a stat by its bare
// name relative to it, so the kernel walks one component instead of the whole
// path, into one reused buffer.
type stampDir struct {
	path string
	fd   int
	f    *os.File // the descriptor as a file, to list the folder
	st   unix.Stat_t
}

// openStampDir opens the folder at path; a missing one is os.ErrNotExist.
func openStampDir(path string) (*stampDir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &stampDir{path: path, fd: fd}, nil
}

func (d *stampDir) close() {
	if d.f != nil {
		d.f.Close() // the file owns the descriptor once entries made it
		return
	}
	unix.Close(d.fd)
}

// own is the folder's own stamp: inode, size and times, no tail.
func (d *stampDir) own() (stamp, error) {
	if err := unix.Fstat(d.fd, &d.st); err != nil {
		return stamp{}, &os.PathError{Op: "stat", Path: d.path, Err: err}
	}
	return d.stamp(), nil
}

// stat is statStamp of the file name in the folder.
func (d *stampDir) stat(name string) (stamp, error) {
	s, err := d.statOnly(name)
	if err != nil || s.Ino == 0 || s.fine() {
		return s, err
	}
	return stampOf(filepath.Join(d.path, name))
}

// statOnly is the stamp of the file name in the folder without its tail: inode,
// size and times (a missing file has the stamp of an empty one).
func (d *stampDir) statOnly(name string) (stamp, error) {
	err := unix.Fstatat(d.fd, name, &d.st, 0)
	if errors.Is(err, unix.ENOENT) {
		return stamp{Tail: tailSum(nil)}, nil
	}
	if err != nil {
		return stamp{}, &os.PathError{Op: "stat", Path: filepath.Join(d.path, name), Err: err}
	}
	return d.stamp(), nil
}

func (d *stampDir) stamp() stamp {
	return stamp{Ino: d.st.Ino, Size: d.st.Size, MTime: d.st.Mtim.Nano(), CTime: d.st.Ctim.Nano()}
}

// entries lists the folder, once.
func (d *stampDir) entries() ([]os.DirEntry, error) {
	d.f = os.NewFile(uintptr(d.fd), d.path)
	return d.f.ReadDir(-1)
}
