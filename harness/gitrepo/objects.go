package gitrepo

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// objectFiles reads commits straight from the repository's object files — loose
// objects and pack files with a version-2 index, deltas included — without starting
// git and without loading a whole pack index as go-git does: a look-up reads the
// index's fan-out and one slice of its names. It reads only the plain layout of a
// SHA-1 repository: alternates, a shallow or grafts file (or the variables that
// name them), any extension in the repository's config, or an object it cannot
// find give errObjectLayout, and the caller reads through git instead.
type objectFiles struct {
	dir   string // <common dir>/objects
	packs []*packFile

	// What every object read reuses rather than allocates anew: one zlib reader
	// (a flate decompressor is some 40 KiB), the reader of a pack from an offset,
	// and the buffer of an index's names.
	z     inflater
	pr    packReader
	names []byte
}

// errObjectLayout says the object files are not read by objectFiles.
var errObjectLayout = errors.New("object layout not read by strom")

// maxObjectSize bounds a commit (and every delta base on its way) read into memory.
const maxObjectSize = 64 << 20

// maxDeltaChain bounds the deltas followed for one object (git's own default depth
// is 50, aggressive repacks use 250).
const maxDeltaChain = 4096

// objectEnv are the variables that make git read objects or parents from elsewhere.
var objectEnv = []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE"}

func openObjectFiles(commonDir string) (*objectFiles, error) {
	for _, k := range objectEnv {
		if os.Getenv(k) != "" {
			return nil, fmt.Errorf("%w: %s is set", errObjectLayout, k)
		}
	}
	for _, f := range []string{"objects/info/alternates", "shallow", "info/grafts"} {
		if _, err := os.Lstat(filepath.Join(commonDir, f)); !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", errObjectLayout, f)
		}
	}
	if err := plainRepoConfig(filepath.Join(commonDir, "config")); err != nil {
		return nil, err
	}
	o := &objectFiles{dir: filepath.Join(commonDir, "objects")}
	if err := o.scanPacks(); err != nil {
		return nil, err
	}
	return o, nil
}

// plainRepoConfig accepts a repository config of format version 0 or 1 that names
// no extension at all (a SHA-256 object format, a partial clone's promisor remote,
// reftable, worktree config, …). A line it does not understand counts as one.
func plainRepoConfig(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %v", errObjectLayout, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.ToLower(strings.TrimSpace(l))
		if strings.Contains(l, "extensions") {
			return fmt.Errorf("%w: extensions", errObjectLayout)
		}
		if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "repositoryformatversion" {
			if v = strings.TrimSpace(v); v != "0" && v != "1" {
				return fmt.Errorf("%w: core.repositoryformatversion %s", errObjectLayout, v)
			}
		} else if strings.Contains(l, "repositoryformatversion") {
			return fmt.Errorf("%w: core.repositoryformatversion", errObjectLayout)
		}
	}
	return nil
}

// scanPacks (re)lists the pack files that have an index.
func (o *objectFiles) scanPacks() error {
	o.close()
	names, err := filepath.Glob(filepath.Join(o.dir, "pack", "pack-*.idx"))
	if err != nil {
		return fmt.Errorf("list packs: %w", err)
	}
	sort.Strings(names)
	for _, idx := range names {
		pack := strings.TrimSuffix(idx, ".idx") + ".pack"
		if _, err := os.Stat(pack); err != nil {
			continue // git writes the pack before its index; a lone index is a removal in progress
		}
		o.packs = append(o.packs, &packFile{idxPath: idx, packPath: pack})
	}
	return nil
}

func (o *objectFiles) close() {
	for _, p := range o.packs {
		p.close()
	}
	o.packs = nil
}

// commit returns the content of commit hash (40 hex digits).
func (o *objectFiles) commit(hash string) ([]byte, error) {
	id, err := hex.DecodeString(hash)
	if err != nil || len(id) != 20 {
		return nil, fmt.Errorf("%w: object name %q", errObjectLayout, hash)
	}
	typ, data, err := o.object(id, 0)
	if errors.Is(err, errObjectMissing) {
		// A repack may have moved it since the packs were listed.
		if err = o.scanPacks(); err == nil {
			typ, data, err = o.object(id, 0)
		}
	}
	if err != nil {
		return nil, err
	}
	if typ != objCommit {
		return nil, fmt.Errorf("read object %s: a %s, not a commit", hash, typeName(typ))
	}
	return data, nil
}

var errObjectMissing = fmt.Errorf("%w: object not found", errObjectLayout)

// Object types as pack files number them.
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

func typeName(t int) string {
	switch t {
	case objCommit:
		return "commit"
	case objTree:
		return "tree"
	case objBlob:
		return "blob"
	case objTag:
		return "tag"
	}
	return "object of type " + strconv.Itoa(t)
}

