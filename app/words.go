package app

import (
	"fmt"
	"time"

	"github.com/strom-research/strom/messages"
)

// words says the page's texts in one language, from strom's message catalogs.
type words struct {
	lang string
	p    *messages.Printer
}

func wordsFor(lang string) words {
	p := messages.For(lang)
	return words{lang: p.Lang(), p: p}
}

// say returns a message with its placeholders given as name, value pairs, as the
// page's template writes them: t "app.run.paused" "Time" (clock .PausedTill).
func (w words) say(id string, kv ...any) string {
	if len(kv) == 0 {
		return w.p.Say(id)
	}
	args := messages.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return w.p.Say(id, args)
}

// end says a Strom-End value as a commit subject does; the value itself when the
// catalog does not know it.
func (w words) end(trailer string) string {
	if !messages.Has("subject." + trailer) {
		return trailer
	}
	return w.p.Say("subject." + trailer)
}

// left says the time left, rounded down: never more than there is.
func (w words) left(d time.Duration) string {
	switch {
	case d <= 0:
		return w.say("app.left.none")
	case d < time.Minute:
		return w.say("app.left.seconds", "N", int(d/time.Second))
	}
	return w.say("app.left.minutes", "N", int(d/time.Minute))
}
