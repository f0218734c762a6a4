package limits

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // reset zones must load on machines without zoneinfo
)

// resetGrace is how long ago a time-only reset may lie and still mean today.
// Agents print reset times to the minute (10:19am for 10:19:40), so a reset a
// few minutes in the past has just happened; it does not mean tomorrow.
const resetGrace = 10 * time.Minute

// The regexps compile on first use (lazyRE): strom start-up, paid by every command
// an agent runs, compiles none.
var (
	epochRE = lazyRE(`(?:^|\|)\s*(\d{9,13})\s*$`)
	zoneRE  = lazyRE(`\(\s*([A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*)\s*\)`)
	// keywordRE finds where the time starts inside a whole message.
	keywordRE = lazyRE(`\b(?:resets?(?:\s+at|\s+after|\s+in)?|try again (?:at|in))\s+`)
	// tailRE cuts what follows the time: the next "·" item or sentence.
	tailRE = lazyRE(`\s*(?:·|\.\s+[a-z/(]).*$`)
	// prefixRE removes the words agents put before the time itself.
	prefixRE   = lazyRE(`^(?:your limit will reset at|limit will reset at|will reset at|your quota will reset after|quota will reset after|resets? at|resets? after|resets? in|resets|reset|or try again at|or try again in|try again at|try again in|at|in|after)\s+`)
	durFullRE  = lazyRE(`^(?:\d+(?:\.\d+)?\s*(?:ms|milliseconds?|days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?:,?\s*(?:and\s+)?|$))+$`)
	durTokenRE = lazyRE(`(\d+(?:\.\d+)?)\s*(ms|milliseconds?|days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)`)
	// dateTimeRE reads "[weekday] [Mon D[th][, YYYY]][,] [at] [H[:MM]am|H:MM]".
	dateTimeRE = lazyRE(`^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?` +
		`(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?)?` +
		`(?:,?\s+(?:at\s+)?)?` +
		`(?:(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?|(\d{1,2}):(\d{2}))?$`)
	// timeDateRE reads DescribeReset's order: "H:MM PM [weekday] Mon D[, YYYY]".
	timeDateRE = lazyRE(`^(?:(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?|(\d{1,2}):(\d{2}))` +
		`,?\s+(?:on\s+)?(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?` +
		`(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$`)
)

var months = map[string]time.Month{
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April,
	"may": time.May, "jun": time.June, "jul": time.July, "aug": time.August,
	"sep": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

// ParseReset reads a reset time as an agent writes it and returns the instant
// it names. It accepts a time ("5pm", "4:50am", "3:28 PM", "14:30"), a date
// ("Oct 24", "Sep 28th, 2026"), both ("Dec 2, 7pm", "Sep 15 at 7pm",
// "Sep 28th, 2026 2:14 AM"), each with an optional zone in parentheses, a
// duration ("in 5 days 22 hours 11 minutes", "after 5s", "1h30m"), a Unix
// epoch in seconds or milliseconds (alone or after a bar, as in
// "Claude AI usage limit reached|1760004000"), RFC 3339, and whole sentences
// such as "Your limit will reset at 5pm (Europe/Warsaw).".
//
// The zone in parentheses is an IANA name or UTC; without one the time is in
// local (time.Local when nil). A time without a date that already passed today
// in that zone means tomorrow, unless it passed less than resetGrace ago (the
// agent rounds to the minute: the limit has just reset). A date without a time
// means the start of that day. A date without a year that lies more than
// stalePast (30 days) in the past means next year ("Jan 3" said in December); one
// that went by less long ago stays in the past, where a reset that went by
// belongs. Durations count from now.
// stalePast is how long ago a reset date without a year may lie and still be
// this year's: the week's and the month's limits reset at most a month ahead, so
// a date further back is next year's.
const stalePast = 30 * 24 * time.Hour

func ParseReset(raw string, now time.Time, local *time.Location) (time.Time, bool) {
	s := strings.TrimSpace(Normalize(raw))
	if s == "" {
		return time.Time{}, false
	}
	if m := epochRE().FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		if len(m[1]) >= 13 {
			return time.UnixMilli(n), true
		}
		return time.Unix(n, 0), true
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}

	loc := local
	if loc == nil {
		loc = time.Local
	}
	s, loc, ok := takeZone(s, loc)
	if !ok {
		return time.Time{}, false
	}
	s = strings.ToLower(s)
	if t, ok := parseWhen(s, now, loc); ok {
		return t, true
	}
	// A whole message: read what follows its last "resets" or "try again at".
	if ks := keywordRE().FindAllStringIndex(s, -1); ks != nil {
		rest := s[ks[len(ks)-1][1]:]
		rest = tailRE().ReplaceAllString(rest, "")
		return parseWhen(rest, now, loc)
	}
	return time.Time{}, false
}

