package limits

import (
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone: %v", err)
	}
	return loc
}

func TestParseReset(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	rome := mustZone(t, "Europe/Rome")
	la := mustZone(t, "America/Los_Angeles")
	anchorage := mustZone(t, "America/Anchorage")
	moscow := mustZone(t, "Europe/Moscow")
	calcutta := mustZone(t, "Asia/Kolkata")
	warsaw := mustZone(t, "Europe/Warsaw")
	chicago := mustZone(t, "America/Chicago")
	berlin := mustZone(t, "Europe/Berlin")

	// 10:00 EDT, 16:00 CEST, 07:00 PDT, 06:00 AKDT on Thursday Oct 1 2026.
	now := time.Date(2026, time.October, 1, 14, 0, 0, 0, time.UTC)
	// 23:00 EST on Sat Mar 7 2026; New York springs forward at 2am Mar 8.
	beforeSpring := time.Date(2026, time.March, 8, 4, 0, 0, 0, time.UTC)
	// 00:00 CEST on Sun Oct 25 2026; Warsaw falls back at 3am that day.
	beforeFall := time.Date(2026, time.October, 24, 22, 0, 0, 0, time.UTC)
	newYearsEve := time.Date(2026, time.December, 31, 12, 0, 0, 0, time.UTC)

	tests := []struct {
		name  string
		raw   string
		now   time.Time
		local *time.Location
		want  time.Time // zero: not parseable
	}{
		{"time later today", "5pm", now, ny, time.Date(2026, 10, 1, 17, 0, 0, 0, ny)},
		{"time passed means tomorrow", "5am", now, ny, time.Date(2026, 10, 2, 5, 0, 0, 0, ny)},
		{"minutes in zone, passed", "4:50am (Europe/Rome)", now, ny, time.Date(2026, 10, 2, 4, 50, 0, 0, rome)},
		{"12:50am is after midnight", "12:50am (America/Los_Angeles)", now, ny, time.Date(2026, 10, 2, 0, 50, 0, 0, la)},
		{"12pm is noon", "12pm", now, ny, time.Date(2026, 10, 1, 12, 0, 0, 0, ny)},
		{"evening", "8pm", now, ny, time.Date(2026, 10, 1, 20, 0, 0, 0, ny)},
		{"zone anchorage", "11pm (America/Anchorage)", now, ny, time.Date(2026, 10, 1, 23, 0, 0, 0, anchorage)},
		{"date and time in zone", "Dec 2, 7pm (Europe/Moscow)", now, ny, time.Date(2026, 12, 2, 19, 0, 0, 0, moscow)},
		{"date and time local", "Oct 31, 9am", now, ny, time.Date(2026, 10, 31, 9, 0, 0, 0, ny)},
		{"date only is start of day", "Oct 24", now, ny, time.Date(2026, 10, 24, 0, 0, 0, 0, ny)},
		{"date only today stays", "Oct 1", now, ny, time.Date(2026, 10, 1, 0, 0, 0, 0, ny)},
		{"date passed weeks ago stays past", "Sep 15 at 7pm", now, ny, time.Date(2026, 9, 15, 19, 0, 0, 0, ny)},
		{"date passed by over a day stays past", "Sep 30", now, ny, time.Date(2026, 9, 30, 0, 0, 0, 0, ny)},
		{"date passed over a month ago means next year", "Aug 30", now, ny, time.Date(2027, 8, 30, 0, 0, 0, 0, ny)},
		{"date utc next year", "Jul 31, 2am (UTC)", now, ny, time.Date(2027, 7, 31, 2, 0, 0, 0, time.UTC)},
		{"old IANA alias", "Jul 27 at 4:30am (Asia/Calcutta)", now, ny, time.Date(2027, 7, 27, 4, 30, 0, 0, calcutta)},
		{"time utc passed", "10:08am (UTC)", now, ny, time.Date(2026, 10, 2, 10, 8, 0, 0, time.UTC)},
		{"codex time", "3:28 PM", now, ny, time.Date(2026, 10, 1, 15, 28, 0, 0, ny)},
		{"codex date with year", "Sep 28th, 2026 2:14 AM", now, ny, time.Date(2026, 9, 28, 2, 14, 0, 0, ny)},
		{"24-hour time", "14:30", now, ny, time.Date(2026, 10, 1, 14, 30, 0, 0, ny)},
		{"weekly with chicago zone", "Mar 20, 12pm (America/Chicago)", now, ny, time.Date(2027, 3, 20, 12, 0, 0, 0, chicago)},
		{"duration words", "in 5 days 22 hours 11 minutes", now, ny, now.Add(5*24*time.Hour + 22*time.Hour + 11*time.Minute)},
		{"duration short", "after 5s", now, ny, now.Add(5 * time.Second)},
		{"duration go style", "1h30m", now, ny, now.Add(90 * time.Minute)},
		{"epoch after bar", "Claude AI usage limit reached|1760004000", now, ny, time.Unix(1760004000, 0)},
		{"epoch alone", "1760004000", now, ny, time.Unix(1760004000, 0)},
		{"epoch milliseconds", "1760004000123", now, ny, time.UnixMilli(1760004000123)},
		{"rfc 3339", "2026-10-01T19:00:00Z", now, ny, time.Date(2026, 10, 1, 19, 0, 0, 0, time.UTC)},
		{"sentence", "Your limit will reset at 5pm (Europe/Warsaw).", now, ny, time.Date(2026, 10, 1, 17, 0, 0, 0, warsaw)},
		{"whole claude message", "You've hit your weekly limit · resets Jul 31, 2am (UTC) · /upgrade", now, ny, time.Date(2027, 7, 31, 2, 0, 0, 0, time.UTC)},
		{"whole codex message", "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again at 3:28 PM.", now, ny, time.Date(2026, 10, 1, 15, 28, 0, 0, ny)},
		{"resets prefix", "resets Oct 31, 9am", now, ny, time.Date(2026, 10, 31, 9, 0, 0, 0, ny)},
		{"just past within grace stays today", "9:55am", now, ny, time.Date(2026, 10, 1, 9, 55, 0, 0, ny)},
		{"past beyond grace means tomorrow", "9:45am", now, ny, time.Date(2026, 10, 2, 9, 45, 0, 0, ny)},
		{"nil local is time.Local", "Oct 24", now, nil, time.Date(2026, 10, 24, 0, 0, 0, 0, time.Local)},
		{"describe reset round trip", "11:00 PM Mon Nov 30 (America/Anchorage)", now, ny, time.Date(2026, 11, 30, 23, 0, 0, 0, anchorage)},

		// DST: tomorrow is a calendar day, not 24 hours.
		{"tomorrow across spring forward", "10pm", beforeSpring, ny, time.Date(2026, 3, 8, 22, 0, 0, 0, ny)},
		{"tomorrow across fall back", "9pm", beforeFall, warsaw, time.Date(2026, 10, 25, 21, 0, 0, 0, warsaw)},
		{"date across fall back", "Nov 1 (America/New_York)", now, berlin, time.Date(2026, 11, 1, 0, 0, 0, 0, ny)},
		{"date after fall back in other zone", "Nov 2, 9am (Europe/Berlin)", now, ny, time.Date(2026, 11, 2, 9, 0, 0, 0, berlin)},

		// Year boundary.
		{"early january is next year", "Jan 2 (UTC)", newYearsEve, ny, time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"earlier today stays this year", "Dec 31, 9am (UTC)", newYearsEve, ny, time.Date(2026, 12, 31, 9, 0, 0, 0, time.UTC)},

		// Not reset times.
		{"empty", "", now, ny, time.Time{}},
		{"words", "soon", now, ny, time.Time{}},
		{"elided", "…", now, ny, time.Time{}},
		{"hour out of range", "13pm", now, ny, time.Time{}},
		{"day out of range", "Feb 30", now, ny, time.Time{}},
		{"day zero in a sentence", "reset Nov 0", now, ny, time.Time{}},
		{"minute out of range", "5:75pm", now, ny, time.Time{}},
		{"unknown zone", "5pm (Mars/Olympus_Mons)", now, ny, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseReset(tt.raw, tt.now, tt.local)
			if tt.want.IsZero() {
				if ok || !got.IsZero() {
					t.Fatalf("ParseReset(%q) = %v, %v; want no time", tt.raw, got, ok)
				}
				return
			}
			if !ok {
				t.Fatalf("ParseReset(%q) read nothing, want %v", tt.raw, tt.want)
			}
			if !got.Equal(tt.want) {
				t.Errorf("ParseReset(%q) = %v, want %v", tt.raw, got, tt.want)
			}
		})
	}
}