// object reads an object by name from the packs or the loose objects.
func (o *objectFiles) object(id []byte, depth int) (int, []byte, error) {
	for _, p := range o.packs {
		off, ok, err := p.find(id, &o.names)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return o.packed(p, off, depth)
		}
	}
	return o.loose(id)
}

// loose reads objects/xx/yyyy…: zlib over "<type> <size>\x00<content>".
func (o *objectFiles) loose(id []byte) (int, []byte, error) {
	name := hex.EncodeToString(id)
	f, err := os.Open(filepath.Join(o.dir, name[:2], name[2:]))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil, errObjectMissing
	}
	if err != nil {
		return 0, nil, fmt.Errorf("read object %s: %w", name, err)
	}
	defer f.Close()
	typ, data, err := parseLoose(f, &o.z)
	if err != nil {
		return 0, nil, fmt.Errorf("read object %s: %w", name, err)
	}
	return typ, data, nil
}

func parseLoose(r io.Reader, z *inflater) (int, []byte, error) {
	zr, err := z.reset(bufio.NewReaderSize(r, 512))
	if err != nil {
		return 0, nil, err
	}
	var head []byte
	var one [1]byte
	for len(head) < 32 {
		if _, err := io.ReadFull(zr, one[:]); err != nil {
			return 0, nil, fmt.Errorf("object header: %w", err)
		}
		if one[0] == 0 {
			break
		}
		head = append(head, one[0])
	}
	kind, size, ok := strings.Cut(string(head), " ")
	n, err := strconv.Atoi(size)
	if !ok || err != nil || n < 0 || n > maxObjectSize {
		return 0, nil, fmt.Errorf("object header %q", head)
	}
	typ := 0
	for t := objCommit; t <= objTag; t++ {
		if typeName(t) == kind {
			typ = t
		}
	}
	if typ == 0 {
		return 0, nil, fmt.Errorf("object header %q", head)
	}
	data, err := readContent(zr, uint64(n))
	if err != nil {
		return 0, nil, fmt.Errorf("object content: %w", err)
	}
	return typ, data, nil
}

// readContent reads size bytes of inflated content. Up to 64 KiB (every commit
// and most deltas) it reads them into one allocation of that size; beyond, it
// grows with what the stream holds rather than trust the header's size: a broken
// entry costs what it is, not up to maxObjectSize.
func readContent(zr io.Reader, size uint64) ([]byte, error) {
	if size <= 64<<10 {
		data := make([]byte, size)
		if _, err := io.ReadFull(zr, data); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		return data, nil
	}
	data, err := io.ReadAll(io.LimitReader(zr, int64(size)))
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) != size {
		return nil, io.ErrUnexpectedEOF
	}
	return data, nil
}

// inflater is one zlib reader, reset for each stream.
type inflater struct{ zr io.ReadCloser }

// reset starts reading the zlib stream r.
func (z *inflater) reset(r flate.Reader) (io.Reader, error) {
	if z.zr == nil {
		zr, err := zlib.NewReader(r)
		if err != nil {
			return nil, err
		}
		z.zr = zr
		return zr, nil
	}
	if err := z.zr.(zlib.Resetter).Reset(r, nil); err != nil {
		return nil, err
	}
	return z.zr, nil
}

// packReader reads a pack from an offset on through one buffer, reused for every
// entry: an entry's header and its zlib stream usually come in one read, and it is
// the io.ByteReader flate needs, so no bufio.Reader is made for each entry.
type packReader struct {
	f    io.ReaderAt
	off  int64 // where the next fill reads
	buf  []byte
	r, n int // unread: buf[r:n]
	err  error
}

const packReadSize = 4 << 10

func (p *packReader) reset(f io.ReaderAt, off int64) {
	if p.buf == nil {
		p.buf = make([]byte, packReadSize)
	}
	p.f, p.off, p.r, p.n, p.err = f, off, 0, 0, nil
}

func (p *packReader) fill() error {
	if p.err != nil {
		return p.err
	}
	n, err := p.f.ReadAt(p.buf, p.off)
	if n == 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		p.err = err
		return err
	}
	p.off += int64(n)
	p.r, p.n = 0, n
	return nil
}

func (p *packReader) ReadByte() (byte, error) {
	if p.r == p.n {
		if err := p.fill(); err != nil {
			return 0, err
		}
	}
	p.r++
	return p.buf[p.r-1], nil
}

