package agents

import (
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out  string
		want string // "" = no version
	}{
		{"2.1.197 (Claude Code)\n", "2.1.197"},
		{"2.1.332 (Claude Code)", "2.1.332"},
		{"codex-cli 0.171.0\n", "0.171.0"},
		{"1.18.33\n", "1.18.33"},
		{"v1.2.3", "1.2.3"},
		{"node says 1.2.3.4 then 5.6.7", "5.6.7"},
		{"1.2.3.4", ""},
		{"1.2", ""},
		{"1.2.", ""},
		{".1.2.3", ""},
		{"1234567890.1.1", ""},
		{"Usage: claude [options]", ""},
		{"", ""},
	}
	for _, tt := range tests {
		v, ok := ParseVersion(tt.out)
		got := ""
		if ok {
			got = v.String()
		}
		if got != tt.want {
			t.Errorf("ParseVersion(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

func TestVersionRange(t *testing.T) {
	t.Parallel()
	r := VersionRange{Program: "claude", From: "2.1.197", To: "2.1.332"}
	for v, want := range map[string]bool{
		"2.1.196": false, "2.1.197": true, "2.1.200": true, "2.1.332": true,
		"2.1.333": false, "2.2.0": false, "3.0.0": false, "1.9.999": false, "2.1.1970": false,
	} {
		pv, ok := ParseVersion(v)
		if !ok {
			t.Fatalf("ParseVersion(%q) failed", v)
		}
		if got := r.Contains(pv); got != want {
			t.Errorf("%v.Contains(%s) = %v, want %v", r, v, got, want)
		}
	}
	one := VersionRange{Program: "codex", From: "0.171.0", To: "0.171.0"}
	if v, _ := ParseVersion("0.171.0"); !one.Contains(v) {
		t.Errorf("%v does not contain its one version", one)
	}
	if v, _ := ParseVersion("0.170.9"); one.Contains(v) {
		t.Errorf("%v contains 0.170.9", one)
	}
}

// TestShippedVersions: every shipped profile that passes permission flags to a
// program knows which versions of it they are for.
func TestShippedVersions(t *testing.T) {
	t.Parallel()
	for _, name := range Names(nil) {
		p, err := Lookup(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Binary != "" && len(p.Permissions) > 0 && p.Versions.Program != p.Binary {
			t.Errorf("%s passes permission flags to %s but names no versions of it they are for: %+v", name, p.Binary, p.Versions)
		}
	}
}

// FuzzParseVersion: a version found is three numbers of what the program said,
// which read back as themselves (seeds: testdata/fuzz/FuzzParseVersion, what the
// clients print).
func FuzzParseVersion(f *testing.F) {
	f.Fuzz(func(t *testing.T, out string) {
		v, ok := ParseVersion(out)
		if !ok {
			return
		}
		for _, n := range v {
			if n < 0 {
				t.Fatalf("ParseVersion(%q) = %v: a negative number", out, v)
			}
		}
		again, ok := ParseVersion(v.String())
		if !ok || again != v {
			t.Fatalf("ParseVersion(%q) = %v, which reads back as %v, %v", out, v, again, ok)
		}
		if !strings.Contains(out, ".") {
			t.Fatalf("ParseVersion(%q) = %v without a dot", out, v)
		}
	})
}
