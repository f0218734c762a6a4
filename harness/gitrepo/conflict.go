package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ConflictMarkers returns the paths of changes (the work tree's status) that git
// tracks or has staged — an ordinary, renamed or unmerged entry, not an untracked
// one — and whose work tree copy contains a complete set of conflict markers: a
// line starting "<<<<<<< ", then a line "=======", then a line starting
// ">>>>>>> ". Binary files (a NUL byte in the first 8000 bytes, git's own test),
// symlinks and missing files are skipped. It starts no git: the status says which
// paths are tracked, so its cost is the changed files' alone, however many files
// the repository tracks.
func (r *Repo) ConflictMarkers(ctx context.Context, changes []Change) ([]string, error) {
	seen := make(map[string]bool, len(changes))
	var tracked []string
	for _, c := range changes {
		if c.Kind == Untracked || c.Kind == Ignored || seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		tracked = append(tracked, c.Path)
	}
	return r.scanMarkers(ctx, tracked)
}

// scanMarkers checks the work tree copies of paths for conflict markers.
func (r *Repo) scanMarkers(ctx context.Context, paths []string) ([]string, error) {
	var found []string
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ok, err := fileHasMarkers(filepath.Join(r.Root, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("scan %s for conflict markers: %w", p, err)
		}
		if ok {
			found = append(found, p)
		}
	}
	return found, nil
}

// binarySniff is how much of a file git looks at to call it binary.
const binarySniff = 8000

func fileHasMarkers(name string) (bool, error) {
	fi, err := os.Lstat(name)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, nil // deleted: nothing to scan
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, nil // symlink, submodule
	}
	f, err := os.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return hasMarkers(f)
}

// hasMarkers reads r line by line for "<<<<<<< ", "=======", ">>>>>>> " in this order.
func hasMarkers(rd io.Reader) (bool, error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	head, err := br.Peek(binarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return false, err
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return false, nil
	}
	state := 0 // 0: want <<<<<<<, 1: want =======, 2: want >>>>>>>
	atStart := true
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 && atStart {
			l := bytes.TrimRight(line, "\r\n")
			switch {
			case markerLine(l, '<'):
				state = 1
			case state == 1 && string(l) == "=======":
				state = 2
			case state == 2 && markerLine(l, '>'):
				return true, nil
			}
		}
		// A line longer than the buffer arrives in pieces; only the first piece
		// starts a line.
		atStart = !errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return false, nil
			}
			return false, err
		}
	}
}

// markerLine reports a line of seven c followed by a space or nothing.
func markerLine(l []byte, c byte) bool {
	if len(l) < 7 {
		return false
	}
	for _, b := range l[:7] {
		if b != c {
			return false
		}
	}
	return len(l) == 7 || l[7] == ' '
}
