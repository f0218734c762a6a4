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
	Config   = "config.schema.json"
	Queue    = "queue.schema.json"
	Progress = "progress.schema.json"
	Park     = "park.schema.json"
	Mode     = "mode.schema.json"
	Hold     = "hold.schema.json"
	// Allowed is the user config's allowed.json, not a file of the research.
	Allowed = "allowed.schema.json"
)

// All lists every schema name.
var All = []string{Config, Queue, Progress, Park, Mode, Hold, Allowed}

// URL is the identifier a schema is registered under.
func URL(name string) string { return "https://strom.invalid/schemas/" + name }
