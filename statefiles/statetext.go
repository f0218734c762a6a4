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
