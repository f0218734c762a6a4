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
)

//go:generate go run ../internal/gensums

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

// readMemo reads the sums in the memo file, oldest first: after its header, each
// line of 64 lowercase hex digits (as every strom writes them), a CR before its
// newline left out. Any other line is no sum; a missing or foreign file has none.
func readMemo(path string) [][sha256.Size]byte {
	data, err := os.ReadFile(path)
	rest, ok := bytes.CutPrefix(data, []byte(memoHeader+"\n"))
	if err != nil || !ok {
		return nil
	}
	sums := make([][sha256.Size]byte, 0, len(rest)/(2*sha256.Size+1))
	for line := range bytes.Lines(rest) {
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		var k [sha256.Size]byte
		if len(line) != 2*sha256.Size || bytes.ContainsAny(line, "ABCDEF") {
			continue
		}
		if _, err := hex.Decode(k[:], line); err == nil {
			sums = append(sums, k)
		}
	}
	return sums
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
	return s, m.has(s)
}

// has reports whether the memo holds s (never the zero sum).
func (m *memo) has(s sum) bool {
	if !s.ok {
		return false
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.holds(s.k) && m.path != "" {
		// Another strom process (the agent's command, beside a run) may have
		// validated these bytes since this one read the memo: reading it again
		// costs far less than validating.
		m.sums = readMemo(m.path)
	}
	return m.holds(s.k)
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
	buf := make([]byte, 0, len(memoHeader)+1+len(sums)*(2*sha256.Size+1))
	buf = append(buf, memoHeader+"\n"...)
	for _, s := range sums {
		buf = append(hex.AppendEncode(buf, s[:]), '\n')
	}
	m.sums = sums
	_ = WriteTransient(m.path, buf)
}
