package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	clone := func(module, modified string) *debug.BuildInfo {
		return clonedAt(module, modified, "2026-12-02T16:24:18Z")
	}
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"release build", "0.3.1", "9f8e7d6c5b4a", "2026-11-30T08:00:00Z", nil, "0.3.1 (9f8e7d6, 2026-11-30)"},
		{"release build, v kept off, the date in UTC", "v0.3.1", "9f8e7d6", "2026-11-30T23:30:00-02:00", nil, "0.3.1 (9f8e7d6, 2026-12-01)"},
		{"make build of a changed tree", "", "9f8e7d6+dirty", "2026-11-30T08:00:00Z", nil, "0.0.0-dev (9f8e7d6+dirty, 2026-11-30)"},
		{"snapshot of a changed tree", DevVersion, "2ee4e57a1b2c", "2026-12-02T16:24:18Z", clone("", "true"), "0.0.0-dev (2ee4e57+dirty, 2026-12-02)"},
		{"snapshot where git told GoReleaser nothing", DevVersion, "none", "0001-01-01T00:00:00Z", nil, "0.0.0-dev"},
		{"snapshot where git told GoReleaser nothing, Go recorded the clone", DevVersion, "none", "", clone("", "false"), "0.0.0-dev (2ee4e57, 2026-12-02)"},
		{"clone at a tag", "", "", "", clone("v0.3.1", "false"), "0.3.1 (2ee4e57, 2026-12-02)"},
		{"clone between tags", "", "", "", clone("v0.3.2-0.20261202162418-2ee4e57a1b2c", "false"), "0.0.0-dev (2ee4e57, 2026-12-02)"},
		{"clone without tags", "", "", "", clone("v0.0.0-20261202162418-2ee4e57a1b2c", "false"), "0.0.0-dev (2ee4e57, 2026-12-02)"},
		{"clone with changes", "", "", "", clone("v0.3.1+dirty", "true"), "0.0.0-dev (2ee4e57+dirty, 2026-12-02)"},
		{"go install of a release", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}}, "0.3.1"},
		{"go install of a prerelease", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0-rc.1"}}, "0.4.0-rc.1"},
		{"go build without git", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "0.0.0-dev"},
		{"no build info", "", "", "", nil, "0.0.0-dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := describe(tt.version, tt.commit, tt.date, tt.bi).String(); got != tt.want {
				t.Errorf("describe(%q, %q, %q) = %q, want %q", tt.version, tt.commit, tt.date, got, tt.want)
			}
		})
	}
}

// clonedAt is the build info of a build in a git clone.
func clonedAt(module, modified, time string) *debug.BuildInfo {
	return &debug.BuildInfo{Main: debug.Module{Version: module}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "2ee4e57a1b2c3d4e5f60718293a4b5c6d7e8f901"},
		{Key: "vcs.time", Value: time},
		{Key: "vcs.modified", Value: modified},
	}}
}

func TestRelease(t *testing.T) {
	t.Parallel()
	for described, want := range map[string]string{
		"0.3.1 (9f8e7d6, 2026-11-30)":           "v0.3.1",
		"0.3.1":                                 "v0.3.1",
		"v9.9.9":                                "v9.9.9",
		"0.4.0-rc.1 (9f8e7d6, 2026-11-30)":      "v0.4.0-rc.1",
		"0.0.0-dev (2ee4e57+dirty, 2026-12-02)": "latest",
		"0.0.0-dev":                             "latest",
		"(devel)":                               "latest",
		"2ee4e57":                               "latest",
		"0.3":                                   "latest",
		"":                                      "latest",
		"0.3.1-":                                "latest",
		"0.3.1+dirty":                           "latest",
	} {
		if got := Release(described); got != want {
			t.Errorf("Release(%q) = %q, want %q", described, got, want)
		}
	}
}
