package messages

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/strom-research/strom/messages/internal/catalogsrc"
)

// forms reads a language's catalogs — what commands say and the command line's
// words — as id → plural form → text ("" for a message without forms).
func forms(t *testing.T, lang string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, part := range []string{"", cliPart} {
		file := "catalog/" + part + lang + ".toml"
		for id, f := range formsOf(t, file) {
			if cliID(id) != (part == cliPart) {
				t.Errorf("%s has %s, which belongs in the other catalog: help.… and usage.… are the command line's words (catalog/cli/), the rest is said by commands", file, id)
			}
			out[id] = f
		}
	}
	return out
}

// formsOf reads one catalog file as id → plural form → text.
func formsOf(t *testing.T, file string) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := map[string]map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			id := k
			if prefix != "" {
				id = prefix + "." + k
			}
			switch x := v.(type) {
			case string:
				out[id] = map[string]string{"": x}
			case map[string]any:
				if _, ok := x["other"]; ok {
					f := map[string]string{}
					for form, text := range x {
						f[form] = text.(string)
					}
					out[id] = f
					continue
				}
				walk(id, x)
			}
		}
	}
	walk("", raw)
	return out
}

// TestCatalogGenerated: catalog_gen.go is what go generate ./messages writes from
// the TOML catalogs as they are, so the messages strom says are the TOML's.
func TestCatalogGenerated(t *testing.T) {
	t.Parallel()
	want, err := catalogsrc.Go(os.DirFS("catalog"), Languages)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("catalog_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("catalog_gen.go is not what the TOML catalogs say: run go generate ./messages (-toml +catalog_gen.go):\n%s", d)
	}
	for _, part := range []string{"", cliPart} {
		for _, l := range Languages {
			file := part + l + ".toml"
			msgs, err := catalogsrc.Parse(os.DirFS("catalog"), file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(msgs, catalogOf(part, l)); d != "" {
				t.Errorf("the messages built in differ from go-i18n's reading of catalog/%s (-toml +built in):\n%s", file, d)
			}
		}
	}
}

// TestEverywhere: Everywhere says a plain message as each language's printer says it.
func TestEverywhere(t *testing.T) {
	t.Parallel()
	en := forms(t, English)
	n := 0
	for id, f := range en {
		if _, plain := f[""]; !plain || placeholders(f) != "" {
			continue
		}
		n++
		got := Everywhere(id)
		if len(got) != len(Languages) {
			t.Fatalf("Everywhere(%q) = %q, want one text for each of %v", id, got, Languages)
		}
		for i, l := range Languages {
			if want := For(l).Say(id); got[i] != want {
				t.Errorf("Everywhere(%q)[%s] = %q, the printer says %q", id, l, got[i], want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no plain message found: the scan is broken")
	}
	if got := Everywhere("no.such.id"); got != nil {
		t.Errorf("Everywhere of an unknown id = %q, want nothing", got)
	}
}

var placeholderRE = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

func placeholders(f map[string]string) string {
	set := map[string]bool{}
	for _, text := range f {
		for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
			set[m[1]] = true
		}
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// pluralForms are the CLDR categories each language needs for whole numbers (and
// Czech's many, for fractions).
var pluralForms = map[string][]string{
	English: {"one", "other"},
	German:  {"one", "other"},
	Czech:   {"one", "few", "many", "other"},
}

// TestCatalogs: every message id exists in all three catalogs, with the same
// placeholders, and a message with plural forms has every form its language needs.
func TestCatalogs(t *testing.T) {
	t.Parallel()
	all := map[string]map[string]map[string]string{}
	for _, l := range Languages {
		all[l] = forms(t, l)
	}
	for _, l := range Languages {
		for id := range all[l] {
			if _, ok := all[English][id]; !ok {
				t.Errorf("%s.toml has %s, which en.toml lacks", l, id)
			}
		}
	}
	for id, en := range all[English] {
		want := placeholders(en)
		plural := len(en) > 1 || en["other"] != ""
		for _, l := range Languages {
			f, ok := all[l][id]
			if !ok {
				t.Errorf("%s.toml lacks %s", l, id)
				continue
			}
			if got := placeholders(f); got != want {
				t.Errorf("%s.toml %s has placeholders {%s}, en.toml {%s}", l, id, got, want)
			}
			if !plural {
				if f[""] == "" {
					t.Errorf("%s.toml %s has plural forms, en.toml one text", l, id)
				}
				continue
			}
			for _, form := range pluralForms[l] {
				if strings.TrimSpace(f[form]) == "" {
					t.Errorf("%s.toml %s lacks the plural form %s", l, id, form)
				}
			}
			if !strings.Contains(placeholders(f), "Count") {
				t.Errorf("%s.toml %s has plural forms but no {{.Count}}", l, id)
			}
		}
	}
}

// TestCatalogsLoad: go-i18n reads each catalog as it is, and every message of each
// language renders without a missing value.
func TestCatalogsLoad(t *testing.T) {
	t.Parallel()
	en := forms(t, English)
	for _, l := range Languages {
		p := For(l)
		for id, f := range en {
			args := Args{}
			for _, n := range strings.Split(placeholders(f), ",") {
				if n != "" {
					args[n] = "X"
				}
			}
			if _, ok := args["Count"]; ok {
				args["Count"] = 2
			}
			got := p.Say(id, args)
			if got == id || strings.Contains(got, "<no value>") {
				t.Errorf("%s %s: %q", l, id, got)
			}
		}
	}
}

// sayRE finds the ids said as literals: p.Say("id"…), messages.New("id"…),
// messages.Errorf(sentinel, "id"…) and the cmd/strom helpers s.usage, s.say, s.fail.
var sayRE = regexp.MustCompile(`(?:\.(?:Say|usage)\(|messages\.New\(|messages\.Errorf\([\w.]+,|\bs\.(?:say|fail)\()\s*"([a-z0-9_.\-]+)"\s*[,)]`)

// TestUsedIDsExist: every id that strom's code passes to Say (or to cmd/strom's
// s.usage) as a literal is in the English catalog (and so, by TestCatalogs, in all
// three).
func TestUsedIDsExist(t *testing.T) {
	t.Parallel()
	en := forms(t, English)
	root := ".."
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == ".cache") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || d.Name() == "messages_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range sayRE.FindAllStringSubmatch(string(b), -1) {
			n++
			if _, ok := en[m[1]]; !ok {
				t.Errorf("%s says %q, which no catalog has", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("found no Say call: the scan is broken")
	}
}

// TestCzechPlurals: 1, 2 and 5 take Czech's one, few and other forms.
func TestCzechPlurals(t *testing.T) {
	t.Parallel()
	p := For(Czech)
	for _, tt := range []struct {
		n    int
		want string
	}{
		{1, "(commit abc, 1 záznam)"},
		{2, "(commit abc, 2 záznamy)"},
		{4, "(commit abc, 4 záznamy)"},
		{5, "(commit abc, 5 záznamů)"},
		{0, "(commit abc, 0 záznamů)"},
	} {
		if got := p.Say("run.session_commit", Args{"Commit": "abc", "Count": tt.n}); got != tt.want {
			t.Errorf("%d: %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := For(English).Say("stop.line", Args{"Count": 1, "Reason": "done"}); got != "1 session · stopped: done" {
		t.Errorf("English one: %q", got)
	}
	if got := For(German).Say("stop.line", Args{"Count": 1, "Reason": "fertig"}); got != "Sitzungen: 1 · Ende: fertig" {
		t.Errorf("German: %q", got)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		setting string
		env     map[string]string
		want    string
	}{
		{"", nil, English},
		{"de", map[string]string{"LANG": "cs_CZ.UTF-8"}, German},
		{"system", map[string]string{"LANG": "cs_CZ.UTF-8"}, Czech},
		{"system", map[string]string{"LANG": "cs_CZ.UTF-8", "LC_MESSAGES": "de_AT.UTF-8"}, German},
		{"system", map[string]string{"LC_ALL": "en_GB.UTF-8", "LC_MESSAGES": "de_DE"}, English},
		{"", map[string]string{"LANG": "de"}, German},
		{"", map[string]string{"LANG": "cs_CZ@euro"}, Czech},
		{"", map[string]string{"LANG": "C.UTF-8"}, English},
		{"", map[string]string{"LANG": "fr_FR.UTF-8"}, English},
		{"", map[string]string{"LANG": "POSIX"}, English},
	} {
		got := Resolve(tt.setting, func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("Resolve(%q, %v) = %q, want %q", tt.setting, tt.env, got, tt.want)
		}
	}
}

func TestUnknownLanguageAndID(t *testing.T) {
	t.Parallel()
	if got := For("fr").Lang(); got != English {
		t.Errorf("For(fr) speaks %q", got)
	}
	if got := For(German).Say("no.such.id"); got != "no.such.id" {
		t.Errorf("a missing id says %q", got)
	}
	var p *Printer
	if got := p.Say("stop.done"); got != "done" {
		t.Errorf("a nil printer says %q", got)
	}
}

// TestPrintersAtOnce: printers of every language say messages from many goroutines
// at once while their catalogs are read for the first time (go test -race).
func TestPrintersAtOnce(t *testing.T) {
	t.Parallel()
	done := make(chan string)
	for i := 0; i < 24; i++ {
		go func(lang string) { done <- For(lang).Say("stop.done") }(Languages[i%len(Languages)])
	}
	for i := 0; i < 24; i++ {
		if s := <-done; s == "" || s == "stop.done" {
			t.Errorf("a printer said %q", s)
		}
	}
}

// wholeCatalog is a go-i18n localizer over the whole catalog of part in language
// l, English beneath it: what the printer's own saying is measured against.
func wholeCatalog(part, l string) *i18n.Localizer {
	whole := i18n.NewBundle(language.English)
	_ = whole.AddMessages(language.English, catalogOf(part, English)...)
	if l != English {
		_ = whole.AddMessages(language.Make(l), catalogOf(part, l)...)
	}
	return i18n.NewLocalizer(whole, l)
}

// TestSayDirect: a printer says every message of every language and part, with
// and without its placeholders, for whole-number counts of every plural form
// (and negative ones, and every integer type), exactly as a go-i18n localizer over
// the whole catalog says it; a count that is not a whole number goes through
// go-i18n itself.
func TestSayDirect(t *testing.T) {
	t.Parallel()
	en := forms(t, English)
	counts := []any{0, 1, 2, 3, 4, 5, 10, 11, 12, 21, 22, 25, 100, 101, 102, 104, 1000, 1000001, -1, -2, -4, -5,
		int8(3), int16(1), int32(22), int64(5), uint8(1), uint16(2), uint32(7), 1.5, 2.0, "3"}
	for _, part := range []string{"", cliPart} {
		for _, l := range Languages {
			loc := wholeCatalog(part, l)
			want := func(id string, args Args) string {
				cfg := &i18n.LocalizeConfig{MessageID: id, TemplateData: map[string]any(args)}
				if n, ok := args["Count"]; ok {
					cfg.PluralCount = n
				}
				s, err := loc.Localize(cfg)
				if s == "" && err != nil {
					return id
				}
				return s
			}
			p := For(l)
			ids := []string{"no.such.id"}
			for id := range en {
				if cliID(id) == (part == cliPart) {
					ids = append(ids, id)
				}
			}
			for _, id := range ids {
				if got, w := p.Say(id), want(id, nil); got != w {
					t.Errorf("%s %s without args: %q, go-i18n %q", l, id, got, w)
				}
				args := Args{}
				for _, n := range strings.Split(placeholders(en[id]), ",") {
					if n != "" {
						args[n] = "X"
					}
				}
				if _, ok := args["Count"]; !ok {
					if got, w := p.Say(id, args), want(id, args); got != w {
						t.Errorf("%s %s: %q, go-i18n %q", l, id, got, w)
					}
					continue
				}
				for _, n := range counts {
					args["Count"] = n
					if got, w := p.Say(id, args), want(id, args); got != w {
						t.Errorf("%s %s (Count %v %T): %q, go-i18n %q", l, id, n, n, got, w)
					}
				}
			}
		}
	}
}

// TestHas: Has knows the ids of the English catalog, of both parts, and no other.
func TestHas(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{"stop.done": true, "help.allow.exits": true, "no.such.id": false, "stop": false, "": false} {
		if got := Has(id); got != want {
			t.Errorf("Has(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestDurationInWords: a time.Duration given to a placeholder is said in the
// printer's words, never in Go's "2m0s".
func TestDurationInWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lang string
		d    time.Duration
		want string
	}{
		{English, 2 * time.Minute, "2 minutes"},
		{English, 90 * time.Minute, "1 hour 30 minutes"},
		{English, 0, "0 seconds"},
		{"de", 2 * time.Minute, "2 Minuten"},
		{"cs", 125 * time.Second, "2 minuty 5 sekund"},
	} {
		p := For(tc.lang)
		if got := p.Duration(tc.d); got != tc.want {
			t.Errorf("%s: Duration(%v) = %q, want %q", tc.lang, tc.d, got, tc.want)
		}
		got := p.Text(New("gates.timeout", Args{"Gate": "g", "Timeout": tc.d}))
		if !strings.Contains(got, "("+tc.want+")") {
			t.Errorf("%s: gates.timeout with %v = %q, want it to say (%s)", tc.lang, tc.d, got, tc.want)
		}
	}
}

// TestCatalogDash: a sentence is divided by one dash in every language, the em
// dash between spaces (" — "); the en dash is for ranges (1–100), never spaced.
func TestCatalogDash(t *testing.T) {
	t.Parallel()
	for _, l := range Languages {
		for id, f := range forms(t, l) {
			for _, text := range f {
				if strings.Contains(text, " – ") {
					t.Errorf("%s.toml %s divides with a spaced en dash: %q", l, id, text)
				}
			}
		}
	}
}
