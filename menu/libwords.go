package menu

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/strom-research/strom/messages"
)

// libraryWords is the output of an accessible form. huh writes a few sentences of
// its own there, in English: the prompt for a number, the limits of a
// multi-select, the refusal of a number out of range. Each arrives in one write
// and is said in the person's language; everything else passes as it is.
type libraryWords struct {
	w io.Writer
	p *messages.Printer
}

// huhSentence is one of huh v2's accessible sentences (as its source writes it),
// with the catalog id that says it and the names of its numbers, in order. A
// number named Count also chooses the plural.
type huhSentence struct {
	re    *regexp.Regexp
	id    string
	names []string
}

// huhSentences are compiled at the first accessible form, not at the start of
// every strom process: every command links the menu, few show it.
var huhSentences = sync.OnceValue(func() []huhSentence {
	return []huhSentence{
		{regexp.MustCompile(`^Enter a number between (\d+) and (\d+):$`), "menu.huh.enter_number", []string{"Low", "High"}},
		{regexp.MustCompile(`^There is only one option available; enter the number 1:$`), "menu.huh.only_one", nil},
		{regexp.MustCompile(`^Select up to (\d+) options\.$`), "menu.huh.select_up_to", []string{"Count"}},
		{regexp.MustCompile(`^You can't select more than (\d+) options\.$`), "menu.huh.no_more", []string{"Count"}},
		{regexp.MustCompile(`^Invalid: must be (\d+)$`), "menu.huh.must_be", []string{"Low"}},
		{regexp.MustCompile(`^Invalid: must be a number between (\d+) and (\d+)$`), "menu.huh.must_between", []string{"Low", "High"}},
	}
})

func (l libraryWords) Write(b []byte) (int, error) {
	s := string(b)
	body := strings.TrimRight(s, " \r\n")
	for _, h := range huhSentences() {
		m := h.re.FindStringSubmatch(body)
		if m == nil {
			continue
		}
		args := messages.Args{}
		for i, name := range h.names {
			n, _ := strconv.Atoi(m[i+1])
			args[name] = n
		}
		if _, err := io.WriteString(l.w, l.p.Say(h.id, args)+s[len(body):]); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return l.w.Write(b)
}
