package claudeusage

import (
	"fmt"
	"time"

	"github.com/strom-research/strom/harness/limits"
)

// yearRE finds a year named in a reset time ("Dec 4, 2025, 9:07am").
var yearRE = lazyRE(`\b\d{4}\b`)

// parseReset reads a reset time as Claude Code prints it ("Dec 4, 9:07am (UTC)",
// "11pm (America/Chicago)"), relative to now and, without a zone, in now's
// location: limits.ParseReset, the reader of every reset time strom sees.
//
// The week and the five-hour window reset at most a week ahead, so a date without
// a year that would lie further ahead is one that went by: "Dec 30" read on
// January 2 is three days ago, not next December. The caller then counts the weeks
// on from it (Decide), and a wait is never longer than the week.
func parseReset(s string, now time.Time) (time.Time, error) {
	t, ok := limits.ParseReset(s, now, now.Location())
	if !ok {
		return time.Time{}, fmt.Errorf("parse reset time %q: %w", s, ErrUnreadable)
	}
	if t.After(now.Add(Week+sameWeekWithin)) && !yearRE().MatchString(s) {
		for y := t.Year() - 1; y >= now.Year()-1; y-- {
			back := time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, t.Location())
			if back.Day() == t.Day() && !back.After(now.Add(Week+sameWeekWithin)) {
				return back, nil
			}
		}
	}
	return t, nil
}
