package main

import "strings"

// committedRecords is every record segment of rev (.strom/progress/*.jsonl), in
// order: all the records that commit holds. git runs git in the research.
func committedRecords(git func(args ...string) string, rev string) string {
	var b strings.Builder
	for _, p := range strings.Fields(git("ls-tree", "--name-only", rev, ".strom/progress/")) {
		b.WriteString(git("show", rev+":"+p))
	}
	return b.String()
}
