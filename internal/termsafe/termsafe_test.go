package termsafe

import (
	"bytes"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain title", "plain title"},
		{"Tábor, 1850 — ok", "Tábor, 1850 — ok"},
		{"lines\nand\ttabs\r\n", "lines\nand\ttabs\r\n"},
		{"red \x1b[31mtitle\x1b[0m", `red \x1b[31mtitle\x1b[0m`},
		{"bell\a", `bell\x07`},
		{"over\rwrite", `over\rwrite`},
		{"end\r", `end\r`},
		{"é\rx", `é\rx`},
		{"csi \u009b2J", `csi \u009b2J`},
		{"bad \xff byte", `bad \xff byte`},
		{"del\x7f", `del\x7f`},
		{"title \x1b]0;pwned\a", `title \x1b]0;pwned\x07`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := Writer(&b)
	n, err := w.Write([]byte("T-1  open  \x1b[2Jgone\n"))
	if err != nil || n != len("T-1  open  \x1b[2Jgone\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, want := b.String(), "T-1  open  \\x1b[2Jgone\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
