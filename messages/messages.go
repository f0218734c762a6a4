// Package messages holds every sentence strom says to a person or to an agent, in
// English, German and Czech. The catalogs are one TOML file per language
// (catalog/en.toml, de.toml, cs.toml), and beside them the words of the command
// line — the help of every command and flag (ids help.…) and the sentences of bad
// usage (usage.…) — in catalog/cli/, added to a printer only by a command that
// prints them. The TOML is built into the binary as Go data (catalog_gen.go, go
// generate ./messages), so that no command parses TOML at its start; plurals
// follow CLDR (Czech: one, few, many, other). A printer says a message from that
// data with go-i18n's template parser and CLDR's rule for a whole-number count,
// and builds a go-i18n bundle of the whole catalog just for a count of another
// kind, so that the agent's commands do not pay for go-i18n's plural rules of some
// 200 languages; both say the same sentences. A Printer never fails: a message
// missing in its language falls back to
// English, and an id missing everywhere is returned as itself, so a mistake shows
// instead of silence (TestCatalogs keeps both from happening). Machine words —
// trailers, JSON, state files, exit codes — are never looked up here.
package messages

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
)

//go:generate go run ./internal/gencatalog

// cliPart is the folder of the command line's words: help texts and usage errors.
const cliPart = "cli/"

// cliID reports whether id is one of the command line's words (catalog/cli/).
func cliID(id string) bool {
	return strings.HasPrefix(id, "help.") || strings.HasPrefix(id, "usage.")
}

// Languages strom speaks, English first (the fallback).
const (
	English = "en"
	German  = "de"
	Czech   = "cs"
)

// Languages lists the catalogs in the order a menu offers them.
var Languages = []string{English, German, Czech}

// System is the messages.language value that follows the locale.
const System = "system"

// Args are a message's placeholders by name: {{.Count}} is Args{"Count": n}. A
// "Count" also chooses the plural form.
type Args map[string]any

// localizers hold, by part and language, a go-i18n localizer over that part's whole
// catalog with English beneath it, made the first time a Count that is not a whole
// number is said in them (sayDirect says every other sentence without one).
var localizers sync.Map // part+language → func() *i18n.Localizer

// localizerFor returns the localizer of one part ("" for what commands say,
// cliPart for the command line's words) and language.
func localizerFor(part, lang string) *i18n.Localizer {
	f, _ := localizers.LoadOrStore(part+lang, sync.OnceValue(func() *i18n.Localizer {
		b := i18n.NewBundle(language.English)
		_ = b.AddMessages(language.English, catalogOf(part, English)...)
		if lang != English {
			_ = b.AddMessages(language.Make(lang), catalogOf(part, lang)...)
		}
		return i18n.NewLocalizer(b, lang)
	}))
	return f.(func() *i18n.Localizer)()
}

// find returns the message id of a catalog (sorted by id), nil when it lacks it.
func find(msgs []*i18n.Message, id string) *i18n.Message {
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].ID >= id })
	if i < len(msgs) && msgs[i].ID == id {
		return msgs[i]
	}
	return nil
}

// catalogOf returns the messages of one part and language (catalog_gen.go).
func catalogOf(part, lang string) []*i18n.Message {
	cli := part == cliPart
	switch {
	case lang == German && cli:
		return cliDe
	case lang == German:
		return catalogDe
	case lang == Czech && cli:
		return cliCs
	case lang == Czech:
		return catalogCs
	case cli:
		return cliEn
	default:
		return catalogEn
	}
}

// Printer says messages in one language.
type Printer struct {
	lang string
}

// For returns the printer of a language: en, de or cs; anything else is English.
func For(lang string) *Printer {
	if !known(lang) {
		lang = English
	}
	return &Printer{lang: lang}
}

func known(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// Lang is the printer's language code.
func (p *Printer) Lang() string {
	if p == nil {
		return English
	}
	return p.lang
}

// Say returns the message id in the printer's language with its placeholders filled.
// A nil printer speaks English. A placeholder given a time.Duration says it in
// words (Duration).
func (p *Printer) Say(id string, args ...Args) string {
	if p == nil {
		p = For(English)
	}
	var data Args
	if len(args) > 0 {
		data = inWords(p, args[0])
	}
	if s, ok := p.sayDirect(id, data); ok {
		return s
	}
	cfg := &i18n.LocalizeConfig{MessageID: id, TemplateData: map[string]any(data)}
	if n, ok := data["Count"]; ok {
		cfg.PluralCount = n
	}
	part := ""
	if cliID(id) {
		part = cliPart
	}
	s, err := localizerFor(part, p.lang).Localize(cfg)
	if s == "" && err != nil {
		return id
	}
	return s
}

// Everywhere returns the text of a message without placeholders or plural forms
// in every language, in the order of Languages, read from the catalogs' data
// without a printer: for finding a line strom wrote before, in whatever language
// it spoke then. A language that lacks id gives nothing.
func Everywhere(id string) []string {
	part := ""
	if cliID(id) {
		part = cliPart
	}
	var out []string
	for _, l := range Languages {
		if m := find(catalogOf(part, l), id); m != nil && m.Other != "" {
			out = append(out, m.Other)
		}
	}
	return out
}

// Has reports whether the English catalog knows id.
func Has(id string) bool {
	part := ""
	if cliID(id) {
		part = cliPart
	}
	return find(catalogOf(part, English), id) != nil
}

// Resolve turns a messages.language setting into a language: en, de or cs as they
// are; "system" or "" follow the locale — the first of LC_ALL, LC_MESSAGES and LANG
// that is set, as POSIX orders them — and an unknown locale is English.
func Resolve(setting string, getenv func(string) string) string {
	if known(setting) {
		return setting
	}
	if getenv == nil {
		return English
	}
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc := getenv(v); loc != "" {
			return fromLocale(loc)
		}
	}
	return English
}

