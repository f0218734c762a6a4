package claudeusage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strom-research/strom/harness/limits"
)

// Sources of a Usage reading.
const (
	SourceUsageCommand = "claude -p /usage"
	SourceStatusLine   = "statusline"
	SourceGetUsage     = "get_usage"
)

// The regexps compile on first use (lazyRE), not at strom start-up.
var (
	headerRE  = lazyRE(`(?i)\bcurrent\s+([a-z]+)(?:\s*\(([^)]*)\))?`)
	percentRE = lazyRE(`(\d+(?:\.\d+)?)\s*%\s*used`)
	resetsRE  = lazyRE(`(?i)\bresets?\s+(.+)$`)
)

// window is what the /usage text says of one limit.
type window struct {
	hasUsed bool
	percent float64
	reset   string
}

// ParseUsageText reads the output of `claude -p /usage`, or the screen of the
// interactive /usage: the "Current session" lines give the five-hour window and
// "Current week (all models)" the week; other weeks ("Sonnet only", per model) are
// not the week's limit. Output with only the cost block is ErrNoLimits.
func ParseUsageText(out string, now time.Time) (Usage, error) {
	out = limits.StripVT(out) // the screen's text, line by line

	var session, week window
	var cur *window
	var other window // a limit strom does not pace on
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if loc := headerRE().FindStringSubmatchIndex(line); loc != nil {
			kind := strings.ToLower(line[loc[2]:loc[3]])
			scope := ""
			if loc[4] >= 0 {
				scope = strings.ToLower(strings.TrimSpace(line[loc[4]:loc[5]]))
			}
			switch {
			case kind == "session":
				cur = &session
			case kind == "week" && (scope == "" || scope == "all models"):
				cur = &week
			default:
				other = window{}
				cur = &other
			}
			line = line[loc[1]:]
		}
		if cur == nil {
			continue
		}
		if m := percentRE().FindStringSubmatch(line); m != nil && !cur.hasUsed {
			cur.percent, _ = strconv.ParseFloat(m[1], 64)
			cur.hasUsed = true
		}
		if m := resetsRE().FindStringSubmatch(line); m != nil && cur.reset == "" {
			cur.reset = strings.TrimSpace(m[1])
		}
	}

	if !week.hasUsed {
		if strings.Contains(strings.ToLower(out), "total cost") {
			return Usage{}, fmt.Errorf("read usage output: %w", ErrNoLimits)
		}
		return Usage{}, fmt.Errorf("read usage output: %w", ErrUnreadable)
	}
	u := Usage{WeekUsed: week.percent, FiveHourUsed: session.percent, Source: SourceUsageCommand, At: now}
	if week.reset != "" {
		t, err := parseReset(week.reset, now)
		if err != nil {
			return Usage{}, fmt.Errorf("read week reset: %w", err)
		}
		u.WeekResetsAt = t
	}
	if session.reset != "" {
		// The five-hour reset only times a wait; an unreadable one leaves it unknown.
		if t, err := parseReset(session.reset, now); err == nil {
			u.FiveHourResetsAt = t
		}
	}
	return u, nil
}

