// Package capped keeps the output of a program strom runs within a size: a chatty
// gate, archive probe or check command cannot fill the memory. Writes never fail,
// so the program is never stopped by a full buffer; what does not fit is dropped.
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

// Tail keeps the last N bytes written to it: the end of a program's output, whose
// last line says why the program failed.
type Tail struct {
	N int
	b []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	if len(p) >= t.N {
		t.b = append(t.b[:0], p[len(p)-t.N:]...)
		return len(p), nil
	}
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.N {
		t.b = append(t.b[:0], t.b[len(t.b)-t.N:]...)
	}
	return len(p), nil
}

// String is the last N bytes written.
func (t *Tail) String() string {
	return string(t.b[max(0, len(t.b)-t.N):])
}
