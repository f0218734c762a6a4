// Package schemas holds the JSON Schemas (draft 2020-12) of every state file strom
// commits, embedded in the binary so that a file is always checked against the rules
// of the strom that reads it.
package schemas

import "embed"

// FS holds the *.schema.json files.
//
//go:embed *.schema.json
var FS embed.FS

// Names of the schemas, one per state file.
const (
	Config = "config.schema.json"
	// Queue is queue.json of version 4: next_id, the count of done tasks, and
	// the tasks not done in queue order with their states.
	Queue = "queue.schema.json"
	// Queue3 is queue.json of version 3 and 2 (the order of every task): read
	// only to migrate it.
	Queue3 = "queue3.schema.json"
	Task   = "task.schema.json" // one task, in its shard (or its own file in version 2)
	// Shard is a file of a hundred tasks, .strom/tasks/T-100-199.json (version 3).
	Shard = "shard.schema.json"
	// Queue1 is queue.json as strom wrote it before tasks had files of their own
	// (version 1, every task in one file): read only to migrate it.
	Queue1   = "queue1.schema.json"
	Progress = "progress.schema.json"
	Park     = "park.schema.json"
	Mode     = "mode.schema.json"
	Hold     = "hold.schema.json"
	// Note is the research's handover note, .strom/note.json.
	Note = "note.schema.json"
	// Allowed is the user config's allowed.json, not a file of the research.
	Allowed = "allowed.schema.json"
)

// All lists every schema name.
var All = []string{Config, Queue, Queue3, Task, Shard, Queue1, Progress, Park, Mode, Hold, Note, Allowed}

// URL is the identifier a schema is registered under.
func URL(name string) string { return "https://strom.invalid/schemas/" + name }
