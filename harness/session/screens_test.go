package session

import (
	"testing"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/messages"
)

func TestPersonScreen(t *testing.T) {
	t.Parallel()
	claude, err := agents.Lookup("claude", nil)
	if err != nil {
		t.Fatal(err)
	}
	demo, err := agents.Lookup("demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	const trust = "Accessing workspace:\n/home/anna/research\nQuick safety check: Is this a project you created or one you trust?\n❯ 1. Yes, I trust this folder\n  2. No, exit\n"
	const login = "Select login method:\n❯ 1. Claude account with subscription · Pro, Max, Team, or Enterprise\n"
	tests := []struct {
		name    string
		plan    agents.SessionPlan
		screen  string
		want    bool
		wantEnd ends.End
	}{
		{"trust, unattended", agents.SessionPlan{Profile: claude}, trust, true, ends.EndAgentFailed},
		{"login, unattended", agents.SessionPlan{Profile: claude}, login, true, ends.EndNotLoggedIn},
		{"a person at the keyboard answers", agents.SessionPlan{Profile: claude, Interactive: true}, trust, false, 0},
		{"a chat: a person answers", agents.SessionPlan{Profile: claude, Chat: true, Interactive: true}, trust, false, 0},
		{"another agent's output is no Claude screen", agents.SessionPlan{Profile: demo}, trust, false, 0},
		{"the prompt is no screen", agents.SessionPlan{Profile: claude}, "❯ hello\n● hello from mock\n", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			scr, end, ok := PersonScreen(tc.plan, []byte(tc.screen))
			if ok != tc.want || end != tc.wantEnd {
				t.Fatalf("personScreen = %+v, %v, %v; want %v, %v", scr, end, ok, tc.wantEnd, tc.want)
			}
			if ok && scr.Advice == "" {
				t.Error("no advice for the person")
			}
		})
	}
}

// TestSayScreen: a screen's advice is said in the person's language, with the
// folder a trust question names; English reads as limits wrote it.
func TestSayScreen(t *testing.T) {
	t.Parallel()
	claude, err := agents.Lookup("claude", nil)
	if err != nil {
		t.Fatal(err)
	}
	const trust = "Accessing workspace:\n/home/anna/research\nQuick safety check: Is this a project you created or one you trust?\n❯ 1. Yes, I trust this folder\n  2. No, exit\n"
	plan := agents.SessionPlan{Profile: claude}
	scr, _, ok := PersonScreen(plan, []byte(trust))
	if !ok {
		t.Fatal("no trust screen")
	}
	if got := SayScreen(messages.For(messages.English), plan, scr); got != scr.Advice {
		t.Errorf("English: %q, limits says %q", got, scr.Advice)
	}
	want := "Claude Code fragt, ob es /home/anna/research vertrauen soll: `claude` einmal in diesem Ordner starten, die Frage nach dem Vertrauen beantworten, dann strom erneut ausführen."
	if got := SayScreen(messages.For(messages.German), plan, scr); got != want {
		t.Errorf("German: %q, want %q", got, want)
	}
}