// ParseStatusLine reads the JSON Claude Code hands a statusLine command on stdin:
// "rate_limits" with "five_hour" and "seven_day", each {used_percentage, resets_at in
// epoch seconds}. Without a week's rate limit (an API key, or before the first answer)
// it is ErrNoLimits.
func ParseStatusLine(data []byte, now time.Time) (Usage, error) {
	type limit struct {
		UsedPercentage *float64 `json:"used_percentage"`
		ResetsAt       *float64 `json:"resets_at"`
	}
	var in struct {
		RateLimits *struct {
			FiveHour *limit `json:"five_hour"`
			SevenDay *limit `json:"seven_day"`
		} `json:"rate_limits"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return Usage{}, fmt.Errorf("decode statusline input: %w", err)
	}
	if in.RateLimits == nil || in.RateLimits.SevenDay == nil {
		return Usage{}, fmt.Errorf("read statusline rate limits: %w", ErrNoLimits)
	}
	week := in.RateLimits.SevenDay
	if week.UsedPercentage == nil {
		return Usage{}, fmt.Errorf("read statusline week: %w", ErrUnreadable)
	}
	epoch := func(s *float64) time.Time {
		if s == nil || *s <= 0 {
			return time.Time{}
		}
		sec := int64(*s)
		return time.Unix(sec, int64((*s-float64(sec))*1e9)).In(now.Location())
	}
	u := Usage{WeekUsed: *week.UsedPercentage, WeekResetsAt: epoch(week.ResetsAt), Source: SourceStatusLine, At: now}
	if fh := in.RateLimits.FiveHour; fh != nil {
		if fh.UsedPercentage != nil {
			u.FiveHourUsed = *fh.UsedPercentage
		}
		u.FiveHourResetsAt = epoch(fh.ResetsAt)
	}
	return u, nil
}

// ParseGetUsage reads the answer to the get_usage control request, either the whole
// control_response line or its inner response: "subscription_type" null is ErrAPIKey;
// no week's limit ("rate_limits_available" false, setup tokens among them) is
// ErrNoLimits; "rate_limits.five_hour" and "seven_day" are {utilization 0–100,
// resets_at ISO-8601}.
func ParseGetUsage(data []byte, now time.Time) (Usage, error) {
	var env struct {
		Type     string `json:"type"`
		Response *struct {
			Subtype  string          `json:"subtype"`
			Error    string          `json:"error"`
			Response json.RawMessage `json:"response"`
		} `json:"response"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return Usage{}, fmt.Errorf("decode get_usage answer: %w", err)
	}
	body := data
	if env.Type == "control_response" {
		if env.Response == nil {
			return Usage{}, fmt.Errorf("read get_usage answer: %w", ErrUnreadable)
		}
		if env.Response.Subtype == "error" {
			return Usage{}, fmt.Errorf("read get_usage answer %q: %w", env.Response.Error, ErrUnreadable)
		}
		body = env.Response.Response
	}

	var in struct {
		SubscriptionType    json.RawMessage            `json:"subscription_type"`
		RateLimitsAvailable *bool                      `json:"rate_limits_available"`
		RateLimits          map[string]json.RawMessage `json:"rate_limits"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Usage{}, fmt.Errorf("decode get_usage response: %w", err)
	}
	if bytes.Equal(bytes.TrimSpace(in.SubscriptionType), []byte("null")) {
		return Usage{}, fmt.Errorf("read get_usage subscription: %w", ErrAPIKey)
	}
	if in.SubscriptionType == nil && in.RateLimitsAvailable == nil && in.RateLimits == nil {
		return Usage{}, fmt.Errorf("read get_usage response: %w", ErrUnreadable)
	}
	if in.RateLimitsAvailable != nil && !*in.RateLimitsAvailable {
		return Usage{}, fmt.Errorf("read get_usage rate limits: %w", ErrNoLimits)
	}
	// Each entry of rate_limits is read on its own: besides the windows it holds
	// nulls, arrays and unrelated objects.
	type limit struct {
		Utilization *float64 `json:"utilization"`
		ResetsAt    *string  `json:"resets_at"`
	}
	read := func(name string) (*limit, time.Time, error) {
		var l limit
		raw := in.RateLimits[name]
		if len(raw) == 0 || json.Unmarshal(raw, &l) != nil || l.Utilization == nil {
			return nil, time.Time{}, nil
		}
		if l.ResetsAt == nil || *l.ResetsAt == "" {
			return &l, time.Time{}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, *l.ResetsAt)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("parse %s reset: %w", name, err)
		}
		return &l, t.In(now.Location()), nil
	}
	week, weekReset, err := read("seven_day")
	if err != nil {
		return Usage{}, err
	}
	if week == nil {
		return Usage{}, fmt.Errorf("read get_usage week: %w", ErrNoLimits)
	}
	u := Usage{WeekUsed: *week.Utilization, WeekResetsAt: weekReset, Source: SourceGetUsage, At: now}
	if fh, fhReset, err := read("five_hour"); err == nil && fh != nil {
		u.FiveHourUsed, u.FiveHourResetsAt = *fh.Utilization, fhReset
	}
	return u, nil
}

// lazyRE returns a function that compiles expr the first time it is called and
// returns the same *regexp.Regexp ever after.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
