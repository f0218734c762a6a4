package claudeusage

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParseReset(t *testing.T) {
	t.Parallel()
	chicago, singapore := mustZone(t, "America/Chicago"), mustZone(t, "Asia/Singapore")
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		in      string
		now     time.Time
		want    time.Time
		wantErr bool
	}{
		{in: "Dec 4, 9:07am (UTC)", now: utc("2025-11-30T10:00:00Z"), want: utc("2025-12-04T09:07:00Z")},
		{in: "Nov 30, 12:07pm (UTC)", now: utc("2025-11-30T10:00:00Z"), want: utc("2025-11-30T12:07:00Z")},
		{in: "Dec 4, 9:07am (UTC)", now: utc("2025-12-05T08:00:00Z"), want: utc("2025-12-04T09:07:00Z")},
		{in: "Dec 4, 9:07am (UTC)", now: utc("2025-12-20T08:00:00Z"), want: utc("2025-12-04T09:07:00Z")},
		// A window resets at most a week ahead: a date further ahead went by, also
		// across the new year, however long ago.
		{in: "Dec 4, 9:07am (UTC)", now: utc("2026-01-20T08:00:00Z"), want: utc("2025-12-04T09:07:00Z")},
		{in: "Dec 30, 9:19am (UTC)", now: utc("2027-01-02T10:00:00Z"), want: utc("2026-12-30T09:19:00Z")},
		{in: "Dec 4, 9:19am", now: utc("2027-02-05T10:00:00Z"), want: utc("2026-12-04T09:19:00Z")},
		{in: "Jan 6, 9am (UTC)", now: utc("2026-12-31T08:00:00Z"), want: utc("2027-01-06T09:00:00Z")},
		{in: "Jan 2, 9am (UTC)", now: utc("2025-12-30T08:00:00Z"), want: utc("2026-01-02T09:00:00Z")},
		{in: "Dec 4, 2025, 9:07am (UTC)", now: utc("2026-01-30T08:00:00Z"), want: utc("2025-12-04T09:07:00Z")},
		{in: "Jul 11 at 12pm (Asia/Singapore)", now: utc("2026-07-08T00:00:00Z"),
			want: time.Date(2026, 7, 11, 12, 0, 0, 0, singapore)},
		{in: "Mar 20, 12pm (America/Chicago)", now: utc("2026-03-16T00:00:00Z"),
			want: time.Date(2026, 3, 20, 12, 0, 0, 0, chicago)},
		{in: "11pm (America/Chicago)", now: time.Date(2026, 3, 20, 7, 0, 0, 0, chicago),
			want: time.Date(2026, 3, 20, 23, 0, 0, 0, chicago)},
		{in: "11pm (America/Chicago)", now: time.Date(2026, 3, 20, 23, 5, 0, 0, chicago),
			want: time.Date(2026, 3, 20, 23, 0, 0, 0, chicago)}, // just reset: printed rounded
		{in: "11pm (America/Chicago)", now: time.Date(2026, 3, 20, 23, 30, 0, 0, chicago),
			want: time.Date(2026, 3, 21, 23, 0, 0, 0, chicago)},
		{in: "9am (America/Chicago)", now: time.Date(2026, 3, 20, 11, 0, 0, 0, chicago),
			want: time.Date(2026, 3, 21, 9, 0, 0, 0, chicago)},
		{in: "10:08am (UTC)", now: utc("2026-03-20T07:00:00Z"), want: utc("2026-03-20T10:08:00Z")},
		{in: "12am (UTC)", now: utc("2026-03-20T07:00:00Z"), want: utc("2026-03-21T00:00:00Z")},
		{in: "Sept 3 at 5:30 PM (UTC)", now: utc("2026-09-01T07:00:00Z"), want: utc("2026-09-03T17:30:00Z")},
		{in: "14:30 (UTC)", now: utc("2026-03-20T07:00:00Z"), want: utc("2026-03-20T14:30:00Z")},
		{in: "9:07am", now: time.Date(2026, 3, 20, 7, 0, 0, 0, chicago), want: time.Date(2026, 3, 20, 9, 7, 0, 0, chicago)},
		{in: "soon", now: utc("2026-03-20T07:00:00Z"), wantErr: true},
		{in: "25:00 (UTC)", now: utc("2026-03-20T07:00:00Z"), wantErr: true},
		{in: "13pm (UTC)", now: utc("2026-03-20T07:00:00Z"), wantErr: true},
		{in: "9:75am (UTC)", now: utc("2026-03-20T07:00:00Z"), wantErr: true},
		{in: "Feb 30, 9am (UTC)", now: utc("2026-02-01T07:00:00Z"), wantErr: true},
		{in: "9am (Mars/Olympus)", now: utc("2026-03-20T07:00:00Z"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := parseReset(tt.in, tt.now)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseReset(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !got.Equal(tt.want) {
				t.Errorf("parseReset(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// The outputs below are verbatim from ../shared/reference (agent-clis.md "Reading
// usage", claude-code-offline.md "What the client printed").
const (
	usageSubscriber = "Current session: 42% used · resets Nov 30, 12:07pm (UTC)\n" +
		"Current week (all models): 17% used · resets Dec 4, 9:07am (UTC)\n" +
		"Current week (Sonnet only): 8% used · resets Dec 4, 9:07am (UTC)\n"
	usageInteractive = `   Current session
                                                      0% used
   Current week (all models)
   █████████████████████▌                             43% used
   Resets Jul 11 at 12pm (Asia/Singapore)
   Current week (Fable)
   ███████████████████████████████▌                   63% used
`
	usageCostOnly = "Total cost:            $0.0000\n" +
		"Total duration (API):  0s\n" +
		"Total duration (wall): 0s\n" +
		"Total code changes:    0 lines added, 0 lines removed\n" +
		"Usage:                 0 input, 0 output, 0 cache read, 0 cache write\n"
)

func TestParseUsageText(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 11, 30, 10, 0, 0, 0, time.UTC)
	july := time.Date(2026, 7, 8, 0, 0, 0, 0, time.UTC)
	singapore, chicago := mustZone(t, "Asia/Singapore"), mustZone(t, "America/Chicago")
	ansi := strings.NewReplacer(
		"Current week (all models)", "\x1b[1mCurrent week (all models)\x1b[22m",
		"43% used", "\x1b[38;5;246m43%\x1b[1Cused\x1b[39m",
		"Resets Jul", "\x1b[2mResets\x1b[1CJul",
	).Replace(strings.ReplaceAll(usageInteractive, "\n", "\r\n"))

	tests := []struct {
		name    string
		out     string
		now     time.Time
		want    Usage
		wantErr error
	}{
		{name: "subscriber, claude -p /usage", out: usageSubscriber, now: now, want: Usage{
			WeekUsed: 17, WeekResetsAt: time.Date(2025, 12, 4, 9, 7, 0, 0, time.UTC),
			FiveHourUsed: 42, FiveHourResetsAt: time.Date(2025, 11, 30, 12, 7, 0, 0, time.UTC)}},
		{name: "Sonnet only first is not the week", now: now,
			out: "Current week (Sonnet only): 8% used · resets Dec 4, 9:07am (UTC)\n" +
				"Current week (all models): 17% used · resets Dec 4, 9:07am (UTC)\n",
			want: Usage{WeekUsed: 17, WeekResetsAt: time.Date(2025, 12, 4, 9, 7, 0, 0, time.UTC)}},
		{name: "interactive screen", out: usageInteractive, now: july, want: Usage{
			WeekUsed: 43, WeekResetsAt: time.Date(2026, 7, 11, 12, 0, 0, 0, singapore)}},
		{name: "interactive screen with terminal codes", out: ansi, now: july, want: Usage{
			WeekUsed: 43, WeekResetsAt: time.Date(2026, 7, 11, 12, 0, 0, 0, singapore)}},
		{name: "reset with date, Chicago", now: time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC),
			out:  "Current week (all models)\n█▌ 61% used\nResets Mar 20, 12pm (America/Chicago)\n",
			want: Usage{WeekUsed: 61, WeekResetsAt: time.Date(2026, 3, 20, 12, 0, 0, 0, chicago)}},
		{name: "reset today, Chicago", now: time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC),
			out: "Current session\n 100% used\n Resets 11pm (America/Chicago)\nCurrent week (all models)\n 80% used\n Resets 11pm (America/Chicago)\n",
			want: Usage{WeekUsed: 80, WeekResetsAt: time.Date(2026, 3, 20, 23, 0, 0, 0, chicago),
				FiveHourUsed: 100, FiveHourResetsAt: time.Date(2026, 3, 20, 23, 0, 0, 0, chicago)}},
		{name: "a week not started has no reset", now: now, out: "Current session: 0% used\nCurrent week (all models): 0% used\n",
			want: Usage{}},
		{name: "decimal percent", now: now, out: "Current week (all models): 17.5% used · resets Dec 4, 9:07am (UTC)\n",
			want: Usage{WeekUsed: 17.5, WeekResetsAt: time.Date(2025, 12, 4, 9, 7, 0, 0, time.UTC)}},
		{name: "an unreadable session reset is unknown", now: now,
			out:  "Current session: 100% used · resets later\nCurrent week (all models): 17% used · resets Dec 4, 9:07am (UTC)\n",
			want: Usage{WeekUsed: 17, WeekResetsAt: time.Date(2025, 12, 4, 9, 7, 0, 0, time.UTC), FiveHourUsed: 100}},
		{name: "cost block only", out: usageCostOnly, now: now, wantErr: ErrNoLimits},
		{name: "only Sonnet only", out: "Current week (Sonnet only)  0% used\n", now: now, wantErr: ErrUnreadable},
		{name: "nothing", out: "", now: now, wantErr: ErrUnreadable},
		{name: "an unreadable week reset", now: now, out: "Current week (all models): 17% used · resets whenever\n", wantErr: ErrUnreadable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseUsageText(tt.out, tt.now)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseUsageText error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			tt.want.Source, tt.want.At = SourceUsageCommand, tt.now
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseUsageText (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStatusLine(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 2, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      string
		want    Usage
		wantErr error
		anyErr  bool
	}{
		{name: "reference sample", in: `{"session_id":"abc","model":{"id":"claude-opus-4","display_name":"Opus"},` +
			`"rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600},"seven_day":{"used_percentage":41.2,"resets_at":1738857600}},` +
			`"workspace":{"current_dir":"/w"}}`,
			want: Usage{WeekUsed: 41.2, WeekResetsAt: time.Unix(1738857600, 0).UTC(),
				FiveHourUsed: 23.5, FiveHourResetsAt: time.Unix(1738425600, 0).UTC()}},
		{name: "whole percentages", in: `{"rate_limits":{"five_hour":{"used_percentage":42,"resets_at":1738425600},"seven_day":{"used_percentage":7,"resets_at":1738857600}}}`,
			want: Usage{WeekUsed: 7, WeekResetsAt: time.Unix(1738857600, 0).UTC(),
				FiveHourUsed: 42, FiveHourResetsAt: time.Unix(1738425600, 0).UTC()}},
		{name: "week only", in: `{"rate_limits":{"seven_day":{"used_percentage":7,"resets_at":1738857600}}}`,
			want: Usage{WeekUsed: 7, WeekResetsAt: time.Unix(1738857600, 0).UTC()}},
		{name: "no rate limits (API key, or no answer yet)", in: `{"session_id":"abc","model":{"id":"x"}}`, wantErr: ErrNoLimits},
		{name: "rate limits null", in: `{"rate_limits":null}`, wantErr: ErrNoLimits},
		{name: "five-hour only", in: `{"rate_limits":{"five_hour":{"used_percentage":42,"resets_at":1738425600}}}`, wantErr: ErrNoLimits},
		{name: "week without a percentage", in: `{"rate_limits":{"seven_day":{"resets_at":1738857600}}}`, wantErr: ErrUnreadable},
		{name: "not JSON", in: `rate_limits`, anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseStatusLine([]byte(tt.in), now)
			if tt.anyErr {
				if err == nil {
					t.Fatal("ParseStatusLine gave no error")
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseStatusLine error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			tt.want.Source, tt.want.At = SourceStatusLine, now
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseStatusLine (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseGetUsage(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 13, 10, 0, 0, 0, time.UTC)
	inner := `{"session":{"total_cost_usd":0,"total_api_duration_ms":0,"model_usage":{}},` +
		`"subscription_type":"max","rate_limits_available":true,` +
		`"rate_limits":{"five_hour":{"utilization":10,"resets_at":"2026-07-13T13:00:00.000Z"},` +
		`"seven_day":{"utilization":30,"resets_at":"2026-07-18T03:00:00.000Z"},` +
		`"seven_day_opus":null,` +
		`"model_scoped":[{"display_name":"Fable","utilization":40,"resets_at":"2026-07-18T03:00:00.000Z"}],` +
		`"extra_usage":{"is_enabled":false,"monthly_limit":null,"used_credits":null,"utilization":null}}}`
	envelope := func(body string) string {
		return `{"type":"control_response","response":{"subtype":"success","request_id":"u1","response":` + body + `}}`
	}
	full := Usage{
		WeekUsed: 30, WeekResetsAt: time.Date(2026, 7, 18, 3, 0, 0, 0, time.UTC),
		FiveHourUsed: 10, FiveHourResetsAt: time.Date(2026, 7, 13, 13, 0, 0, 0, time.UTC),
	}
	tests := []struct {
		name    string
		in      string
		want    Usage
		wantErr error
		anyErr  bool
	}{
		{name: "control_response", in: envelope(inner), want: full},
		{name: "inner response", in: inner, want: full},
		{name: "API key", in: envelope(`{"subscription_type":null,"rate_limits_available":false,"rate_limits":null}`), wantErr: ErrAPIKey},
		{name: "subscription without limits (setup token)", in: envelope(`{"subscription_type":"max","rate_limits_available":false}`), wantErr: ErrNoLimits},
		{name: "week null", in: envelope(`{"subscription_type":"pro","rate_limits_available":true,"rate_limits":{"five_hour":{"utilization":10,"resets_at":"2026-07-13T13:00:00Z"},"seven_day":null}}`), wantErr: ErrNoLimits},
		{name: "week without a reset", in: envelope(`{"subscription_type":"pro","rate_limits_available":true,"rate_limits":{"seven_day":{"utilization":0,"resets_at":null}}}`),
			want: Usage{}},
		{name: "error answer", in: `{"type":"control_response","response":{"subtype":"error","request_id":"u1","error":"Unknown request subtype: get_usage"}}`, wantErr: ErrUnreadable},
		{name: "something else", in: `{"type":"system","subtype":"init"}`, wantErr: ErrUnreadable},
		{name: "bad reset", in: envelope(`{"subscription_type":"pro","rate_limits":{"seven_day":{"utilization":5,"resets_at":"Friday"}}}`), anyErr: true},
		{name: "not JSON", in: `{`, anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseGetUsage([]byte(tt.in), now)
			if tt.anyErr {
				if err == nil {
					t.Fatal("ParseGetUsage gave no error")
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseGetUsage error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			tt.want.Source, tt.want.At = SourceGetUsage, now
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseGetUsage (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadWeekNeverWaitsPastTheReset: a week's reset that went by more than a day
// ago, across the new year or not, is read as the week it was, and the answer
// waits at most until the next reset (R7.5.3), never most of a year.
func TestReadWeekNeverWaitsPastTheReset(t *testing.T) {
	t.Parallel()
	tests := []struct{ now, reset string }{
		{"2027-01-02T10:00:00Z", "Dec 30, 9:19am (UTC)"},
		{"2027-01-01T10:00:00Z", "Dec 29, 9:19am (UTC)"},
		{"2026-12-10T10:00:00Z", "Dec 4, 9:19am (UTC)"},
		{"2027-02-05T10:00:00Z", "Dec 4, 9:19am (UTC)"},
	}
	for _, tt := range tests {
		t.Run(tt.now+" "+tt.reset, func(t *testing.T) {
			t.Parallel()
			now, err := time.Parse(time.RFC3339, tt.now)
			if err != nil {
				t.Fatal(err)
			}
			u, err := ParseUsageText("Current week (all models): 40% used · resets "+tt.reset+"\n", now)
			if err != nil {
				t.Fatal(err)
			}
			if !u.WeekResetsAt.Before(now) {
				t.Errorf("reset %q read on %s as %v, want the one that went by", tt.reset, tt.now, u.WeekResetsAt)
			}
			a, _ := Decide(now, Params{N: 10}, u, Hold{Waiting: true})
			if a.RetryAfter > Week {
				t.Errorf("Decide waits %v (%s), want at most a week", a.RetryAfter, a.Reason)
			}
		})
	}
}
