package gates

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/statefiles"
)

func TestMain(m *testing.M) {
	testenv.CacheHome()
	os.Exit(m.Run())
}

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Spec
		wantErr bool
	}{
		{in: "claude-usage 10 --cap 95", want: Spec{Name: "claude-usage", Args: []string{"10", "--cap", "95"}}},
		{in: "  fake  ", want: Spec{Name: "fake", Args: []string{}}},
		{in: `mine 'two words' "x"`, want: Spec{Name: "mine", Args: []string{"two words", "x"}}},
		{in: "", wantErr: true},
		{in: "Bad/name", wantErr: true},
		{in: "../x", wantErr: true},
		{in: ".hidden", wantErr: true},
		{in: "-x", wantErr: true},
		{in: "a.b_c-9", want: Spec{Name: "a.b_c-9", Args: []string{}}},
		{in: "9lives", want: Spec{Name: "9lives", Args: []string{}}},
		{in: "naïve", wantErr: true},
		{in: "mine 'open", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSpec(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseSpec(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.Args == nil {
				got.Args = []string{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseSpec(%q) (-want +got):\n%s", tt.in, diff)
			}
			if again, _ := ParseSpec(got.String()); again.String() != got.String() {
				t.Errorf("String does not read back: %q → %q", got.String(), again.String())
			}
		})
	}
}

func TestDecodeAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		out   string
		want  Answer
		retry time.Duration
		bad   bool
	}{
		{name: "go", out: `{"verdict":"go","reason":"ok"}` + "\n", want: Answer{Verdict: Go, Reason: "ok"}},
		{name: "wait with seconds rounded up", out: `{"verdict":"wait","reason":"later","retry_after_s":90.2}`,
			want: Answer{Verdict: Wait, Reason: "later", RetryAfterS: 90.2}, retry: 91 * time.Second},
		{name: "stop hard with watch", out: `{"verdict":"stop","reason":"cap","hard":true,"watch":{"week_finish_at":95}}`,
			want: Answer{Verdict: Stop, Reason: "cap", Hard: true, Watch: &Watch{WeekFinishAt: 95}}},
		{name: "no reason", out: `{"verdict":"go"}`, want: Answer{Verdict: Go, Reason: "(no reason given)"}},
		{name: "unknown fields are ignored", out: `{"verdict":"go","reason":"a  b\nc","extra":1}`, want: Answer{Verdict: Go, Reason: "a b c"}},
		{name: "empty", out: ``, bad: true},
		{name: "text", out: `go`, bad: true},
		{name: "unknown verdict", out: `{"verdict":"GO"}`, bad: true},
		{name: "two objects", out: `{"verdict":"go"} {"verdict":"stop"}`, bad: true},
		{name: "trailing text", out: `{"verdict":"go"} ok`, bad: true},
		{name: "negative retry", out: `{"verdict":"wait","retry_after_s":-1}`, bad: true},
		{name: "watch over 100", out: `{"verdict":"go","watch":{"week_finish_at":101}}`, bad: true},
		{name: "array", out: `[{"verdict":"go"}]`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeAnswer([]byte(tt.out))
			if tt.bad {
				if !errors.Is(err, ErrBadAnswer) {
					t.Fatalf("decodeAnswer(%q) = %+v, %v; want ErrBadAnswer", tt.out, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeAnswer(%q): %v", tt.out, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.RetryAfter() != tt.retry {
				t.Errorf("RetryAfter = %s, want %s", got.RetryAfter(), tt.retry)
			}
		})
	}
}

func TestGateLogKeeps90DaysAnd2MB(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		old       []time.Time
		pad       int // bytes of reason in each old line
		wantFirst time.Time
		wantLines int
	}{
		{name: "empty log", wantLines: 1},
		{name: "older than 90 days go", old: []time.Time{now.AddDate(0, 0, -91), now.AddDate(0, 0, -90).Add(time.Minute), now.AddDate(0, 0, -1)},
			wantFirst: now.AddDate(0, 0, -90).Add(time.Minute), wantLines: 3},
		{name: "exactly 90 days stays", old: []time.Time{now.Add(-LogKeep)}, wantFirst: now.Add(-LogKeep), wantLines: 2},
	}
	// 3000 lines of about 1 KB: past 2 MB, the oldest go.
	var many []time.Time
	for i := range 3000 {
		many = append(many, now.Add(-time.Duration(3000-i)*time.Minute))
	}
	tests = append(tests, struct {
		name      string
		old       []time.Time
		pad       int
		wantFirst time.Time
		wantLines int
	}{name: "past 2 MB the oldest go", old: many, pad: 1000, wantLines: -1})

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tree := statefiles.At(t.TempDir())
			if err := os.MkdirAll(tree.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, w := range tt.old {
				fmt.Fprintf(&b, `{"when":%q,"gate":"g","args":[],"exit":0,"verdict":"go","reason":%q,"did":"go"}`+"\n",
					w.Format(time.RFC3339Nano), strings.Repeat("x", tt.pad))
			}
			path := tree.Path(statefiles.GateLogFile)
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := AppendLog(tree, LogEntry{When: now, Gate: "g", Verdict: Go, Reason: "new", Did: DidGo}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if len(data) > LogMaxBytes {
				t.Errorf("gate.log is %d bytes, more than %d", len(data), LogMaxBytes)
			}
			if !strings.Contains(lines[len(lines)-1], `"reason":"new"`) {
				t.Errorf("the new entry is not last: %s", lines[len(lines)-1])
			}
			if tt.wantLines >= 0 && len(lines) != tt.wantLines {
				t.Errorf("%d lines, want %d", len(lines), tt.wantLines)
			}
			if tt.wantLines < 0 && (len(lines) >= len(tt.old) || len(data) < LogMaxBytes-2000) {
				t.Errorf("size pruning kept %d lines (%d bytes) of %d", len(lines), len(data), len(tt.old))
			}
			if !tt.wantFirst.IsZero() && !strings.Contains(lines[0], tt.wantFirst.Format(time.RFC3339Nano)) {
				t.Errorf("first line %s, want the one of %s", lines[0], tt.wantFirst)
			}
		})
	}
}
