package statefiles

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"github.com/strom-research/strom/schemas"
)

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
	validator = "jsonschema v5.3.1, draft 2020-12, formats asserted, a key twice refused"
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
	sums [][sha256.Size]byte // oldest first
	have map[[sha256.Size]byte]bool
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

var (
	schemaSumsMu sync.Mutex
	schemaSums   = map[string][sha256.Size]byte{}
)

// schemaSum is the sum of the validator, a schema's name and its bytes, once per
// schema and process.
func schemaSum(schemaName string) ([sha256.Size]byte, bool) {
	schemaSumsMu.Lock()
	defer schemaSumsMu.Unlock()
	if s, ok := schemaSums[schemaName]; ok {
		return s, true
	}
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
	schemaSums[schemaName] = s
	return s, true
}

// sumOf is the sum of one content under one schema.
func sumOf(schemaName string, data []byte) sum {
	ss, ok := schemaSum(schemaName)
	if !ok {
		return sum{}
	}
	h := sha256.New()
	h.Write(ss[:])
	h.Write(data)
	var s sum
	h.Sum(s.k[:0])
	s.ok = true
	return s
}

func (m *memo) load() {
	m.once.Do(func() {
		m.have = map[[sha256.Size]byte]bool{}
		m.path = m.where()
		if m.path == "" {
			return
		}
		m.add(readMemo(m.path)...)
	})
}

// readMemo reads the sums in the memo file; a missing or foreign file has none.
func readMemo(path string) [][sha256.Size]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != memoHeader {
		return nil
	}
	var sums [][sha256.Size]byte
	for sc.Scan() {
		var k [sha256.Size]byte
		if len(sc.Bytes()) != 2*sha256.Size {
			continue
		}
		if _, err := hex.Decode(k[:], sc.Bytes()); err != nil {
			continue
		}
		sums = append(sums, k)
	}
	return sums
}

// add appends sums not held yet and drops the oldest beyond memoMax. Hold mu, or
// be in load.
func (m *memo) add(sums ...[sha256.Size]byte) {
	for _, k := range sums {
		if !m.have[k] {
			m.have[k] = true
			m.sums = append(m.sums, k)
		}
	}
	if len(m.sums) > memoMax {
		for _, old := range m.sums[:len(m.sums)-memoMax] {
			delete(m.have, old)
		}
		m.sums = append([][sha256.Size]byte(nil), m.sums[len(m.sums)-memoMax:]...)
	}
}

// known reports whether data was found valid under the schema before, and returns
// the sum that remember takes once it is.
func (m *memo) known(schemaName string, data []byte) (sum, bool) {
	s := sumOf(schemaName, data)
	if !s.ok {
		return s, false
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.have[s.k] && m.path != "" {
		// Another strom process (the agent's command, beside a run) may have
		// validated these bytes since this one read the memo: reading it again
		// costs far less than validating.
		m.add(readMemo(m.path)...)
	}
	return s, m.have[s.k]
}

// remember records a content as valid under its schema and writes the memo, merged with
// what other strom processes wrote to it meanwhile. Failing to write it is not an
// error: the next read validates again.
func (m *memo) remember(s sum) {
	if !s.ok {
		return
	}
	k := s.k
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.have[k] || m.path == "" {
		return
	}
	m.add(readMemo(m.path)...)
	m.add(k)
	var buf bytes.Buffer
	buf.WriteString(memoHeader + "\n")
	for _, s := range m.sums {
		buf.WriteString(hex.EncodeToString(s[:]))
		buf.WriteByte('\n')
	}
	_ = WriteTransient(m.path, buf.Bytes())
}

// knownSet is known for a set of files validated together under one schema (the
// task files of a queue, named by ids): one sum names them all, so a queue read
// whole again needs no validation of its files one by one.
func (m *memo) knownSet(schemaName string, names []string, data [][]byte) (sum, bool) {
	ss, ok := schemaSum(schemaName)
	if !ok {
		return sum{}, false
	}
	h := sha256.New()
	h.Write([]byte("set\x00"))
	h.Write(ss[:])
	for i, name := range names {
		one := sha256.Sum256(data[i])
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(one[:])
	}
	var s sum
	h.Sum(s.k[:0])
	s.ok = true
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.have[s.k] && m.path != "" {
		m.add(readMemo(m.path)...)
	}
	return s, m.have[s.k]
}
