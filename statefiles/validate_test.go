package statefiles

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/schemas"
)

// compiledAtInit is Compiled() as the tests begin: after every package's init.
var compiledAtInit []string

func TestMain(m *testing.M) {
	compiledAtInit = Compiled()
	testenv.CacheHome()
	os.Exit(m.Run())
}

// TestNothingCompiledAtInit: package initialisation compiles no schema; the first
// read or write that has to validate a content does (the memo spares the rest).
func TestNothingCompiledAtInit(t *testing.T) {
	t.Parallel()
	if len(compiledAtInit) != 0 {
		t.Errorf("schemas compiled before the first test ran: %v", compiledAtInit)
	}
}

// knows is memo.known without the sum.
func knows(m *memo, schemaName string, data []byte) bool {
	_, ok := m.known(schemaName, data)
	return ok
}

func TestMemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "strom", "validated")
	fresh := func() *memo { return &memo{where: func() string { return path }} }
	queue := []byte(`{"version": 1, "next_id": 1, "tasks": []}` + "\n")

	m := fresh()
	if knows(m, schemas.Queue, queue) {
		t.Fatal("an empty memo knows a content")
	}
	m.remember(sumOf(schemas.Queue, queue))
	if !knows(fresh(), schemas.Queue, queue) {
		t.Fatal("a remembered content is not known to the next process")
	}
	for name, other := range map[string]func(*memo) bool{
		"one byte more":  func(m *memo) bool { return knows(m, schemas.Queue, append(queue, ' ')) },
		"another schema": func(m *memo) bool { return knows(m, schemas.Mode, queue) },
	} {
		if other(fresh()) {
			t.Errorf("%s: known, want unknown", name)
		}
	}

	// Two processes remembering at once keep each other's entries.
	a, b := fresh(), fresh()
	a.known(schemas.Queue, queue)
	b.known(schemas.Queue, queue)
	a.remember(sumOf(schemas.Mode, []byte("a")))
	b.remember(sumOf(schemas.Mode, []byte("b")))
	if c := fresh(); !knows(c, schemas.Mode, []byte("a")) || !knows(c, schemas.Mode, []byte("b")) {
		t.Error("an entry written by one process was lost when another wrote")
	}

	// A process learns what another remembered after it read the memo: a harness
	// finds the queue its agent's strom command validated.
	if knows(a, schemas.Mode, []byte("later")) {
		t.Fatal("an unknown content is known")
	}
	b.remember(sumOf(schemas.Mode, []byte("later")))
	if !knows(a, schemas.Mode, []byte("later")) {
		t.Error("a content another process remembered later is not known")
	}

	// The oldest entries go beyond memoMax.
	for i := range memoMax + 10 {
		m.remember(sumOf(schemas.Park, []byte(strconv.Itoa(i))))
	}
	c := fresh()
	if !knows(c, schemas.Park, []byte(strconv.Itoa(memoMax+9))) || knows(c, schemas.Queue, queue) {
		t.Error("the memo did not keep the newest entries only")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != memoMax+1 {
		t.Errorf("memo file has %d lines, want %d", n, memoMax+1)
	}

	// A foreign or broken memo file is no memo; the next remember replaces it.
	for _, junk := range []string{"", "not a memo\n", memoHeader + "\nzz\n" + strings.Repeat("a", 64)} {
		if err := os.WriteFile(path, []byte(junk), 0o644); err != nil {
			t.Fatal(err)
		}
		if knows(fresh(), schemas.Queue, queue) {
			t.Errorf("memo file %q: a content is known", junk)
		}
		fresh().remember(sumOf(schemas.Queue, queue))
		if !knows(fresh(), schemas.Queue, queue) {
			t.Errorf("memo file %q was not replaced by remember", junk)
		}
	}

	// No place for a memo: nothing is known, nothing fails.
	nowhere := &memo{where: func() string { return "" }}
	nowhere.remember(sumOf(schemas.Queue, queue))
	if knows(nowhere, schemas.Queue, queue) {
		t.Error("a memo without a file knows a content")
	}
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	unwritable := &memo{where: func() string { return filepath.Join(blocked, "strom", "validated") }}
	unwritable.remember(sumOf(schemas.Queue, queue)) // must not panic or fail the caller
}

