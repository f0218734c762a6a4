package statefiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/messages"
)

// FileMax is the most bytes of each file of the research's state under .strom/
// (queue.json, a file of a hundred tasks, a segment of records, config.json,
// park.json, mode.json, a gate's hold.json). Such a file over it is neither read
// nor written, so no file, however it was made, makes every command slow, and no
// file strom writes is one it would refuse to read. It holds queue.json's order of
// the tasks T-1 … T-1000000 (15.9 MB).
const FileMax = 16 << 20

// boundText is a bound as the sentences say it: a count of characters, or bytes
// in KiB or MiB.
func boundText(max int, chars bool) string {
	switch {
	case chars:
		return fmt.Sprint(max)
	case max >= 1<<20 && max%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", max>>20)
	case max >= 1<<10 && max%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", max>>10)
	}
	return fmt.Sprintf("%d bytes", max)
}

// readFile reads a file of the research's state whole, as os.ReadFile does, but
// refuses one over FileMax (errors.Is ErrTooBig) before reading it: by its size,
// or, for a file that does not say its size, after FileMax+1 bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkFileSize(shownPath(path), fi.Size()); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, FileMax+1)); err != nil {
		return nil, err
	}
	if err := checkFileSize(shownPath(path), int64(buf.Len())); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkFileSize refuses a state file of size bytes over FileMax, naming it shown.
func checkFileSize(shown string, size int64) error {
	if size <= FileMax {
		return nil
	}
	return messages.Errorf(ErrTooBig, "files.too_big", messages.Args{"File": shown, "Bound": boundText(FileMax, false)})
}

// checkWriteSize refuses to write data as the state file shown when it is over
// FileMax: strom would refuse to read it back.
func checkWriteSize(shown string, data []byte) error {
	if len(data) <= FileMax {
		return nil
	}
	return messages.Errorf(ErrTooBig, "files.too_big_write", messages.Args{"File": shown, "Bound": boundText(FileMax, false)})
}

// readError is the error of reading the state file shown: a file over its bound
// is its own sentence, which names the file; any other error is wrapped.
func readError(shown string, err error) error {
	if errors.Is(err, ErrTooBig) {
		return err
	}
	return fmt.Errorf("read %s: %w", shown, err)
}

// shownPath names a state file as messages show it: from .strom/ on, or the whole
// path of a file outside a research (the person's own settings).
func shownPath(path string) string {
	p := filepath.ToSlash(path)
	if i := strings.LastIndex(p, "/"+DirName+"/"); i >= 0 {
		return p[i+1:]
	}
	return p
}