// takeZone removes the zone in parentheses from s and returns it. Of several
// parenthesized words the last that names a zone wins ("Upgrade to (Pro)" is
// no zone); a word that looks like an IANA name but is unknown fails.
func takeZone(s string, loc *time.Location) (string, *time.Location, bool) {
	ms := zoneRE().FindAllStringSubmatchIndex(s, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		name := s[m[2]:m[3]]
		if z, ok := loadZone(name); ok {
			return s[:m[0]] + s[m[1]:], z, true
		}
		if strings.Contains(name, "/") {
			return s, nil, false
		}
	}
	return s, loc, true
}

// parseWhen reads a lower-case reset phrase without its zone.
func parseWhen(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	s = strings.TrimRight(strings.TrimSpace(s), " .,;·")
	for {
		t := strings.TrimSpace(prefixRE().ReplaceAllString(s, ""))
		if t == s {
			break
		}
		s = t
	}
	if s == "" {
		return time.Time{}, false
	}
	if durFullRE().MatchString(s) {
		d, ok := parseDuration(s)
		if !ok {
			return time.Time{}, false
		}
		return now.Add(d), true
	}
	if m := dateTimeRE().FindStringSubmatch(s); m != nil {
		return resolve(now.In(loc), loc, m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
	}
	if m := timeDateRE().FindStringSubmatch(s); m != nil {
		return resolve(now.In(loc), loc, m[6], m[7], m[8], m[1], m[2], m[3], m[4], m[5])
	}
	return time.Time{}, false
}

// loadZone loads an IANA zone; UTC, GMT and Z are UTC.
func loadZone(name string) (*time.Location, bool) {
	switch strings.ToUpper(name) {
	case "UTC", "GMT", "Z":
		return time.UTC, true
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, false
	}
	return loc, true
}

// resolve builds the instant from the parsed parts of a date and time.
// h12/min12/ampm are a 12-hour time, h24/min24 a 24-hour one.
func resolve(now time.Time, loc *time.Location, mon, day, year, h12, min12, ampm, h24, min24 string) (time.Time, bool) {
	hasDate, hasTime := mon != "", h12 != "" || h24 != ""
	if !hasDate && !hasTime {
		return time.Time{}, false
	}
	hour, minute := 0, 0
	switch {
	case h12 != "":
		hour, _ = strconv.Atoi(h12)
		if min12 != "" {
			minute, _ = strconv.Atoi(min12)
		}
		if hour < 1 || hour > 12 {
			return time.Time{}, false
		}
		hour %= 12
		if ampm == "p" {
			hour += 12
		}
	case h24 != "":
		hour, _ = strconv.Atoi(h24)
		minute, _ = strconv.Atoi(min24)
		if hour > 23 {
			return time.Time{}, false
		}
	}
	if minute > 59 {
		return time.Time{}, false
	}

	if !hasDate {
		t := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, loc)
		if t.Before(now.Add(-resetGrace)) {
			// Adding a calendar day, not 24 hours, keeps the wall-clock
			// time across a DST change.
			t = time.Date(now.Year(), now.Month(), now.Day()+1, hour, minute, 0, 0, loc)
		}
		return t, true
	}

	month := months[mon[:3]]
	d, _ := strconv.Atoi(day)
	y := now.Year()
	if year != "" {
		y, _ = strconv.Atoi(year)
	}
	build := func(y int) (time.Time, bool) {
		t := time.Date(y, month, d, hour, minute, 0, 0, loc)
		return t, t.Month() == month && t.Day() == d
	}
	t, ok := build(y)
	if year == "" && (!ok || t.Before(now.Add(-stalePast))) {
		// Feb 29 may exist only next year, or the date went by long ago: a
		// reset is ahead. One that went by less than stalePast ago stays in the
		// past (the client's word is stale: the limit has reset), not a year
		// ahead.
		t, ok = build(y + 1)
		for i := 2; !ok && i <= 4; i++ {
			t, ok = build(y + i) // Feb 29 in the next leap year
		}
	}
	if !ok {
		return time.Time{}, false // Nov 0, Feb 30: no such day
	}
	return t, true
}

