package statefiles

import (
	"slices"
	"strings"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// Archive is an outside source a task can need (R7.1.1): a parish register site, a
// library's scans. A person names it in the settings with a probe, a shell line
// that exits 0 when the archive answers. In a settings file it is
// "archives": {"NAME": {"probe": "…"}}; strom config names it archives.NAME.probe.
type Archive struct {
	Probe string `json:"probe"`
}

// MaxArchiveName is the longest archive name.
const MaxArchiveName = 40

// CheckArchiveName refuses a name that is not lowercase letters, digits and
// hyphens, starting with a letter or digit, at most MaxArchiveName long.
func CheckArchiveName(name string) error {
	ok := name != "" && len(name) <= MaxArchiveName && name[0] != '-'
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			ok = false
		}
	}
	if !ok {
		return messages.Errorf(ErrArchiveName, "setting.archive_name", messages.Args{"Name": termsafe.Excerpt(name), "Max": MaxArchiveName})
	}
	return nil
}

// ArchiveOf reads the archive's name out of a setting named archives.NAME.probe.
func ArchiveOf(setting string) (string, bool) {
	rest, ok := strings.CutPrefix(setting, "archives.")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, ".probe")
	return name, ok
}

// ArchiveSetting is the setting that holds an archive's probe.
func ArchiveSetting(name string) string { return "archives." + name + ".probe" }

// archiveKey describes archives.NAME.probe; ok is false for any other setting.
func archiveKey(setting string) (Key, bool, error) {
	if !strings.HasPrefix(setting, "archives.") {
		return Key{}, false, nil
	}
	name, ok := ArchiveOf(setting)
	if !ok {
		return Key{}, true, messages.Errorf(nil, "setting.archive_unknown", messages.Args{"Name": termsafe.Excerpt(setting)})
	}
	if err := CheckArchiveName(name); err != nil {
		return Key{}, true, err
	}
	return Key{Name: setting, Kind: KindString,
		Help: "a shell line that exits 0 within 30 s when the archive " + name + " answers"}, true, nil
}

// value is a setting's value in this file, archives' probes among them.
func (c *Config) value(setting string) (any, bool) {
	if name, ok := ArchiveOf(setting); ok {
		a, ok := c.Archives[name]
		if !ok {
			return nil, false
		}
		return a.Probe, true
	}
	v, ok := c.Settings[setting]
	return v, ok
}

// Set gives a setting a value checked by its Key.
func (c *Config) Set(setting string, v any) {
	if name, ok := ArchiveOf(setting); ok {
		if c.Archives == nil {
			c.Archives = map[string]Archive{}
		}
		c.Archives[name] = Archive{Probe: Format(v)}
		return
	}
	if c.Settings == nil {
		c.Settings = map[string]any{}
	}
	c.Settings[setting] = v
}

// Unset removes a setting; one that is not set changes nothing.
func (c *Config) Unset(setting string) {
	if name, ok := ArchiveOf(setting); ok {
		delete(c.Archives, name)
		if len(c.Archives) == 0 {
			c.Archives = nil
		}
		return
	}
	delete(c.Settings, setting)
	if len(c.Settings) == 0 {
		c.Settings = nil
	}
}

// ArchiveNames lists the archives the user's and the tree's settings name, sorted.
func (s Settings) ArchiveNames() []string {
	var names []string
	for _, c := range []*Config{s.Tree, s.User} {
		if c == nil {
			continue
		}
		for n := range c.Archives {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}
