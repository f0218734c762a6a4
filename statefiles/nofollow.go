package statefiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/strom-research/strom/messages"
)

// Nothing under .strom/ is followed out of the research. git keeps symbolic
// links, so a research can bring one along where strom keeps a file or a folder
// (a file of records that points at ~/.bashrc, a sessions folder that points at
// another disk); an agent can make one, or a fifo, or a device. strom opens every
// path under a .strom/ folder through the functions of this file: each folder from
// .strom/ down is looked at without following it (lstat) and must be a real
// folder, the file a regular one; then the file is opened with O_NOFOLLOW and
// O_NONBLOCK and what was opened is looked at again (fstat), so a swap between
// the look and the open changes nothing. A path that is not what strom expects is
// refused, before anything is read or written, with a *NotPlainError that names
// it. A path outside every .strom/ folder (the user config) is opened as the os
// package opens it.

// ErrNotPlain means a path under .strom/ where strom keeps a file or a folder of its
// own is something else: a symbolic link, a fifo, a device, a socket, or a folder
// where a file belongs (or a file where a folder does).
var ErrNotPlain = errors.New("not a plain file or folder")

// NotPlainError says which path under .strom/ is not what strom expects there.
type NotPlainError struct {
	File   string // relative to the research repo, e.g. .strom/records/T-1-99.jsonl
	Kind   string // what it is: link, fifo, device, socket, folder, file or other
	Folder bool   // strom expects a folder there, not a file
}

func (e *NotPlainError) Error() string { return e.Sentence().Error() }

// Is makes errors.Is(err, ErrNotPlain) true.
func (e *NotPlainError) Is(target error) bool { return target == ErrNotPlain }

// Sentence is the refusal as a person reads it.
func (e *NotPlainError) Sentence() *messages.Error {
	if e.Kind == kindLink {
		return messages.New("files.link", messages.Args{"File": e.File})
	}
	args := messages.Args{"File": e.File, "Kind": messages.New("files.kind_"+e.Kind, nil)}
	if e.Folder {
		return messages.New("files.not_folder", args)
	}
	return messages.New("files.not_file", args)
}

// The kinds of NotPlainError.
const (
	kindLink   = "link"
	kindFifo   = "fifo"
	kindDevice = "device"
	kindSocket = "socket"
	kindFolder = "folder"
	kindFile   = "file"
	kindOther  = "other"
)

// kindOf names what a mode is, "" for the one expected (a folder when folder is
// set, a regular file otherwise).
func kindOf(m fs.FileMode, folder bool) string {
	switch t := m.Type(); {
	case t&fs.ModeSymlink != 0:
		return kindLink
	case t.IsDir() && folder, t.IsRegular() && !folder:
		return ""
	case t.IsDir():
		return kindFolder
	case t.IsRegular():
		return kindFile
	case t&fs.ModeNamedPipe != 0:
		return kindFifo
	case t&fs.ModeDevice != 0:
		return kindDevice
	case t&fs.ModeSocket != 0:
		return kindSocket
	}
	return kindOther
}

// stateShown returns how a person reads path, from its last .strom element on
// (".strom/progress/000001.jsonl"), and where that element starts in path; ok is
// false for a path with no .strom element.
func stateShown(path string) (shown string, start int, ok bool) {
	path = filepath.Clean(path)
	sep := string(filepath.Separator)
	i := strings.LastIndex(path, sep+DirName+sep)
	switch {
	case i >= 0:
		i++
	case strings.HasSuffix(path, sep+DirName):
		i = len(path) - len(DirName)
	case path == DirName || strings.HasPrefix(path, DirName+sep):
		i = 0
	default:
		return "", 0, false
	}
	return filepath.ToSlash(path[i:]), i, true
}

// checkPath refuses path when it lies under a .strom/ folder and a folder on the
// way from .strom/ to it, or path itself, is not what strom keeps there: a real
// folder on the way, and at path a regular file (a real folder when folder is set).
// What does not exist yet passes: strom makes it. Nothing is followed, read or
// written. It returns the name a person reads ("" for a path outside every
// .strom/ folder, which is not looked at).
func checkPath(path string, folder bool) (shown string, err error) {
	shown, start, ok := stateShown(path)
	if !ok {
		return "", nil
	}
	path = filepath.Clean(path)
	for end := start; ; end++ {
		n := strings.IndexByte(path[end:], filepath.Separator)
		if n < 0 {
			end = len(path)
		} else {
			end += n
		}
		fi, err := os.Lstat(path[:end])
		if errors.Is(err, fs.ErrNotExist) {
			return shown, nil // nor anything below it
		}
		if err != nil {
			return shown, err
		}
		at := end == len(path)
		want := folder || !at
		if k := kindOf(fi.Mode(), want); k != "" {
			return shown, &NotPlainError{File: filepath.ToSlash(path[start:end]), Kind: k, Folder: want}
		}
		if at {
			return shown, nil
		}
	}
}

// OpenFile is os.OpenFile for a file strom keeps under .strom/: it refuses a link,
// a fifo, a device or a socket at the path or on the way to it (checkPath), and
// opens without following a link that appeared since. Elsewhere it is os.OpenFile.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, _, err := openFile(path, flag, perm)
	return f, err
}

// openFile is OpenFile, returning the size of the file it opened as well.
func openFile(path string, flag int, perm os.FileMode) (*os.File, int64, error) {
	shown, err := checkPath(path, false)
	if err != nil {
		return nil, 0, err
	}
	open := os.OpenFile
	if shown != "" {
		open = func(path string, flag int, perm os.FileMode) (*os.File, error) {
			return openNoFollow(path, shown, flag, perm)
		}
	}
	f, err := open(path, flag, perm)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && shown != "" && kindOf(fi.Mode(), false) != "" {
		err = &NotPlainError{File: shown, Kind: kindOf(fi.Mode(), false)}
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// ReadFile is os.ReadFile through OpenFile: a file under .strom/ that is a link, a
// fifo or a device is refused, not followed, and never waited for.
func ReadFile(path string) ([]byte, error) { return readWhole(path, false) }

// OpenRead is os.Open through OpenFile (Open is a task's state).
func OpenRead(path string) (*os.File, error) {
	f, _, err := openFile(path, os.O_RDONLY, 0)
	return f, err
}

// WriteFile is os.WriteFile through OpenFile: a link at path is refused, not
// written through. It is for files a crash may leave half written (a session's
// prompt, a kept copy); state goes through WriteAtomic.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, _, err := openFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// MkdirAll is os.MkdirAll for a folder under .strom/: a link, or anything but a
// folder, on the way to it or at it is refused rather than followed.
func MkdirAll(path string, perm os.FileMode) error {
	if _, err := checkPath(path, true); err != nil {
		return err
	}
	return os.MkdirAll(path, perm)
}

// openNoFollow opens a file under .strom/ (shown is its name for a person) that
// checkPath let pass: O_NOFOLLOW refuses a link that took its place since, and
// O_NONBLOCK keeps a fifo from holding the open (openFile then refuses what is not
// a regular file). The descriptor is blocking again, so that it is not registered
// with the runtime's poller (which regular files refuse).
func openNoFollow(path, shown string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(perm.Perm()))
	for errors.Is(err, syscall.EINTR) {
		fd, err = syscall.Open(path, flag|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(perm.Perm()))
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, &NotPlainError{File: shown, Kind: kindLink}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if flag&syscall.O_NONBLOCK == 0 {
		if err := syscall.SetNonblock(fd, false); err != nil {
			syscall.Close(fd)
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return os.NewFile(uintptr(fd), filepath.Clean(path)), nil
}
