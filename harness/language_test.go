package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// TestWordsInCatalogs: the ids built from machine words (a session's end, a task's
// state) are in the catalogs, and the words said differ from the machine words in
// German and Czech, while English says them as before.
func TestWordsInCatalogs(t *testing.T) {
	t.Parallel()
	var ids []string
	for e := ends.EndClosed; e <= ends.EndCrashed; e++ {
		ids = append(ids, "end."+e.String(), "subject."+e.String())
		if got := messages.For(messages.English).Say("subject." + e.String()); got != e.Subject() {
			t.Errorf("English subject of %s is %q, want %q", e, got, e.Subject())
		}
	}
	for _, st := range []statefiles.State{statefiles.Open, statefiles.Started, statefiles.Waiting, statefiles.Done, statefiles.Parked} {
		ids = append(ids, "state."+string(st))
	}
	for _, v := range []string{"go", "wait", "stop", "error"} {
		ids = append(ids, "gate.verdict."+v)
	}
	for _, id := range ids {
		if !messages.Has(id) {
			t.Errorf("no catalog has %s", id)
		}
		for _, l := range []string{messages.German, messages.Czech} {
			if got := messages.For(l).Say(id); got == id {
				t.Errorf("%s lacks %s", l, id)
			}
		}
	}
}

// TestEndLineInEachLanguage: each end reason of R7.1.1 in the seed's words.
func TestEndLineInEachLanguage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rr         RunResult
		en, de, cs string
	}{
		{RunResult{Sessions: 2, Stop: ends.StopDone}, "2 sessions · stopped: done", "Sitzungen: 2 · Ende: fertig", "sezení: 2 · konec: hotovo"},
		{RunResult{Sessions: 1, Stop: ends.StopNoTasks}, "1 session · stopped: no open tasks", "Sitzungen: 1 · Ende: keine offenen Aufgaben", "sezení: 1 · konec: žádné otevřené úkoly"},
		{RunResult{Sessions: 5, Stop: ends.StopTimeLimit, Detail: "--until 07:00"}, "5 sessions · stopped: time limit (--until 07:00)", "Sitzungen: 5 · Ende: Zeitlimit (--until 07:00)", "sezení: 5 · konec: časový limit (--until 07:00)"},
		{RunResult{Sessions: 1, Stop: ends.StopByHand}, "1 session · stopped: by hand", "Sitzungen: 1 · Ende: von Hand angehalten", "sezení: 1 · konec: zastaveno ručně"},
		{RunResult{Sessions: 3, Stop: ends.StopNoTasks, ChecksFailed: 2, CheckFailed: CheckFailure{Task: "T-4", Why: "conflict markers in a.md"}},
			"3 sessions · stopped: no open tasks · 2 sessions ended with their check failing (the last, T-4: conflict markers in a.md)",
			"Sitzungen: 3 · Ende: keine offenen Aufgaben · 2 Sitzungen endeten mit fehlgeschlagener Prüfung (zuletzt T-4: conflict markers in a.md)",
			"sezení: 3 · konec: žádné otevřené úkoly · 2 sezení skončila s neúspěšnou kontrolou (naposledy T-4: conflict markers in a.md)"},
		{RunResult{Sessions: 1, Stop: ends.StopSubscriptionLimit, Detail: "resets 8:30 AM Mon Nov 30 (UTC)"},
			"1 session · stopped: subscription limit (resets 8:30 AM Mon Nov 30 (UTC))",
			"Sitzungen: 1 · Ende: Limit des Abonnements (erneuert sich 30.11. um 08:30 (UTC))",
			"sezení: 1 · konec: limit předplatného (obnoví se 30. 11. v 08:30 (UTC))"},
		{RunResult{Sessions: 1, Stop: ends.StopSubscriptionLimit, Detail: "resets 12:50 AM Thu Dec 3 (America/Los_Angeles)"},
			"1 session · stopped: subscription limit (resets 12:50 AM Thu Dec 3 (America/Los_Angeles))",
			"Sitzungen: 1 · Ende: Limit des Abonnements (erneuert sich 3.12. um 00:50 (America/Los_Angeles))",
			"sezení: 1 · konec: limit předplatného (obnoví se 3. 12. v 00:50 (America/Los_Angeles))"},
		{RunResult{Sessions: 0, Stop: ends.StopNotLoggedIn, Detail: "run claude once and log in"},
			"0 sessions · stopped: the agent is not logged in — run claude once and log in",
			"Sitzungen: 0 · Ende: der Agent ist nicht angemeldet — einmal claude starten und anmelden",
			"sezení: 0 · konec: agent není přihlášený — jednou spustit claude a přihlásit se"},
		{RunResult{Sessions: 0, Stop: ends.StopCondition, Gate: "fake stop", Detail: "enough"},
			"0 sessions · stopped: the condition “fake stop”: enough",
			"Sitzungen: 0 · Ende: die Bedingung „fake stop“: enough",
			"sezení: 0 · konec: podmínka „fake stop“: enough"},
		{RunResult{Sessions: 0, Stop: ends.StopCap, Gate: "claude-usage 10 --cap 95", Detail: "96%"},
			"0 sessions · stopped: the cap of the condition “claude-usage 10 --cap 95”: 96%",
			"Sitzungen: 0 · Ende: die Obergrenze der Bedingung „claude-usage 10 --cap 95“: 96%",
			"sezení: 0 · konec: strop podmínky „claude-usage 10 --cap 95“: 96%"},
		{RunResult{Sessions: 0, Stop: ends.StopNotStarted, Gate: "fake wait", Detail: "not yet"},
			"0 sessions · stopped: not started — the condition “fake wait”: not yet",
			"Sitzungen: 0 · Ende: nicht gestartet — die Bedingung „fake wait“: not yet",
			"sezení: 0 · konec: nespuštěno — podmínka „fake wait“: not yet"},
		{RunResult{Sessions: 1, Stop: ends.StopError, Detail: "x"}, "1 session · stopped: error (x)", "Sitzungen: 1 · Ende: Fehler (x)", "sezení: 1 · konec: chyba (x)"},
		{RunResult{Sessions: 11, Stop: ends.StopNeedYou, Parked: 3},
			"11 sessions · stopped: every task left waits for a person · 3 tasks need you: strom task list --state parked",
			"Sitzungen: 11 · Ende: jede verbleibende Aufgabe wartet auf einen Menschen · 3 Aufgaben brauchen Sie: strom task list --state parked",
			"sezení: 11 · konec: každý zbývající úkol čeká na člověka · 3 úkoly vás potřebují: strom task list --state parked"},
		{RunResult{Sessions: 2, Stop: ends.StopDone, Parked: 1, Waiting: 5},
			"2 sessions · stopped: done · 1 task needs you: strom task list --state parked · 5 tasks wait for your answer: strom task list --state waiting",
			"Sitzungen: 2 · Ende: fertig · 1 Aufgabe braucht Sie: strom task list --state parked · 5 Aufgaben warten auf Ihre Antwort: strom task list --state waiting",
			"sezení: 2 · konec: hotovo · 1 úkol vás potřebuje: strom task list --state parked · 5 úkolů čeká na vaši odpověď: strom task list --state waiting"},
	}
	for _, c := range cases {
		for lang, want := range map[string]string{messages.English: c.en, messages.German: c.de, messages.Czech: c.cs} {
			if got := c.rr.Say(messages.For(lang)); got != want {
				t.Errorf("%s: %q, want %q", lang, got, want)
			}
		}
		if got := c.rr.Line(); got != c.en {
			t.Errorf("Line: %q, want %q", got, c.en)
		}
	}
}

// TestAgentNotesInCzech: the time notes of R7.2 with Czech plurals (1, 2, 5
// minutes) and the finish request of R7.3.
func TestAgentNotesInCzech(t *testing.T) {
	t.Parallel()
	p := messages.For(messages.Czech)
	dl := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		left time.Duration
		want string
	}{
		{time.Minute, "⏱ zbývá 1 minuta (konec 10:00 UTC)"},
		{2 * time.Minute, "⏱ zbývá 2 minuty (konec 10:00 UTC)"},
		{5 * time.Minute, "⏱ v tomto sezení zbývá 5 minut (konec 10:00 UTC)."},
	} {
		if got := session.SayTimeNote(p, dl.Add(-c.left), dl, 60*time.Minute); !strings.HasPrefix(got, c.want) {
			t.Errorf("%v left: %q, want %q…", c.left, got, c.want)
		}
	}
	if got := (runfiles.FinishRequest{By: "person"}).SayNote(p); !strings.HasPrefix(got, "⏹ Člověk žádá toto sezení o dokončení") {
		t.Errorf("finish note: %q", got)
	}
}
