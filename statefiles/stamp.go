package statefiles

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"syscall"
)

// A stamp tells cheaply whether a committed file is still the one an index under
// .strom/run/ was built from: its size, its modification time and the SHA-256 of its
// last bytes. Every write strom makes changes the time (atomic writes replace the
// file); a hand edit, a checkout or a pull changes the time too, and the tail hash
// catches file systems whose times are coarse. Reading a stamp costs a stat and one
// read of at most stampTail bytes, whatever the file's size.
type stamp struct {
	Ino   uint64 `json:"ino"` // a new file each time strom writes one (atomic writes)
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // nanoseconds since the epoch
	Tail  string `json:"tail"`  // hex SHA-256 of the bytes [Size-stampTail, Size)
}

// stampTail is how many of a file's last bytes a stamp hashes.
const stampTail = 4096

// stampOf reads the stamp of path; a missing file has the stamp of an empty one.
func stampOf(path string) (stamp, error) {
	f, err := openPlain(path)
	if errors.Is(err, os.ErrNotExist) {
		return stamp{Tail: tailSum(nil)}, nil
	}
	if err != nil {
		return stamp{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return stamp{}, err
	}
	tail, err := tailAt(f, st.Size())
	if err != nil {
		return stamp{}, err
	}
	return stamp{Ino: inode(st), Size: st.Size(), MTime: st.ModTime().UnixNano(), Tail: tail}, nil
}

// openPlain opens a file for reading without registering it with the runtime's
// poller (which regular files refuse, at two system calls each): a freshness check
// stamps every segment of the records on each command.
func openPlain(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// tailAt hashes the stampTail bytes of f that end at size.
func tailAt(f io.ReaderAt, size int64) (string, error) {
	from := max(0, size-stampTail)
	buf := make([]byte, size-from)
	n, err := f.ReadAt(buf, from)
	if errors.Is(err, io.EOF) && n < len(buf) {
		return "the file is shorter", nil // matches no sum
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return tailSum(buf), nil
}

func tailSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
