package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/rogpeppe/go-internal/testscript"
)

// speaksCmd is the testscript command "speaks LANG": every line the last command
// printed (stdout and stderr) is in LANG, not English. A line fails when it holds
// the words of an English catalog text that LANG says otherwise, or an English
// function word once machine words are taken out: command names, flags, settings,
// paths, ids, times and whatever stands in quotes (titles, values, a condition's
// words).
func speaksCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: speaks de|cs")
	}
	var bad []string
	for _, stream := range []string{"stdout", "stderr"} {
		for _, line := range strings.Split(ts.ReadFile(stream), "\n") {
			if why := englishIn(args[0], line); why != "" {
				bad = append(bad, fmt.Sprintf("%s: %q (%s)", stream, line, why))
			}
		}
	}
	// SPEAKS_LIST=1 (with go test -v) lists every English line of a script
	// instead of stopping at the first command that has one.
	if len(bad) > 0 && os.Getenv("SPEAKS_LIST") != "" {
		fmt.Fprintf(os.Stderr, "SPEAKS %s\n", strings.Join(bad, "\nSPEAKS "))
		return
	}
	if len(bad) > 0 {
		ts.Fatalf("English in %s output:\n%s", args[0], strings.Join(bad, "\n"))
	}
}

// machineRE matches what stays the same in every language.
var machineRE = regexp.MustCompile(strings.Join([]string{
	`"[^"]*"`, `„[^“]*“`, `“[^”]*”`, `'[^']*'`, // quoted: titles, values, words of a condition
	`\bstrom( (task|add|list|show|edit|move|park|unpark|answer|run|config|get|set|unset|gate|test|hooks|install|mode|archive|research|allow|usage|report|init|status|log|session|finish|close|send|stop|record|done|ask|chat|menu|setup|app))*\b`,
	`(^|\s)--?[a-zA-Z][\w-]*(=\S*)?`, // flags
	`\S*[./=_\\@<>]\S*`,              // settings, paths, files, ids with dots
	`\bT-\d+\b`, `\b\d\S*`,           // task ids, numbers, times, session ids
	`\b(git|go|wait|stop|error|claude|codex|opencode|grok|demo|command)\b`, // machine words and names
}, "|"))

// englishWords are words of English sentences that German and Czech messages do
// not use ("a", "to", "on" and "no" are Czech words too, "an" and "in" German).
var englishWords = regexp.MustCompile(`(?i)\b(the|is|are|was|not|and|with|for|from|this|that|has|have|its|there|which|when|of|or|be|been|does|cannot|should|would|you|your|must|takes|needs|nothing|already|set|unset|allowed|installed|running|session|sessions|task|tasks|condition|agent's|research|ended|stopped|until)\b`)

// englishIn says why line reads as English in lang, "" when it does not.
func englishIn(lang, line string) string {
	for _, t := range englishTexts(lang) {
		if t.re.MatchString(line) {
			return "the English text of " + t.id
		}
	}
	rest := machineRE.ReplaceAllString(line, " ")
	if w := englishWords.FindString(rest); w != "" {
		return "the English word " + w
	}
	return ""
}

type englishText struct {
	id string
	re *regexp.Regexp
}

var (
	englishOnce  sync.Map // lang → []englishText
	placeholder  = regexp.MustCompile(`\{\{\s*\.\w+\s*\}\}`)
	wordsInFixed = regexp.MustCompile(`[A-Za-z]{3,}(\s+[A-Za-z]{2,}){2,}`)
)

// englishTexts are the catalog's English texts that lang says in other words,
// as patterns of their fixed parts (placeholders match anything), those with at
// least three words in a row.
func englishTexts(lang string) []englishText {
	if v, ok := englishOnce.Load(lang); ok {
		return v.([]englishText)
	}
	en, other := catalogTexts("en"), catalogTexts(lang)
	var out []englishText
	ids := make([]string, 0, len(en))
	for id := range en {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		text := en[id]
		if other[id] == text || !wordsInFixed.MatchString(placeholder.ReplaceAllString(text, "\x00")) {
			continue
		}
		var parts []string
		for _, p := range placeholder.Split(text, -1) {
			parts = append(parts, regexp.QuoteMeta(p))
		}
		out = append(out, englishText{id: id, re: regexp.MustCompile(strings.Join(parts, ".*?"))})
	}
	englishOnce.Store(lang, out)
	return out
}

// catalogTexts reads a catalog as id (with the plural form) → text.
func catalogTexts(lang string) map[string]string {
	b, err := os.ReadFile("../../messages/catalog/" + lang + ".toml")
	if err != nil {
		panic(err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(b, &raw); err != nil {
		panic(err)
	}
	out := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch x := v.(type) {
			case string:
				out[prefix+k] = x
			case map[string]any:
				walk(prefix+k+".", x)
			}
		}
	}
	walk("", raw)
	return out
}

