package agentpty

import (
	"bytes"
	"strings"
	"testing"
)

func TestPasteScanner(t *testing.T) {
	t.Parallel()
	bytewise := func(s string) []string { return strings.Split(s, "") }
	tests := []struct {
		name   string
		chunks []string
		want   bool
	}{
		{"nothing", []string{"hello", "world"}, false},
		{"on", []string{"hi" + pasteOn + "there"}, true},
		{"on then off", []string{pasteOn + "x", "y" + pasteOff}, false},
		{"off then on in one chunk", []string{pasteOff + pasteOn}, true},
		{"split after ESC", []string{"a\x1b", "[?2004h"}, true},
		{"split before final byte", []string{"a\x1b[?2004", "h b"}, true},
		{"split in three", []string{"\x1b[", "?20", "04hz"}, true},
		{"byte by byte", bytewise("zz" + pasteOn + "yy"), true},
		{"byte by byte off", bytewise(pasteOn + "q" + pasteOff), false},
		{"other mode", []string{"\x1b[?2005h", "\x1b[?1049h"}, false},
		{"cut then not a switch", []string{"\x1b[?20", "05h"}, false},
		{"cut prefix then new ESC", []string{"\x1b[?2", "\x1b[?2004h"}, true},
		{"ESC at the very end", []string{pasteOn, "\x1b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ps pasteScanner
			for _, c := range tt.chunks {
				ps.scan([]byte(c))
			}
			if got := ps.on.Load(); got != tt.want {
				t.Errorf("paste on = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		sizes []int
	}{
		{"empty", nil},
		{"small", []int{10, 20}},
		{"exactly full", []int{tailSize}},
		{"full in pieces", []int{tailSize - 1, 1}},
		{"wraps", []int{tailSize - 5, 10, 7}},
		{"larger than the ring", []int{3, tailSize + 123}},
		{"many chunks", []int{4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095, 4095}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := new(ring)
			var all []byte
			for i, n := range tt.sizes {
				p := bytes.Repeat([]byte{byte('a' + i)}, n)
				for j := range p {
					p[j] += byte(j % 3) // so that order shows
				}
				r.write(p)
				all = append(all, p...)
			}
			want := all[max(0, len(all)-tailSize):]
			if got := r.bytes(); !bytes.Equal(got, want) {
				t.Errorf("ring holds %d bytes, want the last %d of %d", len(got), len(want), len(all))
			}
		})
	}
}
