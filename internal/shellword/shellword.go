// Package shellword reads and writes the words of a shell line the way sh does,
// without expanding anything: settings that hold a command, and commands strom
// shows a person to copy. Split(Quote(s)) is s for every string.
package shellword

import (
	"fmt"
	"strings"
)

// Split splits a shell line into words the way sh would, without
// expanding anything: blanks separate words; 'single quotes' keep everything
// literally; "double quotes" keep everything but a backslash before ", \, $
// or `, which escapes it; outside quotes a backslash escapes the next
// character. A quote left open is an error. Variables, globs and operators
// such as | or ; are not interpreted: write a script for those.
func Split(line string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	// Byte by byte, not rune by rune: every byte that means something here is ASCII,
	// and bytes that are not UTF-8 stay as they are instead of becoming U+FFFD.
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' { // a backslash-newline joins lines
					cur.WriteByte(line[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("a single quote is not closed in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += 1 + end
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(line); i++ {
				if line[i] == '"' {
					closed = true
					break
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if !closed {
				return nil, fmt.Errorf("a double quote is not closed in %q", line)
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Quote quotes s for sh when it needs quoting: a word of plain characters stays
// as it is, anything else goes inside single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
