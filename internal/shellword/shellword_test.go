package shellword

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		want    []string
		wantErr string
	}{
		{line: "", want: nil},
		{line: "   ", want: nil},
		{line: "./agent.sh", want: []string{"./agent.sh"}},
		{line: "  a \t b\nc  ", want: []string{"a", "b", "c"}},
		{line: `python3 "my agent.py" --x`, want: []string{"python3", "my agent.py", "--x"}},
		{line: `a 'it''s' b`, want: []string{"a", "its", "b"}},
		{line: `a 'say "hi" $HOME \n'`, want: []string{"a", `say "hi" $HOME \n`}},
		{line: `a "say \"hi\" \$HOME \n \\"`, want: []string{"a", `say "hi" $HOME \n \`}},
		{line: `a\ b c\'d`, want: []string{"a b", "c'd"}},
		{line: `a '' ""`, want: []string{"a", "", ""}},
		{line: `--flag="two words"`, want: []string{"--flag=two words"}},
		{line: "a \\\nb", want: []string{"a", "b"}},
		{line: `a | b; c`, want: []string{"a", "|", "b;", "c"}},
		{line: `a 'b`, wantErr: "a single quote is not closed"},
		{line: `a "b`, wantErr: "a double quote is not closed"},
		{line: `a "b\"`, wantErr: "a double quote is not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			got, err := Split(tt.line)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Split(%q) error = %v, want %q", tt.line, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestShellQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/usr/local/bin/strom", "/usr/local/bin/strom"},
		{"20261130T091204Z-4f2a", "20261130T091204Z-4f2a"},
		{"", "''"},
		{"/home/a b/strom", "'/home/a b/strom'"},
		{"/tmp/it's/strom", `'/tmp/it'\''s/strom'`},
		{"$(rm -rf ~)", "'$(rm -rf ~)'"},
		{"a;b`c`\"d\"", "'a;b`c`\"d\"'"},
		// Found by FuzzQuote: bytes that are not UTF-8 came back as U+FFFD.
		{"\xaa", "'\xaa'"},
		{"Nov\xe1k \\\xff", "'Nov\xe1k \\\xff'"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got := Quote(tt.in)
			if got != tt.want {
				t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
			}
			back, err := Split(got + " next")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.in, "next"}, back); diff != "" {
				t.Errorf("split back (-want +got):\n%s", diff)
			}
		})
	}
}
