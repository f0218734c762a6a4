package main

import (
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// writeColumns writes rows as tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) writes them
// with a tab after each cell but a row's last: each cell but the last padded with
// spaces to its column's widest cell, counted in runes, and two more; the last as
// it is. It builds the lines itself, in one write: a page of strom task list
// through tabwriter cost more than decoding its hundred tasks. Rows of unequal
// length, or a cell that tabwriter would read as more than one (a tab, a line
// feed, a vertical tab or a form feed in it) or as escaped (a byte 0xff), go
// through tabwriter.
func writeColumns(w io.Writer, rows [][]string) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0])
	widths := make([]int, n)
	size := 0
	for _, row := range rows {
		if len(row) != n {
			return tabwriterColumns(w, rows)
		}
		for i, cell := range row {
			if strings.ContainsAny(cell, "\t\n\v\f") || strings.IndexByte(cell, tabwriter.Escape) >= 0 {
				return tabwriterColumns(w, rows)
			}
			size += len(cell) + 2
			if i < n-1 {
				widths[i] = max(widths[i], utf8.RuneCountInString(cell))
			}
		}
	}
	for _, wd := range widths {
		size += len(rows) * wd
	}
	b := make([]byte, 0, size+len(rows))
	for _, row := range rows {
		for i, cell := range row {
			b = append(b, cell...)
			if i < n-1 {
				for pad := widths[i] + 2 - utf8.RuneCountInString(cell); pad > 0; pad-- {
					b = append(b, ' ')
				}
			}
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// tabwriterColumns writes rows through tabwriter, as writeColumns does.
func tabwriterColumns(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, row := range rows {
		if _, err := io.WriteString(tw, strings.Join(row, "\t")+"\n"); err != nil {
			return err
		}
	}
	return tw.Flush()
}