func (p *packReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if p.r == p.n {
		if err := p.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(b, p.buf[p.r:p.n])
	p.r += n
	return n, nil
}

// packed reads the object at off in pack p, resolving deltas.
func (o *objectFiles) packed(p *packFile, off int64, depth int) (int, []byte, error) {
	if depth > maxDeltaChain {
		return 0, nil, fmt.Errorf("read pack %s: a delta chain longer than %d", p.packPath, maxDeltaChain)
	}
	f, err := p.packFile()
	if err != nil {
		return 0, nil, err
	}
	e, err := readPackEntry(f, off, &o.pr, &o.z)
	if err != nil {
		return 0, nil, fmt.Errorf("read pack %s at %d: %w", filepath.Base(p.packPath), off, err)
	}
	var baseType int
	var base []byte
	switch e.typ {
	case objOfsDelta:
		baseType, base, err = o.packed(p, e.baseOff, depth+1)
	case objRefDelta:
		baseType, base, err = o.object(e.baseID, depth+1)
	default:
		return e.typ, e.data, nil
	}
	if err != nil {
		return 0, nil, err
	}
	data, err := applyDelta(base, e.data)
	if err != nil {
		return 0, nil, fmt.Errorf("read pack %s at %d: %w", filepath.Base(p.packPath), off, err)
	}
	return baseType, data, nil
}

// packEntry is one entry of a pack file: an object, or a delta with its base.
type packEntry struct {
	typ     int
	data    []byte // the object's content, or the delta's instructions
	baseOff int64  // objOfsDelta: the base's offset in the same pack
	baseID  []byte // objRefDelta: the base's name
}

// readPackEntry reads the entry at off through pr and z: a type-and-size header,
// the delta's base, then the zlib stream of the content.
func readPackEntry(f io.ReaderAt, off int64, pr *packReader, z *inflater) (packEntry, error) {
	var e packEntry
	if off < 12 {
		return e, errors.New("offset inside the pack header")
	}
	pr.reset(f, off)
	c, err := pr.ReadByte()
	if err != nil {
		return e, err
	}
	// next is the header's next byte; the header ends before the stream does.
	i := 1
	next := func() (byte, bool) {
		b, err := pr.ReadByte()
		if err != nil || i >= 32 {
			return 0, false
		}
		i++
		return b, true
	}
	e.typ = int(c>>4) & 7
	size := uint64(c & 15)
	var ok bool
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, ok = next(); !ok || shift > 60 {
			return e, errors.New("entry size")
		}
		size |= uint64(c&0x7f) << shift
	}
	if size > maxObjectSize {
		return e, fmt.Errorf("an object of %d bytes", size)
	}
	switch e.typ {
	case objCommit, objTree, objBlob, objTag:
	case objOfsDelta:
		if c, ok = next(); !ok {
			return e, io.ErrUnexpectedEOF
		}
		rel := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if c, ok = next(); !ok || rel > 1<<55 {
				return e, errors.New("delta base offset")
			}
			rel = (rel+1)<<7 | uint64(c&0x7f)
		}
		if rel == 0 || rel > uint64(off) {
			return e, errors.New("delta base offset")
		}
		e.baseOff = off - int64(rel)
	case objRefDelta:
		e.baseID = make([]byte, 20)
		if _, err := io.ReadFull(pr, e.baseID); err != nil {
			return e, io.ErrUnexpectedEOF
		}
	default:
		return e, fmt.Errorf("entry of type %d", e.typ)
	}
	zr, err := z.reset(pr)
	if err != nil {
		return e, err
	}
	e.data, err = readContent(zr, size)
	if err != nil {
		return e, fmt.Errorf("entry content: %w", err)
	}
	return e, nil
}

// applyDelta builds an object from its base and a git delta: the base's and the
// result's sizes, then copy (from the base) and insert (literal) instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	i := 0
	varint := func() (uint64, error) {
		var v uint64
		for shift := 0; ; shift += 7 {
			if i >= len(delta) || shift > 63 {
				return 0, errors.New("delta size")
			}
			c := delta[i]
			i++
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, nil
			}
		}
	}
	srcSize, err := varint()
	if err != nil {
		return nil, err
	}
	dstSize, err := varint()
	if err != nil {
		return nil, err
	}
	if srcSize != uint64(len(base)) {
		return nil, fmt.Errorf("delta for a base of %d bytes, the base has %d", srcSize, len(base))
	}
	if dstSize > maxObjectSize {
		return nil, fmt.Errorf("a delta result of %d bytes", dstSize)
	}
	// The result grows as the instructions make it; the declared size is checked.
	out := make([]byte, 0, min(dstSize, uint64(len(base)+len(delta))))
	for i < len(delta) {
		op := delta[i]
		i++
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for k := 0; k < 4; k++ {
				if op&(1<<k) != 0 {
					if i >= len(delta) {
						return nil, io.ErrUnexpectedEOF
					}
					off |= uint64(delta[i]) << (8 * k)
					i++
				}
			}
			for k := 0; k < 3; k++ {
				if op&(0x10<<k) != 0 {
					if i >= len(delta) {
						return nil, io.ErrUnexpectedEOF
					}
					n |= uint64(delta[i]) << (8 * k)
					i++
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
				return nil, errors.New("delta copies past its bounds")
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			n := int(op)
			if i+n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, errors.New("delta inserts past its bounds")
			}
			out = append(out, delta[i:i+n]...)
			i += n
		default:
			return nil, errors.New("delta instruction 0")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, fmt.Errorf("delta made %d bytes, not %d", len(out), dstSize)
	}
	return out, nil
}

