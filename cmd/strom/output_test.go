package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// countingWriter records what is written and in how many writes.
type countingWriter struct {
	buf    *bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.buf.Write(p)
}

// TestBufferedOutput: the commands the agent runs often (its strom task, strom task
// list and show, strom status, strom log) write their standard output in one
// piece, and it is what the same command prints as a process.
func TestBufferedOutput(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	h.git(t, "init", "-q", "-b", "main")
	h.must(t, "init", "--agent", "demo")
	for _, title := range []string{"First", "Second", "Third"} {
		h.must(t, "task", "add", title)
	}
	for i := range 3 {
		h.must(t, "record", "--task", "T-1", "Register "+itoa(i)+" checked")
	}
	env := map[string]string{}
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	session := map[string]string{"STROM_SESSION": "20261130T091204Z-4f2a", "STROM_TASK": "T-1"}
	for _, tt := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"task", "list"}, nil},
		{[]string{"task", "show", "T-1"}, nil},
		{[]string{"status"}, nil},
		{[]string{"log"}, nil},
		{[]string{"task"}, session},
	} {
		getenv := func(k string) string {
			if v, ok := tt.env[k]; ok {
				return v
			}
			return env[k]
		}
		out := &countingWriter{buf: &bytes.Buffer{}}
		var errOut bytes.Buffer
		s := &sys{stdin: strings.NewReader(""), stdout: out, stderr: &errOut, getenv: getenv, dir: h.repo}
		if code := run(context.Background(), tt.args, s); code != 0 {
			t.Fatalf("strom %s: exit %d: %s", strings.Join(tt.args, " "), code, errOut.String())
		}
		if out.writes != 1 {
			t.Errorf("strom %s: %d writes of standard output, want 1:\n%s", strings.Join(tt.args, " "), out.writes, out.buf)
		}
		if tt.env != nil {
			continue // a session's own activity mark differs between two runs; the text is the same command's
		}
		if want := h.must(t, tt.args...); out.buf.String() != want {
			t.Errorf("strom %s in one piece:\n%s\nas a process:\n%s", strings.Join(tt.args, " "), out.buf, want)
		}
	}
}

// TestBufferedOutputOrder: the commands that are buffered, and what a buffered
// command writes on standard error comes after what it printed before.
func TestBufferedOutputOrder(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]bool{
		"status": true, "log -n 5": true, "--json task": true, "task list --all": true, "task show T-1": true,
		"run": false, "task add x": false, "task edit T-1": false, "record x": false, "": false, "menu": false,
	} {
		if got := bufferedOutput(strings.Fields(args)); got != want {
			t.Errorf("bufferedOutput(%q) = %v", args, got)
		}
	}
	var both bytes.Buffer
	out := bufio.NewWriter(&both)
	io.WriteString(out, "printed first\n")
	io.WriteString(flushFirst{out: out, w: &both}, "then the error\n")
	if both.String() != "printed first\nthen the error\n" {
		t.Errorf("stdout and stderr in the order %q", both.String())
	}
}
