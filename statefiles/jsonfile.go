package statefiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// loadFile reads and validates a JSON state file into v. A missing file leaves v
// untouched and reports found = false: the caller's default applies.
func loadFile(path, shown, schemaName string, v any) (found bool, err error) {
	data, err := readOptional(path)
	if err != nil {
		return false, readError(shown, err)
	}
	if data == nil {
		return false, nil
	}
	if err := check(shown, schemaName, data); err != nil {
		return true, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, &SchemaError{File: shown, Rule: err.Error()}
	}
	return true, nil
}

// saveFile validates v and writes it atomically. An existing file that is invalid is
// never replaced: the person may have a hand edit in it worth keeping.
func saveFile(path, shown, schemaName string, v any) error {
	data, err := marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", shown, err)
	}
	if err := check(shown, schemaName, data); err != nil {
		return fmt.Errorf("refuse to write invalid data: %w", err)
	}
	if err := checkWriteSize(shown, data); err != nil {
		return err
	}
	if old, err := readOptional(path); errors.Is(err, ErrTooBig) {
		return err // unread, so kept like an invalid file
	} else if err == nil && old != nil {
		if bytes.Equal(old, data) {
			return nil
		}
		if err := check(shown, schemaName, old); err != nil {
			return err
		}
	}
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	return WriteAtomic(path, data, 0o644)
}

// marshal writes indented JSON with a final newline, so that diffs of state files in
// `git log -p` read line by line.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeValid returns the bytes strom writes for v (marshal), named what in
// errors, once valid says they are.
func encodeValid(v any, what string, valid func([]byte) error) ([]byte, error) {
	data, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := valid(data); err != nil {
		return nil, err
	}
	return data, nil
}

// EncodePark returns the bytes strom writes for p, checked against the schema.
func EncodePark(p *Park) ([]byte, error) {
	return encodeValid(p, ParkFile, func(data []byte) error { return Validate(ParkFile, data) })
}
