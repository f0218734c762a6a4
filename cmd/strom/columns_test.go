package main

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestWriteColumns: rows of any cells, widths and letters (empty cells, letters
// past ASCII, invalid bytes, cells that tabwriter reads as several, rows of
// unequal length) come out byte for byte as tabwriter writes them.
func TestWriteColumns(t *testing.T) {
	t.Parallel()
	pieces := []string{"", "T-1", "T-20000", "open", "offen", "otevřený", "hotovo", "Find the baptism", "Tábor",
		" — parked: an archive is down", "\xff\xfe", "Nováková", "a\tb", "line\nbreak", "\v", "\f", "  ", "\r", "中文"}
	rng := rand.New(rand.NewPCG(1, 2))
	cell := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for trial := range 3000 {
		n := 1 + rng.IntN(4)
		rows := make([][]string, rng.IntN(6))
		for i := range rows {
			cells := n
			if trial%7 == 0 {
				cells = 1 + rng.IntN(4)
			}
			rows[i] = make([]string, cells)
			for j := range rows[i] {
				rows[i][j] = cell()
			}
		}
		var got, want bytes.Buffer
		if err := writeColumns(&got, rows); err != nil {
			t.Fatal(err)
		}
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		for _, row := range rows {
			tw.Write([]byte(strings.Join(row, "\t") + "\n"))
		}
		tw.Flush()
		if got.String() != want.String() {
			t.Fatalf("rows %q:\n got %q\nwant %q", rows, got.String(), want.String())
		}
	}
}
