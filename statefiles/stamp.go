package statefiles

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"time"
)

// A stamp tells cheaply whether a committed file is still the one an index under
// .strom/run/ was built from: its inode, size, modification time, change time and
// the SHA-256 of its last bytes. Every write strom makes changes the times (atomic
// writes replace the file, appends move both); a hand edit, a checkout or a pull
// changes them too, and the change time is one no tool can set back.
//
// Whether a file is still the one stamped is a stat: on a file system that keeps
// times to the nanosecond, an unchanged inode, size and both times say the
// content is unchanged. Where the times are whole seconds (a coarse file system,
// or a file whose times were set by hand to a second), two edits in one second
// could keep them, so the tail's hash is compared too. The tail is also what tells
// an append from an edit (the bytes the index covered still end as they did).
type stamp struct {
	Ino   uint64 `json:"ino"` // a new file each time strom writes one (atomic writes)
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // nanoseconds since the epoch
	CTime int64  `json:"ctime"` // the inode's change time, nanoseconds since the epoch
	Tail  string `json:"tail"`  // hex SHA-256 of the bytes [Size-stampTail, Size)
}

// folderSettled is how long a folder (or a file) must have been unchanged for its
// stamp to stand for its listing (or its bytes): the file system's times are
// read from a coarse clock, and two changes within one of its ticks (or one
// second, where times are whole seconds) keep the times of the first.
const folderSettled = time.Second

// folderClock is the clock the times are compared with: the system's, whose
// coarse reading the file system's times are. Tests move it.
var folderClock = time.Now

// settledAt reports whether the stamp, read at the time at (folderClock's, in
// nanoseconds, taken before the stat), last changed more than folderSettled
// before: a later change cannot keep its times.
func (s stamp) settledAt(at int64) bool {
	return s.CTime != 0 && at-s.CTime > int64(folderSettled) && at-s.MTime > int64(folderSettled)
}

// stampTail is how many of a file's last bytes a stamp hashes.
const stampTail = 4096

// fine reports whether both of the stamp's times have a part under a second: then
// the times alone tell a changed file.
func (s stamp) fine() bool {
	return s.MTime%1e9 != 0 && s.CTime%1e9 != 0
}

// same reports whether cur, read by statStamp, is the file s stamped.
func (s stamp) same(cur stamp) bool {
	if s.Ino != cur.Ino || s.Size != cur.Size || s.MTime != cur.MTime || s.CTime != cur.CTime {
		return false
	}
	return cur.fine() || s.Tail == cur.Tail
}

// stampOf reads the whole stamp of path, its tail's hash included; a missing file
// has the stamp of an empty one.
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
	s := stampOfInfo(st, st.Size())
	s.Tail = tail
	return s, nil
}

// statStamp reads what stamp.same needs of path: a stat, and the tail's hash only
// when the file's times are whole seconds. A missing file has the stamp of an
// empty one.
func statStamp(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return stamp{Tail: tailSum(nil)}, nil
	}
	if err != nil {
		return stamp{}, err
	}
	if s := stampOfInfo(fi, fi.Size()); s.fine() {
		return s, nil
	}
	return stampOf(path)
}

// stampOfInfo is the stamp of a file as fi describes it, with size bytes covered
// and no tail.
func stampOfInfo(fi os.FileInfo, size int64) stamp {
	return stamp{Ino: inode(fi), Size: size, MTime: fi.ModTime().UnixNano(), CTime: changeTime(fi)}
}

// openPlain opens a file for reading without registering it with the runtime's
// poller (which regular files refuse, at two system calls each), and without
// following a link under .strom/ (OpenFile).
func openPlain(path string) (*os.File, error) {
	return OpenRead(path)
}

// appendPlain appends b to the file at path with one write (a regular file takes
// all of it), past the runtime's poller as openPlain: creating the file (0644)
// when create is set, syncing it when sync is.
func appendPlain(path string, b []byte, create, sync bool) error {
	mode := os.O_WRONLY | os.O_APPEND
	if create {
		mode |= os.O_CREATE
	}
	failpoint()
	f, err := OpenFile(path, mode, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	failpoint()
	if err == nil && sync {
		err = f.Sync()
		failpoint()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
