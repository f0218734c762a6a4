package statefiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/strom-research/strom/schemas"
)

//go:generate go run ./internal/gensums

// The memo of validated contents: validation is a pure function of a schema and the
// bytes of a file, so strom remembers the SHA-256 of (schema, bytes) pairs it has
// validated and found valid, and a read of the same bytes under the same schema
// needs no second validation. A file changed in any byte, or a strom whose schema
// changed, is validated again. Only valid contents are remembered; a missing,
// unreadable or foreign memo file only means more validation.
//
// The memo lives in the user's cache folder ($XDG_CACHE_HOME/strom/validated, or
// ~/.cache/strom/validated), not in the research repo: its keys name contents, not
// places, and the user settings file uses it too. Every strom command an agent runs
// reads state files, and compiling a schema costs more than the rest of the command.

const (
	memoHeader = "strom validated contents v1"
	memoMax    = 256 // sums kept, newest last
	// validator names how strom validates besides the schema's bytes: the library and
	// its settings. Change it with either, and every content is validated again.
	validator = "jsonschema v5.3.1, draft 2020-12, formats asserted, a key twice refused, UTF-8 only"
)

// sum names one content under one schema; the zero sum names nothing.
type sum struct {
	k  [sha256.Size]byte
	ok bool
}

type memo struct {
	where func() string // the memo file; "" when there is no cache folder

	once sync.Once
	mu   sync.Mutex
	path string
	sums [][sha256.Size]byte // as this process last read or wrote them, oldest first
}

// validated is the memo every read and write of a state file consults.
var validated = &memo{where: userMemoPath}

func userMemoPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "strom", "validated")
}

// schemaSum is the sum of the validator, a schema's name and its bytes: computed
// when the schemas change, by go generate (schemasums_gen.go), and checked
// against them by TestSchemaSums.
func schemaSum(schemaName string) ([sha256.Size]byte, bool) {
	for i := range builtSchemaSums {
		if builtSchemaSums[i].name == schemaName {
			return builtSchemaSums[i].sum, true
		}
	}
	return [sha256.Size]byte{}, false
}

// computeSchemaSum is what schemaSum returns, from the schema's bytes.
func computeSchemaSum(schemaName string) ([sha256.Size]byte, bool) {
	src, err := schemas.FS.ReadFile(schemaName)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	h := sha256.New()
	h.Write([]byte(validator))
	h.Write([]byte{0})
	h.Write([]byte(schemaName))
	h.Write([]byte{0})
	h.Write(src)
	var s [sha256.Size]byte
	h.Sum(s[:0])
	return s, true
}

// sumOf is the sum of one content under one schema.
func sumOf(schemaName string, data []byte) sum {
	return schemasSum("", []string{schemaName}, data)
}

// schemasSum is the memo's name of parts valid under the schemas named together:
// the SHA-256 of label, the schemas' sums and the parts. A schema strom does not
// have gives no name.
func schemasSum(label string, schemaNames []string, parts ...[]byte) sum {
	h := sha256.New()
	h.Write([]byte(label))
	for _, name := range schemaNames {
		ss, ok := schemaSum(name)
		if !ok {
			return sum{}
		}
		h.Write(ss[:])
	}
	for _, p := range parts {
		h.Write(p)
	}
	var s sum
	h.Sum(s.k[:0])
	s.ok = true
	return s
}

func (m *memo) load() {
	m.once.Do(func() {
		m.path = m.where()
		if m.path != "" {
			m.sums = readMemo(m.path)
		}
	})
}

// holds reports whether the memo holds k. Hold mu.
func (m *memo) holds(k [sha256.Size]byte) bool {
	return slices.Contains(m.sums, k)
}

// all is the sums the memo holds, oldest first. Hold mu, or be in load.
func (m *memo) all() [][sha256.Size]byte { return m.sums }

// readMemoBody reads the memo file's lines after its header; nil when the file is
// missing or foreign.
func readMemoBody(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(memoHeader+"\n")) {
		return nil
	}
	return data[len(memoHeader)+1:]
}

// readMemo reads the sums in the memo file, oldest first. A missing or foreign
// file has none.
func readMemo(path string) [][sha256.Size]byte {
	return decodeMemo(readMemoBody(path))
}

// decodeMemo reads the sums in the lines of a memo file, oldest first: each line
// of 64 lowercase hex digits (as every strom writes them), a CR before its
// newline left out. Any other line is no sum.
func decodeMemo(rest []byte) [][sha256.Size]byte {
	sums := make([][sha256.Size]byte, 0, len(rest)/(2*sha256.Size+1))
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if k, ok := decodeSum(line); ok {
			sums = append(sums, k)
		}
	}
	return sums
}

// decodeSum reads 64 lowercase hex digits.
func decodeSum(line []byte) (k [sha256.Size]byte, ok bool) {
	if len(line) != 2*sha256.Size {
		return k, false
	}
	for i := range k {
		hi, ok1 := hexDigit(line[2*i])
		lo, ok2 := hexDigit(line[2*i+1])
		if !ok1 || !ok2 {
			return k, false
		}
		k[i] = hi<<4 | lo
	}
	return k, true
}

// hexDigit is the value of a lowercase hex digit.
func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// known reports whether data was found valid under the schema before, and returns
// the sum that remember takes once it is.
//
// Bytes that are not UTF-8 are never known: validation refuses them, and a memo of
// an older strom that did not may hold them.
func (m *memo) known(schemaName string, data []byte) (sum, bool) {
	if !utf8.Valid(data) {
		return sum{}, false
	}
	s := sumOf(schemaName, data)
	if !s.ok {
		return s, false
	}
	return s, m.has(s.k)
}

// has reports whether the memo holds k.
func (m *memo) has(k [sha256.Size]byte) bool {
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.holds(k) && m.path != "" {
		// Another strom process (the agent's command, beside a run) may have
		// validated these bytes since this one read the memo: reading it again
		// costs far less than validating.
		m.sums = readMemo(m.path)
	}
	return m.holds(k)
}

// remember records a content as valid under its schema and writes the memo, merged with
// what other strom processes wrote to it meanwhile, the newest memoMax sums kept.
// Failing to write it is not an error: the next read validates again.
func (m *memo) remember(s sum) {
	if !s.ok {
		return
	}
	k := s.k
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.holds(k) || m.path == "" {
		return
	}
	// What this process knew, then what the file gained meanwhile, then k.
	var sums [][sha256.Size]byte
	have := make(map[[sha256.Size]byte]bool, len(m.sums)+memoMax+1)
	for _, k := range append(append(m.all(), readMemo(m.path)...), k) {
		if !have[k] {
			have[k] = true
			sums = append(sums, k)
		}
	}
	if len(sums) > memoMax {
		sums = sums[len(sums)-memoMax:]
	}
	var buf bytes.Buffer
	buf.Grow(len(memoHeader) + 1 + len(sums)*(2*sha256.Size+1))
	buf.WriteString(memoHeader + "\n")
	for _, s := range sums {
		var line [2*sha256.Size + 1]byte
		hex.Encode(line[:], s[:])
		line[2*sha256.Size] = '\n'
		buf.Write(line[:])
	}
	m.sums = sums
	_ = WriteTransient(m.path, buf.Bytes())
}
