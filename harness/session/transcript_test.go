package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/research"
)

// TestTranscriptKeepsHeadAndTail: output past the limit keeps its first half and
// its last part with one line saying what was cut; the file never holds more than
// the limit and the line, and no tail file stays behind.
func TestTranscriptKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		out    int // bytes of output
		chunk  int
		cut    bool
		keepAt int // bytes of the end of the output that must be in the file
	}{
		{"under the limit", 900, 7, false, 900},
		{"at the limit", 1000, 1000, false, 1000},
		{"far over", 100_000, 333, true, 250},
		{"in one write", 5_000, 5_000, true, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.log")
			tr, err := OpenTranscript(path, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			for i := 0; out.Len() < c.out; i++ {
				fmt.Fprintf(&out, "line %d\n", i)
			}
			all := out.Bytes()[:c.out]
			for p := all; len(p) > 0; {
				n := min(c.chunk, len(p))
				if k, err := tr.Write(p[:n]); err != nil || k != n {
					t.Fatalf("write = %d, %v", k, err)
				}
				p = p[n:]
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			cutLine := "[strom: "
			if has := bytes.Contains(got, []byte(cutLine)); has != c.cut {
				t.Fatalf("cut line present = %v, want %v:\n%q", has, c.cut, got)
			}
			if !c.cut {
				if !bytes.Equal(got, all) {
					t.Fatal("the transcript is not the output")
				}
				return
			}
			head, rest, _ := bytes.Cut(got, []byte("\r\n\x1b[0m"+cutLine))
			line, tail, _ := bytes.Cut(rest, []byte("]\r\n"))
			if !bytes.Equal(head, all[:500]) {
				t.Errorf("head = %d bytes, want the first 500 of the output", len(head))
			}
			if len(tail) > 500 || len(tail) < c.keepAt || !bytes.HasSuffix(all, tail) {
				t.Errorf("tail = %d bytes, want the output's last %d..500", len(tail), c.keepAt)
			}
			want := byteSize(int64(len(all)-len(head)-len(tail))) + " of output cut here"
			if !strings.Contains(string(line), want) {
				t.Errorf("cut line %q does not say %q", line, want)
			}
			if m, _ := filepath.Glob(path + ".tail-*"); len(m) > 0 {
				t.Errorf("tail files left: %v", m)
			}
		})
	}
}

// TestPruneSessions: sessions past 90 days go, then the oldest while the folder is
// over its size; other files stay.
func TestPruneSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	write := func(name string, size int) {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := research.NewSessionID(now.Add(-91 * 24 * time.Hour))
	mid := research.NewSessionID(now.Add(-30 * 24 * time.Hour))
	newer := research.NewSessionID(now.Add(-2 * 24 * time.Hour))
	newest := research.NewSessionID(now.Add(-time.Hour))
	write(old+".log", 10)
	write(old+".prompt", 10)
	write(mid+".log", 400)
	write(mid+".prompt", 10)
	write(newer+".log", 300)
	write(newest+".log", 300)
	write("notes.txt", 5000)
	if err := PruneSessions(dir, now, 90, 1000); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{newer + ".log", newest + ".log", "notes.txt"}
	if strings.Join(left, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", left, want)
	}
}
