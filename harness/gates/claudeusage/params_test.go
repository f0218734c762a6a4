package claudeusage

import (
	"errors"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		want    Params
		wantErr error
	}{
		{args: nil, want: Params{}},
		{args: []string{"10"}, want: Params{N: 10}},
		{args: []string{"0"}, want: Params{}},
		{args: []string{"99"}, want: Params{N: 99}},
		{args: []string{"10", "--cap", "95"}, want: Params{N: 10, Cap: 95}},
		{args: []string{"--cap", "95", "10"}, want: Params{N: 10, Cap: 95}},
		{args: []string{"10", "--cap=95"}, want: Params{N: 10, Cap: 95}},
		{args: []string{"--cap", "95"}, want: Params{Cap: 95}},
		{args: []string{"--cap", "1"}, want: Params{Cap: 1}},
		{args: []string{"--cap", "100"}, want: Params{Cap: 100}},
		{args: []string{"10.5"}, wantErr: ErrBadN},
		{args: []string{"10.0"}, wantErr: ErrBadN},
		{args: []string{"-1"}, wantErr: ErrBadN},
		{args: []string{"100"}, wantErr: ErrBadN},
		{args: []string{"abc"}, wantErr: ErrBadN},
		{args: []string{"1e1"}, wantErr: ErrBadN},
		{args: []string{""}, wantErr: ErrBadN},
		{args: []string{"10", "--cap", "0"}, wantErr: ErrBadCap},
		{args: []string{"10", "--cap", "101"}, wantErr: ErrBadCap},
		{args: []string{"10", "--cap", "95.5"}, wantErr: ErrBadCap},
		{args: []string{"10", "--cap", "x"}, wantErr: ErrBadCap},
		{args: []string{"10", "--cap"}, wantErr: ErrBadCap},
		{args: []string{"10", "20"}, wantErr: ErrBadArgs},
		{args: []string{"10", "--cap", "90", "--cap", "95"}, wantErr: ErrBadArgs},
		{args: []string{"10", "--max", "3"}, wantErr: ErrBadArgs},
		{args: []string{"10", "--five-hour", "90"}, want: Params{N: 10, FiveHour: 90}},
		{args: []string{"--five-hour=90", "--cap", "95"}, want: Params{Cap: 95, FiveHour: 90}},
		{args: []string{"-five-hour", "100"}, want: Params{FiveHour: 100}},
		{args: []string{"10", "--five-hour", "0"}, wantErr: ErrBadArgs},
		{args: []string{"10", "--five-hour", "101"}, wantErr: ErrBadArgs},
		{args: []string{"10", "--five-hour", "90.5"}, wantErr: ErrBadArgs},
		{args: []string{"10", "--five-hour"}, wantErr: ErrBadArgs},
		{args: []string{"--five-hour", "80", "--five-hour=90"}, wantErr: ErrBadArgs},
		{args: []string{"--five-hours", "80"}, wantErr: ErrBadArgs},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			got, err := ParseArgs(tt.args)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseArgs(%q) error = %v, want %v", tt.args, err, tt.wantErr)
			}
			if err != nil {
				msg := err.Error()
				if strings.Count(msg, ". ") > 0 || strings.HasSuffix(msg, ".") || strings.Contains(msg, "\n") {
					t.Errorf("error %q is not one sentence", msg)
				}
				a := InvalidParams(err)
				if a.Verdict != VerdictStop || !strings.Contains(a.Reason, msg) {
					t.Errorf("InvalidParams(%v) = %+v, want stop naming the error", err, a)
				}
				return
			}
			if got != tt.want {
				t.Errorf("ParseArgs(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestParamsWatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Params
		want *Watch
	}{
		{Params{N: 10}, nil},
		{Params{N: 10, Cap: 95}, &Watch{WeekFinishAt: 95}},
		{Params{Cap: 1}, &Watch{WeekFinishAt: 1}},
		{Params{N: 10, Cap: 99}, &Watch{WeekFinishAt: 99}},
		{Params{N: 10, Cap: 100}, &Watch{WeekFinishAt: 99}},
		{Params{N: 10, FiveHour: 90}, &Watch{FiveHourFinishAt: 90}},
		{Params{Cap: 95, FiveHour: 100}, &Watch{WeekFinishAt: 95, FiveHourFinishAt: 99}},
	}
	for _, tt := range tests {
		t.Run(tt.p.String(), func(t *testing.T) {
			t.Parallel()
			got := tt.p.Watch()
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("Watch() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  Answer
		want Answer
	}{
		{"not claude", NotClaude(), Answer{Verdict: VerdictGo, Reason: "the agent has no Claude subscription week to pace"}},
		{"not logged in", NotLoggedIn(""), Answer{Verdict: VerdictStop, Reason: "the agent is not logged in — run claude once and log in", Login: "run claude once and log in"}},
		{"not logged in, own folder", NotLoggedIn("/home/a/.claude-work"), Answer{Verdict: VerdictStop,
			Reason: "the agent is not logged in — run CLAUDE_CONFIG_DIR=/home/a/.claude-work claude once and log in",
			Login:  "run CLAUDE_CONFIG_DIR=/home/a/.claude-work claude once and log in"}},
		{"not logged in, folder with a space", NotLoggedIn("/home/a/my claude"), Answer{Verdict: VerdictStop,
			Reason: "the agent is not logged in — run CLAUDE_CONFIG_DIR='/home/a/my claude' claude once and log in",
			Login:  "run CLAUDE_CONFIG_DIR='/home/a/my claude' claude once and log in"}},
		{"unreadable", Unreadable(), Answer{Verdict: VerdictWait, RetryAfter: defaultWait,
			Reason: "the week's usage could not be read; asking again in 15 minutes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.got.Said == nil || tt.got.Said.Error() != tt.got.Reason {
				t.Errorf("said %v, reason %q: the sentence to say is the reason", tt.got.Said, tt.got.Reason)
			}
			got := tt.got
			got.Said = nil
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