// TestParseResetDSTInstants spells out the absolute instants of the DST cases,
// so a 24-hour shortcut in the code cannot pass.
func TestParseResetDSTInstants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		raw   string
		now   time.Time
		local string
		want  time.Time
	}{
		// Sat 23:00 EST → Sun 22:00 EDT is 23 hours later.
		{"spring forward", "10pm", time.Date(2026, 3, 8, 4, 0, 0, 0, time.UTC), "America/New_York", time.Date(2026, 3, 9, 2, 0, 0, 0, time.UTC)},
		// Sun 00:00 CEST → Sun 21:00 CET is 22 hours later.
		{"fall back", "9pm", time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), "Europe/Warsaw", time.Date(2026, 10, 25, 20, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseReset(tt.raw, tt.now, mustZone(t, tt.local))
			if !ok || !got.Equal(tt.want) {
				t.Errorf("ParseReset(%q) = %v, %v; want %v", tt.raw, got.UTC(), ok, tt.want)
			}
		})
	}
}

// TestDescribedAs: DescribeReset's words are written again in another layout, the
// zone kept; other words are not read.
func TestDescribedAs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc, layout, want string
		ok                 bool
	}{
		{"resets 11:00 PM Mon Nov 30 (America/Anchorage)", "2.1. um 15:04", "30.11. um 23:00 (America/Anchorage)", true},
		{"resets 12:50 AM Thu Dec 3 (UTC-09:00)", "2. 1. v 15:04", "3. 12. v 00:50 (UTC-09:00)", true},
		{"resets 4:30 AM Mon Feb 29 (Asia/Calcutta)", "2.1. 15:04", "29.2. 04:30 (Asia/Calcutta)", true},
		{"resets 8:30 AM Mon Nov 30 (UTC)", "3:04 PM Mon Jan 2", "8:30 AM Mon Nov 30 (UTC)", true},
		{"resets tomorrow morning", "2.1.", "", false},
		{"resets 4:30 AM Xyz Feb 3 (UTC)", "2.1.", "", false},
		{"resets 12:50am (America/Los_Angeles)", "2.1.", "", false},
		{"12:50 AM Thu Dec 3 (UTC)", "2.1.", "", false},
	} {
		got, ok := DescribedAs(tt.desc, tt.layout)
		if got != tt.want || ok != tt.ok {
			t.Errorf("DescribedAs(%q, %q) = %q, %v; want %q, %v", tt.desc, tt.layout, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDescribeReset(t *testing.T) {
	t.Parallel()
	anchorage := mustZone(t, "America/Anchorage")
	at := time.Date(2026, 11, 30, 23, 0, 0, 0, anchorage)
	tests := []struct {
		name string
		t    time.Time
		loc  *time.Location
		want string
	}{
		{"own zone", at, nil, "resets 11:00 PM Mon Nov 30 (America/Anchorage)"},
		{"other zone", at, time.UTC, "resets 8:00 AM Tue Dec 1 (UTC)"},
		{"morning minutes", time.Date(2026, 7, 27, 4, 30, 0, 0, mustZone(t, "Asia/Calcutta")), nil, "resets 4:30 AM Mon Jul 27 (Asia/Calcutta)"},
		{"fixed zone without a name", at, time.FixedZone("", -9*3600), "resets 11:00 PM Mon Nov 30 (UTC-09:00)"},
		{"fixed zone with abbreviation", at, time.FixedZone("AKST", -9*3600), "resets 11:00 PM Mon Nov 30 (AKST)"},
		{"zero", time.Time{}, nil, "reset time unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := DescribeReset(tt.t, tt.loc); got != tt.want {
				t.Errorf("DescribeReset = %q, want %q", got, tt.want)
			}
		})
	}
}
