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

func TestTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"abc"}, "abc"},
		{[]string{"abc", "defg", "hij"}, "fghij"},
		{[]string{"abcdefgh"}, "defgh"},
		{[]string{"ab", "cdefghijklm", "n"}, "jklmn"},
		{[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}, "hijkl"},
		{nil, ""},
	}
	for _, tt := range tests {
		w := &Tail{N: 5}
		for _, s := range tt.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v: a tail takes everything", s, n, err)
			}
		}
		if got := w.String(); got != tt.want {
			t.Errorf("%q: kept %q, want the last 5 bytes %q", tt.writes, got, tt.want)
		}
	}
}
