package statefiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/strom-research/strom/schemas"
)

// validatedBytes counts the bytes validate was given, for the tests that show a
// write validates what changed and no more.
var validatedBytes atomic.Int64

var (
	compileMu sync.Mutex
	compiled  = map[string]*jsonschema.Schema{}
	order     []string // names in compiled, in the order they were compiled
)

// Compiled names the schemas this process has compiled so far, in that order. A
// command whose files the memo of validated contents knows compiles none: nothing
// compiles a schema at package initialisation, and a read or write only compiles
// the schema of a content it has to validate.
func Compiled() []string {
	compileMu.Lock()
	defer compileMu.Unlock()
	return append([]string(nil), order...)
}

// schema compiles one embedded schema the first time it is needed. Only the schemas
// a command touches are compiled: every strom command an agent runs pays for them.
func schema(name string) (*jsonschema.Schema, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	if s, ok := compiled[name]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("load schema %s: remote schemas are not loaded", url)
	}
	data, err := schemas.FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", name, err)
	}
	if err := c.AddResource(schemas.URL(name), bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("add schema %s: %w", name, err)
	}
	s, err := c.Compile(schemas.URL(name))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	compiled[name] = s
	order = append(order, name)
	return s, nil
}

// decode parses JSON into a generic value for validation. Numbers stay json.Number
// so that 5.0 and 5 are told apart where the schema asks for an integer. An object
// naming a key twice is refused: the schema would see only the last value while
// the typed read meets both, so the two could disagree on the same bytes.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		var dup errDuplicateKey
		if errors.As(err, &dup) {
			return nil, err
		}
		// A syntax error read token by token has its offset counted from the
		// token; the whole-value read says where in the file it is.
		var any any
		if werr := json.NewDecoder(bytes.NewReader(data)).Decode(&any); werr != nil {
			return nil, werr
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("extra data after the JSON value")
	}
	return v, nil
}

// errDuplicateKey is a key an object names twice.
type errDuplicateKey struct{ key string }

func (e errDuplicateKey) Error() string {
	return fmt.Sprintf("the key %q appears twice in one object", e.key)
}

// decodeValue reads one JSON value token by token, as json.Decoder.Decode into an
// any would, and refuses an object with a key twice.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("an object key is not a string")
				}
				if _, dup := m[k]; dup {
					return nil, errDuplicateKey{k}
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return m, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %q", rune(t))
	default:
		return t, nil
	}
}

// check validates the whole content of a file against a schema, or finds the same
// bytes already validated under the same schema (memo.go).
func check(file, schemaName string, data []byte) error {
	s, ok := validated.known(schemaName, data)
	if ok {
		return nil
	}
	if err := validate(file, 0, schemaName, data); err != nil {
		return err
	}
	validated.remember(s)
	return nil
}

// checkUTF8 refuses bytes that are not UTF-8: encoding/json would read each as
// U+FFFD, and strom would then run or show a text nobody wrote.
func checkUTF8(file string, line int, data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	at := 0
	for at < len(data) {
		r, n := utf8.DecodeRune(data[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	return &SchemaError{File: file, Line: line, Rule: fmt.Sprintf("not UTF-8 text (byte %d): JSON would read it as U+FFFD, a text nobody wrote", at)}
}

// validate validates data (a whole file, or line `line` of one) against a schema and
// turns the first broken rule into a SchemaError for file.
func validate(file string, line int, schemaName string, data []byte) error {
	validatedBytes.Add(int64(len(data)))
	if err := checkUTF8(file, line, data); err != nil {
		return err
	}
	v, err := decode(data)
	if err != nil {
		return &SchemaError{File: file, Line: line, Rule: "not valid JSON (" + jsonProblem(data, err) + ")"}
	}
	s, err := schema(schemaName)
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			ptr, rule := firstCause(ve)
			return &SchemaError{File: file, Line: line, Pointer: ptr, Rule: rule}
		}
		return fmt.Errorf("validate %s: %w", file, err)
	}
	return nil
}

// firstCause picks the deepest, first-sorted leaf of a validation error: the most
// specific place and rule to show a person.
func firstCause(ve *jsonschema.ValidationError) (string, string) {
	out := ve.BasicOutput()
	type leaf struct{ ptr, msg string }
	var leaves []leaf
	for _, e := range out.Errors {
		if e.Error == "" || strings.HasPrefix(e.Error, "doesn't validate with") || strings.HasPrefix(e.Error, "allOf failed") || strings.HasPrefix(e.Error, "if-then failed") {
			continue
		}
		leaves = append(leaves, leaf{e.InstanceLocation, e.Error})
	}
	if len(leaves) == 0 {
		return ve.InstanceLocation, ve.Message
	}
	sort.SliceStable(leaves, func(i, j int) bool {
		di, dj := strings.Count(leaves[i].ptr, "/"), strings.Count(leaves[j].ptr, "/")
		if di != dj {
			return di > dj
		}
		return leaves[i].ptr < leaves[j].ptr
	})
	return leaves[0].ptr, leaves[0].msg
}

// jsonProblem describes a syntax error with its byte offset, or says the file ends
// early (a truncated write).
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// An error at the very end of the content is a file cut short.
		if se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) {
			return fmt.Sprintf("the file ends early after %d bytes: it looks truncated", len(data))
		}
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		if len(bytes.TrimSpace(data)) == 0 {
			return "the file is empty"
		}
		return fmt.Sprintf("the file ends early after %d bytes: it looks truncated", len(data))
	}
	return err.Error()
}
