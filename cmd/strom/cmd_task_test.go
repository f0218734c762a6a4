package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/strom-research/strom/statefiles"
)

// endless is a stream of text that never ends by itself (a pipe from a program
// that writes on, /dev/zero): it counts what was read of it and ends after max.
type endless struct{ read, max int }

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.max {
		return 0, io.EOF
	}
	n := min(len(p), e.max-e.read)
	for i := range p[:n] {
		p[i] = 'a'
	}
	e.read += n
	return n, nil
}

// A --body-file past the bound of a task's text is refused after one byte past the
// bound is read, not read whole: exit 2, the sentence names the flag and the bound.
func TestBodyFileReadBounded(t *testing.T) {
	t.Parallel()
	in := &endless{max: 8 * statefiles.BodyMax}
	var stdout, stderr bytes.Buffer
	s := &sys{stdin: in, stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, dir: t.TempDir()}
	code := run(context.Background(), []string{"task", "add", "Find Anna", "--body-file", "-"}, s)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if in.read > statefiles.BodyMax+1 {
		t.Errorf("read %d bytes of the text, want at most %d", in.read, statefiles.BodyMax+1)
	}
	want := "strom: the task's text (--body-file -) is over strom's bound of 1 MiB — "
	if !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start %q", stderr.String(), want)
	}
}
