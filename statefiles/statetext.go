package statefiles

// The pieces both index states (progressstate.go, queuestate.go) are read and
// written with: lines of fields one space apart, numbers as strconv writes them,
// stamps and sums.

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// textLines reads the text of a state file a line at a time: rest is what follows
// the lines read.
type textLines struct{ rest string }

// next returns the next line without its newline; false when no whole line is
// left.
func (r *textLines) next() (string, bool) {
	i := strings.IndexByte(r.rest, '\n')
	if i < 0 {
		return "", false
	}
	l := r.rest[:i]
	r.rest = r.rest[i+1:]
	return l, true
}

// splitFields cuts l at single spaces into exactly len(f) fields, none empty.
func splitFields(l string, f []string) bool {
	n := 0
	start := 0
	for i := 0; i <= len(l); i++ {
		if i < len(l) && l[i] != ' ' {
			continue
		}
		if i == start || n == len(f) {
			return false
		}
		f[n] = l[start:i]
		n++
		start = i + 1
	}
	return n == len(f)
}

// parseStamp reads inode, size, mtime and ctime, and the tail when there is one:
// 64 hex digits, or "-" for a tail that matches none.
func parseStamp(f []string, tail string, hasTail bool) (stamp, bool) {
	ino, ok1 := parseUint(f[0])
	size, ok2 := parseUint(f[1])
	mtime, ok3 := parseInt(f[2])
	ctime, ok4 := parseInt(f[3])
	if !ok1 || !ok2 || !ok3 || !ok4 || size > math.MaxInt64 {
		return stamp{}, false
	}
	s := stamp{Ino: ino, Size: int64(size), MTime: mtime, CTime: ctime}
	switch {
	case !hasTail:
	case tail == "-" || isSum(tail):
		s.Tail = tail
	default:
		return stamp{}, false
	}
	return s, true
}

func isSum(b string) bool {
	if len(b) != 64 {
		return false
	}
	for i := 0; i < len(b); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(b[i : i+8]))
		if !eightHex(x) {
			return false
		}
	}
	return true
}

// eightHex reports whether the eight bytes of x are lowercase hex digits: per
// byte, a high nibble of 3 and a low one below 10, or a high nibble of 6 and a low
// one from 1 to 6 ('a' to 'f'). The nibbles are compared in bytes of their own
// (below 0x10), where adding up to 0x7f never carries into the next byte, and a
// comparison's answer is the byte's top bit.
func eightHex(x uint64) bool {
	const (
		top  = 0x8080808080808080
		ones = 0x0101010101010101
	)
	h := (x >> 4) & (0x0f * ones)
	l := x & (0x0f * ones)
	digitHi := ^((h ^ 3*ones) + 0x7f*ones) & top         // h == 3
	letterHi := ^((h ^ 6*ones) + 0x7f*ones) & top        // h == 6
	digitLo := ^(l + 0x76*ones) & top                    // l <= 9
	letterLo := (l + 0x7f*ones) & ^(l + 0x79*ones) & top // 1 <= l <= 6
	return (digitHi&digitLo)|(letterHi&letterLo) == top
}

// maxUint is the largest uint64 as strconv writes it: a number of 20 digits is
// one when it is no greater, digit by digit.
const maxUint = "18446744073709551615"

// parseUint reads a number as strconv writes it: digits, no leading zero.
func parseUint(b string) (uint64, bool) {
	if len(b) == 0 || len(b) > len(maxUint) || (b[0] == '0' && len(b) > 1) || (len(b) == len(maxUint) && b > maxUint) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	return n, true
}

// fieldReader reads the fields of one line in order, one space apart, none
// empty, each as the parsers above read it: a field that does not read, or one
// missing or left over, marks the line bad. A reader may ask for every field
// before it asks bad.
type fieldReader struct {
	rest string // what follows the fields read
	bad  bool
}

