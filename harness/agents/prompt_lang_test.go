package agents

import (
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/messages"
)

// TestPromptInEachLanguage: the prompt is said in the person's language around the
// same quoted task data, with no English sentence of the prompt left.
func TestPromptInEachLanguage(t *testing.T) {
	t.Parallel()
	info := TaskInfo{ID: "T-3", Title: "Taufe", Body: "Tábor", Minutes: 60,
		Deadline: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	english := Prompt(info)
	for _, tt := range []struct{ lang, first string }{
		{messages.German, "Du arbeitest allein an einer Aufgabe der Forschung"},
		{messages.Czech, "Pracuješ sám na jednom úkolu výzkumu"},
	} {
		info.Msg = messages.For(tt.lang)
		got := Prompt(info)
		if !strings.HasPrefix(got, tt.first) {
			t.Errorf("%s prompt starts %q", tt.lang, got[:80])
		}
		for _, l := range strings.Split(english, "\n") {
			if len(l) > 30 && !strings.HasPrefix(l, "Title:") && !strings.HasPrefix(l, "Text") && strings.Contains(got, l) {
				t.Errorf("%s prompt keeps the English line %q", tt.lang, l)
			}
		}
		if !strings.Contains(got, "`````task-data\nTitle: Taufe\nText:\nTábor\n`````") {
			t.Errorf("%s prompt lost the quoted task:\n%s", tt.lang, got)
		}
	}
}
