package capped

import (
	"bytes"
	"testing"
)

func TestWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := &Writer{&b, 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v: a capped write must take everything", s, n, err)
		}
	}
	if b.String() != "abcde" {
		t.Errorf("kept %q, want the first 5 bytes", b.String())
	}
}