// uint reads a number field (parseUint) and the space after it, unless last: one
// pass over its digits, eight at a time where eight follow.
func (r *fieldReader) uint(last bool) uint64 {
	l := r.rest
	var n uint64
	i := 0
	for i+8 <= len(l) {
		x := binary.LittleEndian.Uint64([]byte(l[i : i+8]))
		if !eightDigits(x) {
			break
		}
		n = n*1e8 + eightValue(x)
		i += 8
	}
	for ; i < len(l); i++ {
		d := l[i] - '0'
		if d > 9 {
			break
		}
		n = n*10 + uint64(d)
	}
	// As strconv writes it: no leading zero, no more than maxUint (past it n has
	// wrapped, and the field is refused).
	r.cut(i, i > 0 && (l[0] != '0' || i == 1) && (i < len(maxUint) || (i == len(maxUint) && l[:i] <= maxUint)), last)
	return n
}

// eightDigits reports whether the eight bytes of x (the first in its low byte)
// are all ASCII digits: each byte's high nibble is 3, and so it stays when 6 is
// added to the byte (a low nibble of 10 or more carries into it).
func eightDigits(x uint64) bool {
	return (x&0xf0f0f0f0f0f0f0f0)|(((x+0x0606060606060606)&0xf0f0f0f0f0f0f0f0)>>4) == 0x3333333333333333
}

// eightValue is the number the eight ASCII digits of x write, the first in its low
// byte: pairs, then quads, then the eight, each step in one multiplication.
func eightValue(x uint64) uint64 {
	x -= 0x3030303030303030
	x = (x * 10) + (x >> 8) // each even byte: two digits
	x = ((x & 0x000000ff000000ff) * (100 + (1000000 << 32))) + (((x >> 16) & 0x000000ff000000ff) * (1 + (10000 << 32)))
	return x >> 32
}

// int reads a whole number field (parseInt) and the space after it, unless last.
func (r *fieldReader) int(last bool) int64 {
	if len(r.rest) == 0 || r.rest[0] != '-' {
		u := r.uint(last)
		if u > math.MaxInt64 {
			r.bad = true
		}
		return int64(u)
	}
	r.rest = r.rest[1:]
	u := r.uint(last)
	if u == 0 || u > 1<<63 {
		r.bad = true
	}
	return int64(-u)
}

// cut steps past a field read in its first i bytes of rest, and the space after
// it; the last field ends the line.
func (r *fieldReader) cut(i int, ok, last bool) {
	switch {
	case !ok:
		r.bad = true
	case last:
		r.bad = r.bad || i != len(r.rest)
	case i == len(r.rest) || r.rest[i] != ' ':
		r.bad = true // the field goes on, or the next is missing
	default:
		i++ // the space
	}
	r.rest = r.rest[i:]
}

// stamp reads inode, size, mtime and ctime (parseStamp without a tail), and the
// space after them unless they end the line.
func (r *fieldReader) stamp(last bool) stamp {
	ino := r.uint(false)
	size := r.uint(false)
	mtime := r.int(false)
	ctime := r.int(last)
	if size > math.MaxInt64 {
		r.bad = true
	}
	return stamp{Ino: ino, Size: int64(size), MTime: mtime, CTime: ctime}
}

// tail reads the last field as a stamp's tail: 64 hex digits, or "-".
func (r *fieldReader) tail() string {
	t := r.rest
	r.rest = ""
	if t != "-" && !isSum(t) {
		r.bad = true
	}
	return t
}

// parseInt reads a whole number as strconv writes it.
func parseInt(b string) (int64, bool) {
	if len(b) > 0 && b[0] == '-' {
		u, ok := parseUint(b[1:])
		if !ok || u == 0 || u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	u, ok := parseUint(b)
	if !ok || u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

func appendStamp(b []byte, s stamp) []byte {
	b = strconv.AppendUint(b, s.Ino, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, s.Size, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, s.MTime, 10)
	b = append(b, ' ')
	return strconv.AppendInt(b, s.CTime, 10)
}

// appendSum adds a sum, or "-" for one that matches none.
func appendSum(b []byte, sum string) []byte {
	if isSum(sum) {
		return append(b, sum...)
	}
	return append(b, '-')
}