// packFile is one pack and its version-2 index, opened on first use.
type packFile struct {
	idxPath, packPath string
	idx, pack         *os.File
	fanout            [256]uint32
}

func (p *packFile) close() {
	for _, f := range []*os.File{p.idx, p.pack} {
		if f != nil {
			f.Close()
		}
	}
	p.idx, p.pack = nil, nil
}

func (p *packFile) packFile() (*os.File, error) {
	if p.pack == nil {
		f, err := os.Open(p.packPath)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errObjectMissing, err)
		}
		p.pack = f
	}
	return p.pack, nil
}

// Layout of a version-2 pack index: magic, version, 256 fan-out counts, then the
// sorted names (20 bytes each), their CRCs, 4-byte offsets and 8-byte offsets.
const (
	idxHeader = 8
	idxNames  = idxHeader + 256*4
)

func (p *packFile) openIndex() error {
	f, err := os.Open(p.idxPath)
	if err != nil {
		return fmt.Errorf("%w: %v", errObjectMissing, err)
	}
	var head [idxNames]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		f.Close()
		return fmt.Errorf("%w: pack index %s: %v", errObjectLayout, filepath.Base(p.idxPath), err)
	}
	if !bytes.Equal(head[:4], []byte("\377tOc")) || binary.BigEndian.Uint32(head[4:8]) != 2 {
		f.Close()
		return fmt.Errorf("%w: pack index %s is not version 2", errObjectLayout, filepath.Base(p.idxPath))
	}
	prev := uint32(0)
	for k := range p.fanout {
		p.fanout[k] = binary.BigEndian.Uint32(head[idxHeader+4*k:])
		if p.fanout[k] < prev {
			f.Close()
			return fmt.Errorf("%w: pack index %s: fan-out", errObjectLayout, filepath.Base(p.idxPath))
		}
		prev = p.fanout[k]
	}
	p.idx = f
	return nil
}

// find looks id up in the index: the offset of its entry in the pack. The names
// that share id's first byte are read in one read into *buf, which grows to the
// largest such slice and is reused.
func (p *packFile) find(id []byte, buf *[]byte) (int64, bool, error) {
	if p.idx == nil {
		if err := p.openIndex(); err != nil {
			return 0, false, err
		}
	}
	lo := uint32(0)
	if id[0] > 0 {
		lo = p.fanout[id[0]-1]
	}
	hi := p.fanout[id[0]]
	if hi <= lo {
		return 0, false, nil
	}
	if need := 20 * int(hi-lo); cap(*buf) < need {
		*buf = make([]byte, need)
	}
	names := (*buf)[:20*(hi-lo)]
	if _, err := p.idx.ReadAt(names, idxNames+20*int64(lo)); err != nil {
		return 0, false, fmt.Errorf("read pack index %s: %w", filepath.Base(p.idxPath), err)
	}
	k := sort.Search(int(hi-lo), func(k int) bool { return bytes.Compare(names[20*k:20*k+20], id) >= 0 })
	if k == int(hi-lo) || !bytes.Equal(names[20*k:20*k+20], id) {
		return 0, false, nil
	}
	n := int64(p.fanout[255])
	pos := int64(lo) + int64(k)
	var b [8]byte
	if _, err := p.idx.ReadAt(b[:4], idxNames+24*n+4*pos); err != nil {
		return 0, false, fmt.Errorf("read pack index %s: %w", filepath.Base(p.idxPath), err)
	}
	off := binary.BigEndian.Uint32(b[:4])
	if off&0x80000000 == 0 {
		return int64(off), true, nil
	}
	if _, err := p.idx.ReadAt(b[:], idxNames+28*n+8*int64(off&0x7fffffff)); err != nil {
		return 0, false, fmt.Errorf("read pack index %s: %w", filepath.Base(p.idxPath), err)
	}
	big := binary.BigEndian.Uint64(b[:])
	if big > 1<<62 {
		return 0, false, fmt.Errorf("%w: pack index %s: offset", errObjectLayout, filepath.Base(p.idxPath))
	}
	return int64(big), true, nil
}
