package agentpty

import (
	"fmt"
	"sort"
	"strings"
)

// Write types raw bytes into the program's pty.
func (s *Session) Write(p []byte) error {
	if s.ended.Load() {
		return fmt.Errorf("write pty: %w", ErrEnded)
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.master.Write(p); err != nil {
		if s.ended.Load() {
			return fmt.Errorf("write pty: %w", ErrEnded)
		}
		return fmt.Errorf("write pty: %w", err)
	}
	return nil
}

// Type enters text as a person would: pasted, then Enter. If the program turned
// bracketed paste on, the text goes in one write wrapped in ESC[200~ … ESC[201~
// (any ESC[201~ inside it removed, so it cannot end the paste early); otherwise as is.
// Enter ("\r") follows as a separate write 150 ms later on the typing clock, since
// a TUI takes an Enter that arrives in the same burst as part of the text. Type
// blocks for that delay; concurrent calls take turns.
func (s *Session) Type(text string) error {
	s.typeMu.Lock()
	defer s.typeMu.Unlock()
	if s.paste.on.Load() {
		text = bracketed(text)
	}
	if text != "" {
		if err := s.Write([]byte(text)); err != nil {
			return fmt.Errorf("type text: %w", err)
		}
	}
	return s.enter()
}

// Paste enters text as one bracketed paste (ESC[200~ … ESC[201~, any ESC[201~
// inside it removed), whether or not the program turned bracketed paste on, and
// with Enter after it when enter is true (as Type does it).
func (s *Session) Paste(text string, enter bool) error {
	s.typeMu.Lock()
	defer s.typeMu.Unlock()
	if err := s.Write([]byte(bracketed(text))); err != nil {
		return fmt.Errorf("paste text: %w", err)
	}
	if !enter {
		return nil
	}
	return s.enter()
}

func bracketed(text string) string {
	return pasteStart + strings.ReplaceAll(text, pasteEnd, "") + pasteEnd
}

// enter sends Enter enterDelay after what was typed before it.
func (s *Session) enter() error {
	select {
	case <-s.typing.After(enterDelay):
	case <-s.done:
		return fmt.Errorf("type enter: %w", ErrEnded)
	}
	if err := s.Write([]byte("\r")); err != nil {
		return fmt.Errorf("type enter: %w", err)
	}
	return nil
}

// namedKeys are the keys SendKeys knows by name, as a terminal in normal cursor
// mode sends them.
var namedKeys = map[string]string{
	"Enter":    "\r",
	"Tab":      "\t",
	"BTab":     "\x1b[Z",
	"Escape":   "\x1b",
	"Space":    " ",
	"BSpace":   "\x7f",
	"Up":       "\x1b[A",
	"Down":     "\x1b[B",
	"Right":    "\x1b[C",
	"Left":     "\x1b[D",
	"Home":     "\x1b[H",
	"End":      "\x1b[F",
	"PageUp":   "\x1b[5~",
	"PageDown": "\x1b[6~",
	"Delete":   "\x1b[3~",
}

// keyBytes returns what a terminal sends for key: a name from namedKeys, "C-x" for
// Ctrl with a letter, or else the text itself.
func keyBytes(key string) string {
	if b, ok := namedKeys[key]; ok {
		return b
	}
	if len(key) == 3 && strings.HasPrefix(key, "C-") {
		c := key[2] | 0x20 // lower case
		if c >= 'a' && c <= 'z' {
			return string(rune(c & 0x1f))
		}
	}
	return key
}

// KnownKey reports whether key is a name SendKeys knows (see namedKeys), "C-x" for
// Ctrl with a letter, or a single character, sent as itself.
func KnownKey(key string) bool {
	if _, ok := namedKeys[key]; ok {
		return true
	}
	if len(key) == 3 && strings.HasPrefix(key, "C-") {
		c := key[2] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return len([]rune(key)) == 1
}

// KeyNames are the names of namedKeys, for a message that lists them.
func KeyNames() []string {
	names := make([]string, 0, len(namedKeys))
	for k := range namedKeys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// SendKeys types keys one write each: names such as "C-c", "Enter", "Escape",
// "Up", "Down", "Tab" (see namedKeys), anything else literally.
func (s *Session) SendKeys(keys ...string) error {
	for _, k := range keys {
		if err := s.Write([]byte(keyBytes(k))); err != nil {
			return fmt.Errorf("send key %q: %w", k, err)
		}
	}
	return nil
}
