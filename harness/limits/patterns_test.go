package limits

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaults(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"claude", "codex", "gemini", "grok", "opencode"}, Agents()); diff != "" {
		t.Errorf("Agents() (-want +got):\n%s", diff)
	}
	for _, agent := range Agents() {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			p := Defaults(agent)
			if p.Agent != agent {
				t.Errorf("Agent = %q, want %q", p.Agent, agent)
			}
			if len(p.Limit) == 0 {
				t.Error("no limit patterns")
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, expr := range append(append([]string{}, p.Limit...), p.Login...) {
				if !strings.HasPrefix(expr, "^") {
					t.Errorf("pattern %q is not anchored at the line start", expr)
				}
				re := regexp.MustCompile(expr)
				for _, name := range re.SubexpNames()[1:] {
					if name != "" && name != "reset" {
						t.Errorf("pattern %q has group %q; only \"reset\" is read", expr, name)
					}
				}
			}
		})
	}
}

func TestDefaultsReturnsCopies(t *testing.T) {
	t.Parallel()
	p := Defaults("claude")
	p.Limit[0] = "changed"
	if Defaults("claude").Limit[0] == "changed" {
		t.Error("changing a Defaults result changed the defaults")
	}
}

func TestPatternsOverride(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		json   string
		text   string
		want   *Signal
		errStr string // Validate error, when not empty
	}{
		{"unknown agent matches nothing", `{"agent":"custom"}`, "You've hit your limit · resets 5pm", nil, ""},
		{"user pattern", `{"agent":"custom","limit":["^Out of juice until (?P<reset>\\d+(?:am|pm))"]}`,
			"  ⎿  Out of juice until 5pm", &Signal{Kind: Limit, Text: "Out of juice until 5pm", Reset: "5pm", Agent: "custom"}, ""},
		{"user login pattern", `{"agent":"custom","login":["^Please sign in$"]}`,
			"Please sign in", &Signal{Kind: Login, Text: "Please sign in", Agent: "custom"}, ""},
		{"invalid pattern is skipped and reported", `{"agent":"custom","limit":["(unclosed","^Stop$"]}`,
			"Stop", &Signal{Kind: Limit, Text: "Stop", Agent: "custom"}, `compile limit pattern 0 of agent "custom": error parsing regexp`},
		{"invalid login pattern", `{"agent":"custom","login":["^ok","[z-a]"]}`,
			"nothing", nil, `compile login pattern 1 of agent "custom"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p Patterns
			if err := json.Unmarshal([]byte(tt.json), &p); err != nil {
				t.Fatalf("unmarshal patterns: %v", err)
			}
			err := p.Validate()
			switch {
			case tt.errStr == "" && err != nil:
				t.Errorf("Validate() = %v", err)
			case tt.errStr != "" && (err == nil || !strings.Contains(err.Error(), tt.errStr)):
				t.Errorf("Validate() = %v, want %q", err, tt.errStr)
			}
			got, ok := p.Match(tt.text)
			if tt.want == nil {
				if ok {
					t.Errorf("Match = %+v, want nothing", got)
				}
				return
			}
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("Match (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatternsJSONRoundTrip(t *testing.T) {
	t.Parallel()
	p := Defaults("codex")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("marshal patterns: %v", err)
	}
	var back Patterns
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal patterns: %v", err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind    Kind
		want    string
		wantErr bool
	}{
		{Limit, "limit", false},
		{Login, "login", false},
		{Kind(0), "Kind(0)", true},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.kind.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			b, err := tt.kind.MarshalText()
			if (err != nil) != tt.wantErr || (!tt.wantErr && string(b) != tt.want) {
				t.Errorf("MarshalText() = %q, %v", b, err)
			}
		})
	}
	b, err := json.Marshal(Signal{Kind: Limit, Text: "t", Reset: "5pm", Agent: "claude"})
	if err != nil {
		t.Fatalf("marshal signal: %v", err)
	}
	if want := `{"kind":"limit","text":"t","reset":"5pm","agent":"claude"}`; string(b) != want {
		t.Errorf("signal JSON = %s, want %s", b, want)
	}
}

func TestFirstBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr   string
		starts string // texts a match may start with
		not    string // first bytes a match cannot start with
		nilSet bool
	}{
		{expr: `^You've hit`, starts: "Y", not: "y⎿ "},
		{expr: `^(?:ERROR: )?You`, starts: "EY", not: "e"},
		{expr: `^(?i)you`, starts: "yY", not: "x"},
		{expr: `^(?:… ?|Your team )?has`, starts: "…Yh", not: "x"},
		{expr: `^[\w-]+ limit`, starts: "a_-9Z", not: " ."},
		{expr: `^\[?API Error`, starts: "[A", not: "x"},
		{expr: `^·`, starts: "·"},
		{expr: `not anchored`, nilSet: true},
		{expr: `^a*`, nilSet: true},
		{expr: `^.x`, nilSet: true},
		{expr: `^$`, nilSet: true},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			t.Parallel()
			set := firstBytes(tt.expr)
			if tt.nilSet {
				if set != nil {
					t.Fatalf("firstBytes(%q) is a set, want nil", tt.expr)
				}
				return
			}
			if set == nil {
				t.Fatalf("firstBytes(%q) = nil", tt.expr)
			}
			p := pattern{first: set}
			for _, r := range tt.starts {
				if !p.canStart(string(r)) {
					t.Errorf("firstBytes(%q) leaves out %q", tt.expr, r)
				}
			}
			for _, r := range tt.not {
				if p.canStart(string(r)) {
					t.Errorf("firstBytes(%q) lets in %q", tt.expr, r)
				}
			}
		})
	}
	for _, agent := range Agents() {
		p := Defaults(agent)
		for _, expr := range append(append([]string{}, p.Limit...), p.Login...) {
			if firstBytes(expr) == nil {
				t.Errorf("default pattern %q of %s has no first-byte filter", expr, agent)
			}
		}
	}
}

func TestEndAnchored(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		want bool
	}{
		{`^Not logged in$`, true},
		{`^a(?:b|$)`, true},
		{`^a\z`, true},
		{`(?m)^a$`, true},
		{`^a\b`, false},
		{`^You've hit`, false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			t.Parallel()
			if got := endAnchored(tt.expr); got != tt.want {
				t.Errorf("endAnchored(%q) = %v, want %v", tt.expr, got, tt.want)
			}
		})
	}
}