// TestEnglishIn: the check finds English where a line has it, and none in the
// seed's German and Czech lines.
func TestEnglishIn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lang, line string
		english    bool
	}{
		{"de", "Sitzungen: 2 · Ende: fertig", false},
		{"de", "▶ Sitzung 20261130T090000Z-abcd an T-1 „Erste Aufgabe“ (60 Min., bis 09:00)", false},
		{"de", "strom: run.minutes muss eine ganze Zahl 5–600 sein, nicht „3“", false},
		{"cs", "sezení: 1 · konec: hotovo", false},
		{"cs", "strom: výzkum je Archiv Stromu, takže na něm žádný agent nepracuje — výzkum zapne strom mode research", false},
		{"de", "2 sessions · stopped: done", true},
		{"de", "strom: no condition is set, so a run goes on while there is work", true},
		{"cs", "The pre-commit hook is already in place (.git/hooks/pre-commit): nothing changed.", true},
		{"cs", "strom: unknown setting „nope“: the settings are agent.name", true},
	} {
		if got := englishIn(tt.lang, tt.line) != ""; got != tt.english {
			t.Errorf("%s %q: English %v, want %v (%s)", tt.lang, tt.line, got, tt.english, englishIn(tt.lang, tt.line))
		}
	}
}

// whollyCmd is the testscript command "wholly LANG": every line the last command
// printed (stdout and stderr) holds no word of the English catalog that LANG's
// catalog does not also use, once machine words are taken out (machineRE and
// wholeExceptions), no duration as Go writes it (5m0s) and no English date word
// (12:50 AM Thu Dec 3).
func whollyCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wholly de|cs")
	}
	var bad []string
	for _, stream := range []string{"stdout", "stderr"} {
		for _, line := range strings.Split(ts.ReadFile(stream), "\n") {
			if why := notWhole(args[0], line); why != "" {
				bad = append(bad, fmt.Sprintf("%s: %q (%s)", stream, line, why))
			}
		}
	}
	if len(bad) > 0 {
		ts.Fatalf("not wholly %s:\n%s", args[0], strings.Join(bad, "\n"))
	}
}

// goDuration matches a duration as Go's time.Duration.String writes it.
var goDuration = regexp.MustCompile(`\b\d+h\d+m|\b\d+m\d+s\b|\b\d+(\.\d+)?(ms|s)\b`)

// wholeExceptions are words of the English catalog that stay the same in every
// language: names of programs and of strom's own things a person types.
var wholeExceptions = map[string]bool{"strom": true, "git": true, "demo": true, "claude": true, "codex": true, "opencode": true, "grok": true, "command": true, "ctrl": true, "pid": true, "utc": true, "min": true}

var (
	wordRE       = regexp.MustCompile(`\p{L}+`)
	foreignOnce  sync.Map // lang → map[string]bool
	catalogWords = func(lang string) map[string]bool {
		words := map[string]bool{}
		for _, dir := range []string{"../../messages/catalog/", "../../messages/catalog/cli/"} {
			b, err := os.ReadFile(dir + lang + ".toml")
			if err != nil {
				panic(err)
			}
			var raw map[string]any
			if err := toml.Unmarshal(b, &raw); err != nil {
				panic(err)
			}
			var walk func(m map[string]any)
			walk = func(m map[string]any) {
				for _, v := range m {
					switch x := v.(type) {
					case string:
						for _, w := range wordRE.FindAllString(placeholder.ReplaceAllString(x, " "), -1) {
							words[strings.ToLower(w)] = true
						}
					case map[string]any:
						walk(x)
					}
				}
			}
			walk(raw)
		}
		return words
	}
)

// englishOnly are the words of the English catalog that lang's catalog does not use.
func englishOnly(lang string) map[string]bool {
	if v, ok := foreignOnce.Load(lang); ok {
		return v.(map[string]bool)
	}
	en, other := catalogWords("en"), catalogWords(lang)
	out := map[string]bool{}
	for w := range en {
		if !other[w] && !wholeExceptions[w] && len(w) > 1 {
			out[w] = true
		}
	}
	foreignOnce.Store(lang, out)
	return out
}

// englishDate matches the words of a time as Go writes it in English: "12:50 AM
// Thu Dec 3", which no catalog holds.
var englishDate = regexp.MustCompile(`\b(AM|PM|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b`)

// notWhole says why line is not wholly in lang, "" when it is.
func notWhole(lang, line string) string {
	if d := goDuration.FindString(line); d != "" {
		return "Go's duration " + d
	}
	rest := machineRE.ReplaceAllString(line, " ")
	if w := englishDate.FindString(rest); w != "" {
		return "the English date word " + w
	}
	only := englishOnly(lang)
	for _, w := range wordRE.FindAllString(rest, -1) {
		if only[strings.ToLower(w)] {
			return "the English word " + w
		}
	}
	return ""
}
