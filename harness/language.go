package harness

import (
	"sync"

	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Language is the language of strom's messages on this computer: the user setting
// messages.language, else ("system", the default) the locale. getenv nil reads
// nothing and is English.
func Language(getenv func(string) string) string {
	setting := ""
	if getenv != nil {
		if s, err := statefiles.LoadSettings(getenv, nil); err == nil {
			if v, err := s.Resolve("messages.language", ""); err == nil {
				setting = v.Value
			}
		}
	}
	return messages.Resolve(setting, getenv)
}

var printers sync.Map // *Research → *messages.Printer

// Messages is the printer every line of this research's runs is said with (in the
// person's language, see Language).
func (r *Research) Messages() *messages.Printer {
	if r == nil {
		return messages.For(messages.English)
	}
	if p, ok := printers.Load(r); ok {
		return p.(*messages.Printer)
	}
	p := messages.For(Language(r.Getenv))
	printers.Store(r, p)
	return p
}
