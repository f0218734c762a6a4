package statefiles

import (
	"encoding/json"
	"fmt"

	"github.com/strom-research/strom/schemas"
)

// Version 1 of queue.json held every task in the one file. strom reads it as it is
// (the read-only commands of a research not yet migrated) and migrates it to
// version 3 at the first write of the queue (queuemigrate.go).

// ParseQueue validates the bytes of a version 1 queue.json (on disk, staged or
// committed: a history written before the tasks had files of their own), naming
// them shown in errors.
func ParseQueue(shown string, data []byte) (*Queue, error) {
	if v := QueueVersionOf(data); v > QueueVersion {
		return nil, newerQueue(shown, v)
	} else if v == 2 || v == QueueVersion {
		return nil, &SchemaError{File: shown, Pointer: "/version", Rule: fmt.Sprintf("version %d holds the order only: its tasks are in .strom/tasks/", v)}
	}
	q := &Queue{Version: 1, NextID: 1, Tasks: []Task{}}
	if err := check(shown, schemas.Queue1, data); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, q); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if err := q.check(shown); err != nil {
		return nil, err
	}
	return q, nil
}

// EncodeQueue returns the bytes of q as a version 1 queue.json, checked: what a
// merge of two version 1 histories leaves behind.
func EncodeQueue(q *Queue) ([]byte, error) {
	v1 := *q
	v1.Version = 1
	return encodeValid(&v1, QueueFile, func(data []byte) error {
		_, err := ParseQueue(DirName+"/"+QueueFile, data)
		return err
	})
}
