//go:build unix

package statefiles

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// openNoFollow opens a file under .strom/ (shown is its name for a person) that
// CheckPath let pass: O_NOFOLLOW refuses a link that took its place since,
// O_NONBLOCK keeps a fifo from holding the open, and the file opened must be a
// regular one. The descriptor is blocking again and, like stamp.go's openPlain,
// not registered with the runtime's poller (which regular files refuse).
func openNoFollow(path, shown string, flag int, perm os.FileMode) (*os.File, int64, error) {
	fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(perm.Perm()))
	for errors.Is(err, syscall.EINTR) {
		fd, err = syscall.Open(path, flag|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(perm.Perm()))
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, 0, &NotPlainError{File: shown, Kind: kindLink}
	}
	if err != nil {
		return nil, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, 0, &NotPlainError{File: shown, Kind: kindOfStat(uint32(st.Mode)), Folder: false}
	}
	if flag&syscall.O_NONBLOCK == 0 {
		if err := syscall.SetNonblock(fd, false); err != nil {
			syscall.Close(fd)
			return nil, 0, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return os.NewFile(uintptr(fd), filepath.Clean(path)), st.Size, nil
}

// kindOfStat names a stat's file type as kindOf does.
func kindOfStat(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return kindLink
	case syscall.S_IFDIR:
		return kindFolder
	case syscall.S_IFIFO:
		return kindFifo
	case syscall.S_IFCHR, syscall.S_IFBLK:
		return kindDevice
	case syscall.S_IFSOCK:
		return kindSocket
	}
	return kindOther
}
