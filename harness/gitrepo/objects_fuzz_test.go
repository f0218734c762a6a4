package gitrepo

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"testing"
)

// insertDelta is a git delta that builds target from base by inserting target's
// bytes (at most 127 an instruction), the sizes varint-coded.
func insertDelta(base, target []byte) []byte {
	var d []byte
	varint := func(v int) {
		for v >= 0x80 {
			d = append(d, byte(v)|0x80)
			v >>= 7
		}
		d = append(d, byte(v))
	}
	varint(len(base))
	varint(len(target))
	for t := target; len(t) > 0; {
		n := min(len(t), 127)
		d = append(append(d, byte(n)), t[:n]...)
		t = t[n:]
	}
	return d
}

// validContent is a commit and validPack a pack holding it as its one entry.
var validContent = []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1795000000 +0100\n\nsubject\n")

var validPack = func() []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(validContent)
	w.Close()
	n := len(validContent)
	head := []byte{byte(objCommit<<4 | 0x80 | n&15), byte(n >> 4)}
	return append(append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"), head...), z.Bytes()...)
}()

// FuzzObjectFiles: the readers of object files never panic on any bytes, read an
// entry alike with fresh readers and with the ones a walk reuses, keep
// within their size bounds, and read back what git's encodings say: a delta of
// inserts gives its target, a loose object its content.
func FuzzObjectFiles(f *testing.F) {
	base := []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1795000000 +0100\n\nsubject\n")
	f.Add(base, insertDelta(base, []byte("new content")), []byte{0x35, 'x'})
	// A copy of the base's first 16 bytes, then an insert.
	f.Add(base, append([]byte{byte(len(base)), 20, 0x90, 16, 4}, "tail"...), []byte{0x95, 0x01})
	f.Add([]byte{}, []byte{0, 0}, []byte{0x60, 0x05, 0x01})
	f.Fuzz(func(t *testing.T, base, delta, entry []byte) {
		if out, err := applyDelta(base, delta); err == nil && len(out) > maxObjectSize {
			t.Fatalf("a delta made %d bytes", len(out))
		}
		if got, err := applyDelta(base, insertDelta(base, entry)); err != nil || !bytes.Equal(got, entry) {
			t.Fatalf("insert delta: %q, %v; want %q", got, err, entry)
		}
		pack := append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"), entry...)
		// The readers a walk reuses read an entry as fresh ones do, after any entry.
		pr, zf := &packReader{}, &inflater{}
		first, ferr := readPackEntry(bytes.NewReader(pack), 12, pr, zf)
		if e, err := readPackEntry(bytes.NewReader(pack), 12, &packReader{}, &inflater{}); (err == nil) != (ferr == nil) || !bytes.Equal(e.data, first.data) {
			t.Fatalf("a fresh read: %q, %v; the reused readers: %q, %v", e.data, err, first.data, ferr)
		}
		if e, err := readPackEntry(bytes.NewReader(validPack), 12, pr, zf); err != nil || !bytes.Equal(e.data, validContent) {
			t.Fatalf("a valid entry after this one: %q, %v", e.data, err)
		}
		if e, err := readPackEntry(bytes.NewReader(pack), 12, pr, zf); (err == nil) != (ferr == nil) || !bytes.Equal(e.data, first.data) {
			t.Fatalf("read again with the reused readers: %q, %v; first %q, %v", e.data, err, first.data, ferr)
		}
		if e, err := readPackEntry(bytes.NewReader(pack), 12, &packReader{}, &inflater{}); err == nil {
			if len(e.data) > maxObjectSize || e.typ < objCommit || e.typ > objRefDelta || e.typ == 5 {
				t.Fatalf("entry %d of %d bytes", e.typ, len(e.data))
			}
			if e.typ == objOfsDelta && (e.baseOff < 0 || e.baseOff >= 12) {
				t.Fatalf("delta base at %d", e.baseOff)
			}
		}
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		fmt.Fprintf(w, "commit %d\x00", len(entry))
		w.Write(entry)
		w.Close()
		if typ, got, err := parseLoose(&z, &inflater{}); err != nil || typ != objCommit || !bytes.Equal(got, entry) {
			t.Fatalf("loose object: %d %q, %v; want %q", typ, got, err, entry)
		}
		parseLoose(bytes.NewReader(entry), &inflater{}) // any bytes: no panic
	})
}
