package claudeusage

import (
	"fmt"
	"time"

	"github.com/strom-research/strom/harness/limits"
)

// parseReset reads a reset time as Claude Code prints it ("Dec 4, 9:07am (UTC)",
// "11pm (America/Chicago)"), relative to now and, without a zone, in now's
// location: limits.ParseReset, the reader of every reset time strom sees.
func parseReset(s string, now time.Time) (time.Time, error) {
	t, ok := limits.ParseReset(s, now, now.Location())
	if !ok {
		return time.Time{}, fmt.Errorf("parse reset time %q: %w", s, ErrUnreadable)
	}
	return t, nil
}
