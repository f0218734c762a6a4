package session

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A hook whose last change falls inside a session kept in .strom/sessions (from its
// id's time to its files' last change) may be the agent's writing and is not run;
// one changed outside every session is.
func TestChangedInSession(t *testing.T) {
	t.Parallel()
	now := time.Now()
	id := func(at time.Time) string { return at.UTC().Format("20060102T150405Z") + "-4f2a" }
	tests := []struct {
		name     string
		sessions map[string]time.Time // a session's start → its files' last change
		want     bool
	}{
		{"no session", nil, false},
		{"a session that ended before", map[string]time.Time{id(now.Add(-time.Hour)): now.Add(-50 * time.Minute)}, false},
		{"a session that began after", map[string]time.Time{id(now.Add(time.Hour)): now.Add(2 * time.Hour)}, false},
		{"a session that ran while it changed", map[string]time.Time{id(now.Add(-time.Minute)): now.Add(time.Minute)}, true},
		{"one of several", map[string]time.Time{
			id(now.Add(-time.Hour)):     now.Add(-50 * time.Minute),
			id(now.Add(-2 * time.Hour)): now,
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			hook := filepath.Join(dir, "pre-commit")
			if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			sessions := filepath.Join(dir, "sessions")
			if err := os.Mkdir(sessions, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range slices.Sorted(maps.Keys(tt.sessions)) {
				for _, ext := range []string{".prompt", ".log"} {
					p := filepath.Join(sessions, s+ext)
					if err := os.WriteFile(p, nil, 0o644); err != nil {
						t.Fatal(err)
					}
					start, _ := time.Parse("20060102T150405Z", s[:16])
					at := start
					if ext == ".log" {
						at = tt.sessions[s]
					}
					if err := os.Chtimes(p, at, at); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := changedInSession(hook, sessions); got != tt.want {
				t.Errorf("changedInSession = %v, want %v", got, tt.want)
			}
		})
	}
}