// TestMemoFileOfAnotherStrom: the memo file is the user's, shared by every strom
// on the computer. A file as any strom writes it (the header, then a line of 64
// lowercase hex digits per sum) is read as it stands; lines ended by CR LF are
// read too; a line that is no sum of that form (upper case, cut short, a digit
// more) names nothing, and a sum that shares only its first digits with a line is
// not held.
func TestMemoFileOfAnotherStrom(t *testing.T) {
	t.Parallel()
	queue := []byte(`{"version": 1, "next_id": 1, "tasks": []}` + "\n")
	want := sumOf(schemas.Queue, queue).k
	other := sumOf(schemas.Mode, []byte("other")).k
	line := hex.EncodeToString(want[:])
	near := line[:16] + strings.Repeat("0", 48) // the first 8 bytes alike
	if near == line {
		t.Fatal("the near sum is the sum")
	}
	otherLine := hex.EncodeToString(other[:])
	for _, c := range []struct {
		name  string
		body  string
		known bool
	}{
		{"as strom writes it", otherLine + "\n" + line + "\n", true},
		{"only the first digits alike", otherLine + "\n" + near + "\n", false},
		{"lines ended by CR LF", otherLine + "\r\n" + line + "\r\n", true},
		{"a last line without its newline", otherLine + "\n" + line, true},
		{"upper case", strings.ToUpper(line) + "\n", false},
		{"a digit more", line + "0\n", false},
		{"cut short", line[:63] + "\n", false},
		{"empty", "", false},
	} {
		path := filepath.Join(t.TempDir(), "validated")
		if err := os.WriteFile(path, []byte(memoHeader+"\n"+c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		m := &memo{where: func() string { return path }}
		if got := knows(m, schemas.Queue, queue); got != c.known {
			t.Errorf("%s: known = %v, want %v", c.name, got, c.known)
		}
		if slices.Contains(m.all(), want) != c.known {
			t.Errorf("%s: the sums read %x disagree with the look-up", c.name, m.all())
		}
		// remember writes strom's layout, the sums read kept.
		m.remember(sumOf(schemas.Park, []byte(c.name)))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !laidOut(data[len(memoHeader)+1:]) || knows(&memo{where: func() string { return path }}, schemas.Queue, queue) != c.known {
			t.Errorf("%s: remember wrote %q", c.name, data)
		}
	}
}

// laidOut reports whether body is lines of 64 lowercase hex digits, each ended by
// its newline, as strom writes the memo.
func laidOut(body []byte) bool {
	for _, l := range strings.SplitAfter(string(body), "\n") {
		if l == "" {
			continue
		}
		if _, err := hex.DecodeString(strings.TrimSuffix(l, "\n")); err != nil || len(l) != 65 || strings.ToLower(l) != l {
			return false
		}
	}
	return true
}

// TestSchemaSums: the schema sums built in (schemasums_gen.go) are those of the
// embedded schemas under the validator: a schema changed without go generate
// ./statefiles would let the memo vouch for contents validated under the old one.
func TestSchemaSums(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(schemas.FS, "*.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, b := range builtSchemaSums {
		built = append(built, b.name)
	}
	if !slices.Equal(built, names) {
		t.Fatalf("schemasums_gen.go names %v, the schemas are %v: run go generate ./statefiles", built, names)
	}
	for _, name := range append(names, "no.schema.json") {
		got, ok1 := schemaSum(name)
		want, ok2 := computeSchemaSum(name)
		if got != want || ok1 != ok2 {
			t.Errorf("schemaSum(%s) = %x, %v; the schema's bytes give %x, %v: run go generate ./statefiles", name, got, ok1, want, ok2)
		}
	}
}

// TestMemoNeverHidesAnInvalidFile: reads through the memo in use (under
// XDG_CACHE_HOME, see TestMain) report every broken file, before and after its
// valid bytes were read, and read the valid bytes again once restored.
func TestMemoNeverHidesAnInvalidFile(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	good, err := os.ReadFile(tr.Path(QueueFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.LoadQueue(); err != nil {
		t.Fatal(err)
	}
	if !validated.has(orderSum(good)) {
		t.Fatal("a valid queue read was not remembered")
	}
	for _, bad := range []string{`{"version": 2, "next_id": 1, "tasks": []}`, `{"version": 1, "next_id": 1, "tasks": [], "extra": 1}`, `{"version": 1`} {
		if err := os.WriteFile(tr.Path(QueueFile), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		var se *SchemaError
		if _, err := tr.LoadQueue(); !errors.As(err, &se) {
			t.Errorf("queue %q read without a SchemaError: %v", bad, err)
		}
		if knows(validated, schemas.Queue, []byte(bad)) || validated.has(orderSum([]byte(bad))) {
			t.Errorf("invalid queue %q was remembered as valid", bad)
		}
	}
	if err := os.WriteFile(tr.Path(QueueFile), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.LoadQueue(); err != nil {
		t.Errorf("the restored queue: %v", err)
	}

	// The records: an append validates its own line; a hand-broken line is found
	// by a check of the file and by a full read.
	for _, text := range []string{"one", "two"} {
		if err := tr.AppendProgress(t.Context(), Record{Time: t0, Task: "T-1", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(tr.Path(RecordsFile("T-1")))
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), `"text":"one"`, `"text":""`, 1)
	if err := os.WriteFile(tr.Path(RecordsFile("T-1")), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	var se *SchemaError
	if err := tr.CheckRecordFiles([]string{RecordsFile("T-1")}); !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("a broken first record checked as %v, want a SchemaError on line 1", err)
	}
	if _, err := tr.LoadProgress(); !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("a broken first record read as %v, want a SchemaError on line 1", err)
	}
	if _, err := tr.TaskRecords(t.Context(), "T-1"); !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("a broken first record of T-1 read as %v, want a SchemaError on line 1", err)
	}
}

// A key named twice in one object is refused by the validator as by the typed
// read: the schema sees only the last value, the read meets both.
func TestDuplicateKeyRefused(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"version":1,"time":0,"time":"2026-01-10T00:00:00Z","task":"T-1","text":"0"}` + "\n",
		`{"version":1,"time":"2026-01-10T00:00:00Z","task":"T-1","text":"a","text":"b"}` + "\n",
	} {
		err := Validate(ProgressFile, []byte(line))
		var se *SchemaError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), `the key "`) || !strings.Contains(err.Error(), "appears twice") {
			t.Errorf("Validate(%q) = %v, want a SchemaError naming the key twice", line, err)
		}
	}
	if err := Validate(ProgressFile, []byte(`{"version":1,"time":"2026-01-10T00:00:00Z","task":"T-1","text":"a"}`+"\n")); err != nil {
		t.Errorf("a record with each key once: %v", err)
	}
}

// A file cut short inside a string is said to end early, as read token by token
// its syntax error would name a place counted from the last token.
func TestTruncatedInAString(t *testing.T) {
	t.Parallel()
	data := []byte(`{"version": 1, "next_id": 2, "tasks": [{"id": "T-1", "title": "One", "st` + "\n")
	err := Validate(ConfigFile, data)
	if err == nil || !strings.Contains(err.Error(), "the file ends early after") {
		t.Fatalf("Validate of a cut file = %v, want it to end early", err)
	}
}

// FuzzMemoFile: any memo file reads without a panic into sums of 64 lowercase hex
// digits a line, the memo then holds exactly those, and remember writes
// a file that reads back as the sums it held plus the new one, each once, the
// newest memoMax.
func FuzzMemoFile(f *testing.F) {
	k := sha256.Sum256([]byte("a content"))
	line := hex.EncodeToString(k[:])
	f.Add([]byte(line+"\n"+strings.Repeat("b", 64)+"\n"), []byte("a content"))
	f.Add([]byte("x"+line+"\n"+line[:63]+"\n"+line+"0\n"), []byte("a content"))
	f.Add([]byte(strings.ToUpper(line)+"\r\n"+line), []byte("a content"))
	f.Add([]byte(line+"\n"+strings.ToUpper(line)+"\n"), []byte("a content"))
	f.Add([]byte(strings.Repeat("0", 64)+"\n"+line[:60]+"\n"+"\n\n\n\n\n"), []byte("a content"))
	f.Fuzz(func(t *testing.T, body, content []byte) {
		path := filepath.Join(t.TempDir(), "validated")
		if err := os.WriteFile(path, append([]byte(memoHeader+"\n"), body...), 0o644); err != nil {
			t.Fatal(err)
		}
		m := &memo{where: func() string { return path }}
		m.load()
		in := map[[sha256.Size]byte]bool{}
		for _, s := range m.all() {
			in[s] = true
			if !m.holds(s) {
				t.Fatalf("the memo read %x and does not hold it", s)
			}
		}
		probe := sha256.Sum256(content)
		if m.holds(probe) != in[probe] {
			t.Fatalf("holds(%x) = %v, the sums read say %v", probe, m.holds(probe), in[probe])
		}
		s := sumOf(schemas.Task, content)
		var want [][sha256.Size]byte
		seen := map[[sha256.Size]byte]bool{}
		for _, k := range append(append([][sha256.Size]byte(nil), m.all()...), s.k) {
			if !seen[k] {
				seen[k] = true
				want = append(want, k)
			}
		}
		if len(want) > memoMax {
			want = want[len(want)-memoMax:]
		}
		known := m.holds(s.k)
		m.remember(s)
		if got := readMemo(path); !known && !equalSums(got, want) {
			t.Fatalf("remember wrote %x, want %x", got, want)
		}
		if !knows(&memo{where: func() string { return path }}, schemas.Task, content) {
			t.Fatal("a remembered content is not known to the next process")
		}
	})
}

func equalSums(a, b [][sha256.Size]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Bytes that are not UTF-8 in a file of the state or the settings are refused, as
// every command refuses them in a value it is given: encoding/json would read each
// as U+FFFD and run or show a text nobody wrote.
func TestNotUTF8Refused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, data string }{
		{ConfigFile, "{\"version\":1,\"settings\":{\"check.command\":\"echo \xff\"}}"},
		{ConfigFile, "{\"version\":1,\"settings\":{\"agent.command\":\"a\xc3\"}}"},
		{ProgressFile, "{\"version\":1,\"time\":\"2026-01-10T00:00:00Z\",\"task\":\"T-1\",\"text\":\"a\xed\xa0\x80\"}\n"},
	} {
		err := Validate(c.file, []byte(c.data))
		var se *SchemaError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "not UTF-8") {
			t.Errorf("Validate(%s, %q) = %v, want a SchemaError saying it is not UTF-8", c.file, c.data, err)
		}
	}
	if err := Validate(ConfigFile, []byte(`{"version":1,"settings":{"check.command":"echo Tábor \ufffd"}}`)); err != nil {
		t.Errorf("UTF-8 with a replacement character of its own: %v", err)
	}
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
