// Package capped keeps the output of a program strom runs within a size: a chatty
// gate or archive probe cannot fill the memory. Writes never fail, so the program
// is never stopped by a full buffer; what does not fit is dropped.
package capped

import "bytes"

// Writer keeps at most N bytes in B and drops the rest.
type Writer struct {
	B *bytes.Buffer
	N int
}

func (w *Writer) Write(p []byte) (int, error) {
	if room := w.N - w.B.Len(); room > 0 {
		w.B.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
