package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
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
		{"del\x7f", `del\u007f`},
		{"title \x1b]0;pwned\a", `title \x1b]0;pwned\x07`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`},
		{"שלום עולם", "שלום עולם"},
		{"para\u2028sep", "para\u2028sep"},
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

// TestJSONStaysJSON: JSON output passed through String still decodes to the same
// text, whatever control characters the text held.
func TestJSONStaysJSON(t *testing.T) {
	t.Parallel()
	in := "title \x1b[2J\a\r\x7f\u009b\u0085\u202e\u2028 end"
	b, err := json.Marshal(map[string]string{"title": in})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]string
	if err := json.Unmarshal([]byte(String(string(b))), &out); err != nil {
		t.Fatalf("String(%s) is no JSON: %v", b, err)
	}
	if out["title"] != in {
		t.Errorf("decoded %q, want %q", out["title"], in)
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain title", "plain title"},
		{"Tábor, 1850 — ok", "Tábor, 1850 — ok"},
		{"two\nlines", `two\nlines`},
		{"crlf\r\nend", `crlf\r\nend`},
		{"tab\there", `tab\there`},
		{"fake\n▶ session 1 on T-9", `fake\n▶ session 1 on T-9`},
		{"red \x1b[31mtitle\x1b[0m", `red \x1b[31mtitle\x1b[0m`},
		{"title \x1b]0;pwned\a", `title \x1b]0;pwned\x07`},
		{"csi \u009b2J del\x7f", `csi \u009b2J del\u007f`},
		{"bad \xff byte", `bad \xff byte`},
		{"ls\u2028▶ session 1\u2029", `ls\u2028▶ session 1\u2029`},
		{"\u202e)nim 06( \"eltit\"", `\u202e)nim 06( "eltit"`},
		{"lrm \u200f mark", "lrm \u200f mark"},
	}
	for _, tt := range tests {
		got := Line(tt.in)
		if got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, "\n\r\t\x1b\a") {
			t.Errorf("Line(%q) = %q is not one safe line", tt.in, got)
		}
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 120000)
	tests := []struct{ in, want string }{
		{"", ""},
		{"nonsense", "nonsense"},
		{strings.Repeat("é", ExcerptMax), strings.Repeat("é", ExcerptMax)},
		{strings.Repeat("é", ExcerptMax+1), strings.Repeat("é", ExcerptMax) + "…"},
		{long, long[:ExcerptMax] + "…"},
		{"a\nb", `a\nb`},
		{"\xff" + long, `\xff` + long[:ExcerptMax-1] + "…"},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.in); got != tt.want {
			t.Errorf("Excerpt(%.20q…) = %.40q…, want %.40q…", tt.in, got, tt.want)
		}
	}
}
