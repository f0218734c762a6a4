package claudeusage

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // reset times name IANA zones; a machine without zoneinfo still reads them
)

// resetRE matches the reset times Claude Code prints: "Dec 4, 9:07am (UTC)",
// "Jul 11 at 12pm (Asia/Singapore)", "11pm (America/Chicago)", "10:08am (UTC)",
// optionally with a year ("Dec 4, 2025, 9:07am") or a 24-hour clock. It compiles on
// first use.
var resetRE = lazyRE(`(?i)^\s*` +
	`(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,\s*(\d{4}))?\s*(?:,|\bat\b)?\s*)?` +
	`(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?` +
	`\s*(?:\(([^)]+)\))?`)

var months = map[string]time.Month{
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April,
	"may": time.May, "jun": time.June, "jul": time.July, "aug": time.August,
	"sep": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

// parseReset reads a reset time as Claude Code prints it, relative to now. A date
// without a year that is past by more than a day is next year's; a time without a date
// is the next such time, allowing an hour's grace for a time printed rounded down.
// Without a zone the time is in now's location.
func parseReset(s string, now time.Time) (time.Time, error) {
	m := resetRE().FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("parse reset time %q: %w", s, ErrUnreadable)
	}
	loc := now.Location()
	if zone := strings.TrimSpace(m[7]); zone != "" {
		l, err := time.LoadLocation(zone)
		if err != nil {
			return time.Time{}, fmt.Errorf("parse reset zone %q: %w", zone, err)
		}
		loc = l
	}
	hour, _ := strconv.Atoi(m[4])
	minute := 0
	if m[5] != "" {
		minute, _ = strconv.Atoi(m[5])
	}
	switch ampm := strings.ToLower(strings.ReplaceAll(m[6], ".", "")); {
	case ampm == "" && hour > 23, ampm != "" && (hour < 1 || hour > 12), minute > 59:
		return time.Time{}, fmt.Errorf("parse reset time %q: %w", s, ErrUnreadable)
	case ampm == "am" && hour == 12:
		hour = 0
	case ampm == "pm" && hour != 12:
		hour += 12
	}

	local := now.In(loc)
	if m[1] == "" {
		t := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
		if t.Before(now.Add(-time.Hour)) {
			t = time.Date(local.Year(), local.Month(), local.Day()+1, hour, minute, 0, 0, loc)
		}
		return t, nil
	}
	month := months[strings.ToLower(m[1])]
	day, _ := strconv.Atoi(m[2])
	year := local.Year()
	if m[3] != "" {
		year, _ = strconv.Atoi(m[3])
	}
	t := time.Date(year, month, day, hour, minute, 0, 0, loc)
	if t.Day() != day {
		return time.Time{}, fmt.Errorf("parse reset date %q: %w", s, ErrUnreadable)
	}
	if m[3] == "" && t.Before(now.Add(-24*time.Hour)) {
		t = time.Date(year+1, month, day, hour, minute, 0, 0, loc)
	}
	return t, nil
}
