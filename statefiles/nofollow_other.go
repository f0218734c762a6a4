//go:build !unix

package statefiles

import "os"

// openNoFollow opens a file under .strom/ that CheckPath let pass. Without
// O_NOFOLLOW the look before the open is the guard; the file opened must still be
// a regular one.
func openNoFollow(path, shown string, flag int, perm os.FileMode) (*os.File, int64, error) {
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if k := kindOf(fi.Mode(), false); k != "" {
		f.Close()
		return nil, 0, &NotPlainError{File: shown, Kind: k}
	}
	return f, fi.Size(), nil
}
