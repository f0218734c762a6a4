package session

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A process filter that leaves a process of its own session holding its output
// and never answers is given up once its time is up: the probe does not wait for
// that process, and the process is ended with it.
func TestProbeProcessFilterLeftHolding(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan string, 1)
	go func() { done <- probeProcessFilter(ctx, t.TempDir(), "setsid sleep 60 & exec sleep 60", io.Discard) }()
	select {
	case cause := <-done:
		if cause == "" {
			t.Fatal("a filter that never answered passed")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the probe still waits for a filter whose time is up")
	}
}

// pkts is the filter's side: each text as a pkt-line, "" as a flush packet.
func pkts(texts ...string) string {
	var b strings.Builder
	_ = writePkts(&b, texts...)
	return b.String()
}

// countingReader counts what was read of it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// What a process filter answers is taken as git takes it.
func TestFilterTalk(t *testing.T) {
	t.Parallel()
	hello := pkts("git-filter-server\n", "version=2\n", "")
	caps := pkts("capability=clean\n", "capability=smudge\n", "")
	tests := []struct {
		name, out, want string // want: a part of the error, "" for accepted
	}{
		{"the whole answer", hello + caps + pkts("status=success\n", "") + pkts("") + pkts(""), ""},
		{"a last status of error", hello + caps + pkts("status=success\n", "") + pkts("") + pkts("status=error\n", ""), "it answered status=error"},
		{"the last status= counts, not the last line", hello + caps + pkts("status=success\n", "x=y\n", "") + pkts("") + pkts(""), ""},
		{"no status at first", hello + caps + pkts("") + pkts("") + pkts(""), `it answered status=""`},
		{"a smudge filter only", hello + pkts("capability=smudge\n", ""), ""},
		{"a line that is no capability", hello + pkts("clean\n", ""), `it answered "clean", not a capability`},
		{"another version", pkts("git-filter-server\n", "version=3\n", ""), "not git's filter protocol"},
		{"not pkt-lines", "hello world\n", `it answered "hell", not git's filter protocol`},
		{"a length under four", "0003", `it answered "0003"`},
		{"nothing", "", "it ended without answering"},
		{"cut short", hello[:10], "it ended without answering"},
		{"a status with a newline inside", hello + caps + pkts("status=a\nb\n", ""), `status="a\nb"`},
		{"a long answer of bytes that are not text", "0050" + strings.Repeat("\xc6", 76) + "0000", `it answered "\xc6\xc6`},
		{"endless lines", pkts("git-filter-server\n", "version=2\n") + strings.Repeat(pkts("x"), 40000), "it answered more than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := filterTalk(io.Discard, strings.NewReader(tt.out))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("filterTalk = %v, want accepted", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("filterTalk = %v, want %q", err, tt.want)
			case err != nil && (len(err.Error()) > 200 || strings.Contains(err.Error(), "\n")):
				t.Fatalf("filterTalk = %q, not one short line", err)
			}
		})
	}
}

// FuzzFilterTalk: whatever a process filter writes, the talk ends, reads at most
// maxFilterAnswer bytes (and one buffer ahead), and either accepts an answer that
// began with git's greeting or says why in one line of at most 200 bytes.
func FuzzFilterTalk(f *testing.F) {
	hello := pkts("git-filter-server\n", "version=2\n", "")
	caps := pkts("capability=clean\n", "")
	for _, s := range []string{
		hello + caps + pkts("status=success\n", "") + pkts("") + pkts(""),
		hello + caps + pkts("status=success\n", "") + pkts("some content") + pkts("status=error\n", ""),
		hello + pkts("capability=smudge\n", ""),
		hello + pkts("clean\n", ""),
		"0003", "fff", "ffff" + strings.Repeat("x", 100), "0004" + "0000", "zzzz",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		r := &countingReader{r: bytes.NewReader(out)}
		err := filterTalk(io.Discard, r)
		if r.n > maxFilterAnswer+4096 {
			t.Fatalf("filterTalk read %d bytes", r.n)
		}
		if err == nil {
			if !bytes.HasPrefix(out, []byte(pkts("git-filter-server\n"))) && !bytes.HasPrefix(out, []byte(pkts("git-filter-server"))) {
				t.Fatalf("filterTalk accepted %q", out)
			}
			return
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || len(msg) > 200 || !utf8.ValidString(msg) {
			t.Fatalf("filterTalk(%q): error %q", out, msg)
		}
	})
}