// parseDuration adds up "5 days 22 hours 11 minutes" or "1h30m5s".
func parseDuration(s string) (time.Duration, bool) {
	var total time.Duration
	for _, m := range durTokenRE().FindAllStringSubmatch(s, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, false
		}
		var unit time.Duration
		switch u := m[2]; {
		case u == "ms" || strings.HasPrefix(u, "milli"):
			unit = time.Millisecond
		case strings.HasPrefix(u, "d"):
			unit = 24 * time.Hour
		case strings.HasPrefix(u, "h"):
			unit = time.Hour
		case strings.HasPrefix(u, "m"):
			unit = time.Minute
		default:
			unit = time.Second
		}
		total += time.Duration(v * float64(unit))
	}
	return total, true
}

// DescribeReset writes a reset instant for a message to a person, always in
// the form "resets 11:00 PM Mon Nov 30 (America/Anchorage)": 12-hour time,
// weekday, month and day, and the zone it is shown in (loc, or t's own
// location when loc is nil; the zone abbreviation, or the UTC offset, when the
// location has no IANA name). ParseReset reads the part after "resets" back. A zero t gives
// "reset time unknown".
func DescribeReset(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "reset time unknown"
	}
	if loc != nil {
		t = t.In(loc)
	}
	zone := t.Location().String()
	if zone == "" || zone == "Local" {
		zone, _ = t.Zone()
	}
	if zone == "" {
		zone = "UTC" + t.Format("-07:00")
	}
	return "resets " + t.Format(describedLayout) + " (" + zone + ")"
}

// describedLayout is the layout of the instant in DescribeReset's words.
const describedLayout = "3:04 PM Mon Jan 2"

// DescribedAs writes the instant of DescribeReset's words (desc) again in layout,
// followed by the zone they name: "1.12. um 00:50 (America/Los_Angeles)" for the
// German "2.1. um 15:04". The words carry no year: the instant is taken in a year
// in which its day falls on the weekday they name, so that layout may name the
// weekday too, never the year. False when desc is not DescribeReset's.
func DescribedAs(desc, layout string) (string, bool) {
	rest, ok := strings.CutPrefix(desc, "resets ")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, " (")
	if i < 0 || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	t, err := time.Parse(describedLayout, rest[:i])
	if err != nil {
		return "", false
	}
	named := t.Format("Mon") // the weekday as written, which Parse does not check
	if f := strings.Fields(rest[:i]); len(f) == 5 {
		named = f[2]
	}
	// Weekdays repeat every 28 years, and February 29 falls on each weekday
	// within 28 leap years.
	for y := 2000; y < 2000+4*28; y++ {
		d := time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC)
		if d.Day() == t.Day() && d.Format("Mon") == named {
			return d.Format(layout) + rest[i:], true
		}
	}
	return "", false
}

// lazyRE returns a function that compiles expr the first time it is called and
// returns the same *regexp.Regexp ever after. A bad expression panics on first use;
// the package tests use every one.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
