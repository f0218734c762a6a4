package app

import (
	"fmt"
	"time"

	"github.com/strom-research/strom/harness"
)

// words says the page's texts in one language.
type words struct {
	lang string
	m    map[string]string
}

func wordsFor(lang string) words {
	m, ok := pageWords[lang]
	if !ok {
		lang, m = "en", pageWords["en"]
	}
	return words{lang: lang, m: m}
}

// say returns a text with its %s/%d filled; an unknown id falls back to English,
// then to itself.
func (w words) say(id string, a ...any) string {
	f, ok := w.m[id]
	if !ok {
		if f, ok = pageWords["en"][id]; !ok {
			f = id
		}
	}
	if len(a) == 0 {
		return f
	}
	return fmt.Sprintf(f, a...)
}

// end says a Strom-End value as a commit subject does; the value itself when strom
// does not know it.
func (w words) end(trailer string) string {
	if e, ok := harness.ParseEnd(trailer); ok {
		return w.say("app.end." + e.String())
	}
	return trailer
}

// left says the time left, rounded down: never more than there is.
func (w words) left(d time.Duration) string {
	switch {
	case d <= 0:
		return w.say("app.left.none")
	case d < time.Minute:
		return w.say("app.left.seconds", int(d/time.Second))
	}
	return w.say("app.left.minutes", int(d/time.Minute))
}

// pageWords are the page's texts.
var pageWords = map[string]map[string]string{
	"en": {
		"app.title":                  "Research overview",
		"app.none":                   "No research on this computer yet: strom init makes one.",
		"app.gone":                   "%s is no longer a research (moved or deleted): it left the overview.",
		"app.mode.research":          "Research",
		"app.mode.archive":           "Archive",
		"app.run":                    "The run",
		"app.run.none":               "No run.",
		"app.run.between":            "Between sessions.",
		"app.run.working":            "Working",
		"app.run.paused":             "Paused, resumes at %s",
		"app.run.agent":              "Agent",
		"app.run.task":               "Task",
		"app.run.session":            "Session",
		"app.run.started":            "Started",
		"app.run.left":               "Time left",
		"app.run.records":            "Records so far",
		"app.run.transcript":         "The last lines of the session",
		"app.finish":                 "Finish and stop",
		"app.finish.help":            "The agent records what it found and closes the session; then the run ends. The run's terminal confirms it first.",
		"app.finish.asked":           "Finish and stop asked: the run's terminal confirms it.",
		"app.finish.pending":         "Finish requested: the agent records and closes, then the run ends.",
		"app.queue":                  "Queue",
		"app.queue.empty":            "No tasks.",
		"app.col.id":                 "Task",
		"app.col.state":              "State",
		"app.col.title":              "Title",
		"app.col.note":               "Question or reason",
		"app.state.open":             "open",
		"app.state.started":          "started",
		"app.state.waiting":          "waiting",
		"app.state.done":             "done",
		"app.state.parked":           "parked",
		"app.sessions":               "Last sessions",
		"app.sessions.none":          "No session yet.",
		"app.col.when":               "When",
		"app.col.end":                "Ended",
		"app.col.records":            "Records",
		"app.col.commit":             "Commit",
		"app.answers":                "The condition's last answers",
		"app.usage":                  "Claude usage this week",
		"app.usage.line":             "%s of the week used, resets %s; five hours: %s (%s)",
		"app.left.none":              "none",
		"app.left.seconds":           "%d s",
		"app.left.minutes":           "%d min",
		"app.end.closed":             "closed",
		"app.end.done":               "done",
		"app.end.waiting":            "waits for an answer",
		"app.end.time-limit":         "time limit",
		"app.end.finish-requested":   "finished on request",
		"app.end.stopped-by-hand":    "stopped by hand",
		"app.end.closed-by-person":   "closed by a person",
		"app.end.subscription-limit": "subscription limit",
		"app.end.not-logged-in":      "the agent is not logged in",
		"app.end.agent-failed":       "the agent failed",
		"app.end.error":              "error",
		"app.end.crashed":            "crashed",
		"app.noscript":               "This page refreshes itself every 10 seconds.",
	},
}
