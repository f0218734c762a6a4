package research

import (
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

// Messages is the printer of the person's language (see Language), read anew each
// time so a change of messages.language shows at once.
func (r *Research) Messages() *messages.Printer {
	if r == nil {
		return messages.For(messages.English)
	}
	return messages.For(Language(r.Getenv))
}
