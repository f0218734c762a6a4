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
	_, err := saveFileData(path, shown, schemaName, v)
	return err
}

// saveFileData is saveFile, returning the bytes the file holds after it.
func saveFileData(path, shown, schemaName string, v any) (data []byte, err error) {
	defer func() {
		if err != nil {
			data = nil
		}
	}()
	data, err = marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", shown, err)
	}
	if err := check(shown, schemaName, data); err != nil {
		return nil, fmt.Errorf("refuse to write invalid data: %w", err)
	}
	if err := checkWriteSize(shown, data); err != nil {
		return nil, err
	}
	if old, err := readOptional(path); errors.Is(err, ErrTooBig) {
		return nil, err // unread, so kept like an invalid file
	} else if err == nil && old != nil {
		if bytes.Equal(old, data) {
			return data, nil
		}
		if err := check(shown, schemaName, old); err != nil {
			return nil, err
		}
	}
	if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", shown, err)
	}
	return data, WriteAtomic(path, data, 0o644)
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

// EncodePark returns the bytes strom writes for p, checked against the schema.
func EncodePark(p *Park) ([]byte, error) {
	data, err := marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", ParkFile, err)
	}
	if err := Validate(ParkFile, data); err != nil {
		return nil, err
	}
	return data, nil
}