// fromLocale reads the language of a POSIX locale name: de_DE.UTF-8, cs_CZ@euro, de.
func fromLocale(loc string) string {
	lang := loc
	if i := strings.IndexAny(lang, "_.@-"); i >= 0 {
		lang = lang[:i]
	}
	lang = strings.ToLower(lang)
	if known(lang) {
		return lang
	}
	return English
}

// Wrap gives err the sentence text in a person's language while errors.Is and
// errors.As still find err: a sentinel keeps its identity whatever language says it.
func Wrap(err error, text string) error { return &said{err: err, text: text} }

type said struct {
	err  error
	text string
}

func (s *said) Error() string { return s.text }
func (s *said) Unwrap() error { return s.err }

// sayDirect says a message the way a go-i18n Localizer over the whole catalog says
// it, without one: the message of the printer's language, else English's; the
// plural form its language's CLDR rule gives a whole-number Count (English and
// German: one for 1; Czech: one for 1, few for 2 to 4), else other; a form the
// message lacks falls back to other; the template is go-i18n's text parser's. A
// go-i18n bundle costs every command about a million instructions before its
// first sentence (its plural rules of some 200 languages), so one is made only for
// a Count that is not a whole number (ok false). TestSayDirect holds the
// two to the same sentences.
func (p *Printer) sayDirect(id string, data Args) (string, bool) {
	var n int64
	counted := false
	if c, ok := data["Count"]; ok {
		if n, ok = wholeNumber(c); !ok {
			return "", false
		}
		counted = true
	}
	part := ""
	if cliID(id) {
		part = cliPart
	}
	lang := p.lang
	m := find(catalogOf(part, lang), id)
	if !hasForm(m) {
		lang = English
		if m = find(catalogOf(part, English), id); !hasForm(m) {
			return id, true
		}
	}
	form := "other"
	if counted {
		form = pluralForm(lang, n)
	}
	if s, err := execute(m, lang, form, data); err == nil {
		return s, true
	}
	if form != "other" {
		if s, err := execute(m, lang, "other", data); err == nil {
			return s, true
		}
	}
	return id, true
}

// hasForm reports whether m has a text at all (go-i18n ignores a message without).
func hasForm(m *i18n.Message) bool {
	return m != nil && (m.Zero != "" || m.One != "" || m.Two != "" || m.Few != "" || m.Many != "" || m.Other != "")
}

// wholeNumber is c as a whole number, for the signed integer types (go-i18n
// takes no unsigned count).
func wholeNumber(c any) (int64, bool) {
	switch v := c.(type) {
	case int:
		return int64(v), true
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// pluralForm is CLDR's cardinal plural category of the whole number n (i = |n|,
// v = 0) in English, German or Czech.
func pluralForm(lang string, n int64) string {
	if n < 0 {
		n = -n
	}
	switch {
	case n == 1:
		return "one"
	case lang == Czech && n >= 2 && n <= 4:
		return "few"
	}
	return "other"
}

var (
	parsedMu sync.Mutex
	parsed   = map[string]template.ParsedTemplate{} // lang/id/form → parsed text
)

// execute fills one form of m's text, parsed once per process.
func execute(m *i18n.Message, lang, form string, data Args) (string, error) {
	var src string
	switch form {
	case "one":
		src = m.One
	case "few":
		src = m.Few
	default:
		src = m.Other
	}
	if src == "" {
		return "", fmt.Errorf("message %q has no plural form %q", m.ID, form)
	}
	key := lang + "/" + m.ID + "/" + form
	parsedMu.Lock()
	t, ok := parsed[key]
	parsedMu.Unlock()
	if !ok {
		var err error
		if t, err = (&template.TextParser{}).Parse(src, m.LeftDelim, m.RightDelim); err != nil {
			return "", err
		}
		parsedMu.Lock()
		parsed[key] = t
		parsedMu.Unlock()
	}
	return t.Execute(map[string]any(data))
}
