package menu

import (
	"slices"
	"strings"
	"testing"
)

// TestPickOrder: the drawn multi-select sets the whole selection, in the options'
// order, at each toggle; the value keeps the order the tasks were turned on.
func TestPickOrder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sets [][]string
		want []string
	}{
		{"none", [][]string{{}}, nil},
		{"in the options' order", [][]string{{"T-1"}, {"T-1", "T-3"}}, []string{"T-1", "T-3"}},
		{"against it", [][]string{{"T-3"}, {"T-1", "T-3"}}, []string{"T-3", "T-1"}},
		{"one turned off", [][]string{{"T-3"}, {"T-2", "T-3"}, {"T-1", "T-2", "T-3"}, {"T-1", "T-3"}}, []string{"T-3", "T-1"}},
		{"off and on again goes last", [][]string{{"T-2"}, {"T-2", "T-3"}, {"T-3"}, {"T-2", "T-3"}}, []string{"T-3", "T-2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &pickOrder{}
			for _, v := range tt.sets {
				p.Set(v)
			}
			if got := p.Get(); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("picked %v, want %v", got, tt.want)
			}
		})
	}
}

// TestToggled: the numbers typed into an accessible multi-select, replayed as huh
// reads them (each toggles option N; 0, words and numbers out of range change
// nothing), give the tasks in the order they were turned on.
func TestToggled(t *testing.T) {
	t.Parallel()
	ids := []string{"T-1", "T-2", "T-3"}
	for _, tt := range []struct{ typed, want string }{
		{"0\n", ""},
		{"3\n1\n0\n", "T-3,T-1"},
		{"3\r\n 1 \n0\r\n", "T-3,T-1"},
		{"2\n3\n2\n1\n0\n", "T-3,T-1"},
		{"x\n4\n-1\n3\n\n0\n", "T-3"},
		{"0\n2\n0\n", "T-2"}, // nothing picked at the first 0: huh asks again
	} {
		got := strings.Join(toggled(strings.NewReader(tt.typed), ids), ",")
		if got != tt.want {
			t.Errorf("typed %q: %q, want %q", tt.typed, got, tt.want)
		}
	}
}

// TestAsTyped: a refused value is shown as the flag's sentence shows it.
func TestAsTyped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"0": "0", "101": "101", "x": `"x"`, "": `""`, "1.5": `"1.5"`} {
		if got := asTyped(in); got != want {
			t.Errorf("asTyped(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestWholeIn: a whole number in the range, or empty where empty is allowed.
func TestWholeIn(t *testing.T) {
	t.Parallel()
	n, capped := wholeIn(0, 99, "bad n", false), wholeIn(1, 100, "bad cap", true)
	for _, tt := range []struct {
		valid func(string) error
		in    string
		ok    bool
	}{
		{n, "0", true}, {n, "99", true}, {n, " 10 ", true}, {n, "100", false}, {n, "-1", false},
		{n, "9.5", false}, {n, "", false}, {capped, "", true}, {capped, "0", false}, {capped, "100", true}, {capped, "101", false},
	} {
		if err := tt.valid(tt.in); (err == nil) != tt.ok {
			t.Errorf("%q: %v, want ok %v", tt.in, err, tt.ok)
		}
	}
}
