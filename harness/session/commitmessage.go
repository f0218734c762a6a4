package session

import (
	"strconv"
	"strings"

	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// commitMessage builds a session commit's message.
// Its subject and the line for a session that recorded nothing are in the person's
// language (p); the trailers are machine words. The title and the records are
// written as strom prints them (termsafe.Line): the title on the subject's one
// line, each record on a line of its own.
func commitMessage(p *messages.Printer, res SessionResult, title, agent string, records []string, checks []string) gitrepo.Message {
	id := "commit.session"
	if res.CheckFailed != "" {
		id = "commit.session_check_failed"
	}
	subject := p.Say(id, messages.Args{"Task": res.Task, "Title": subjectTitle(title), "End": p.Say("subject." + res.End.String())})
	lines := make([]string, len(records))
	for i, rec := range records {
		lines[i] = termsafe.Line(strings.TrimSpace(rec))
	}
	body := strings.Join(lines, "\n")
	if body == "" {
		body = p.Say("commit.nothing_recorded")
	}
	tr := []gitrepo.Trailer{
		{Key: research.TrailerSession, Value: res.ID},
		{Key: research.TrailerTask, Value: res.Task},
		{Key: research.TrailerEnd, Value: res.End.String()},
		{Key: research.TrailerAgent, Value: agent},
	}
	if res.AgentVersion != "" {
		tr = append(tr, gitrepo.Trailer{Key: research.TrailerAgentVersion, Value: res.AgentVersion})
	}
	if res.Model != "" {
		tr = append(tr, gitrepo.Trailer{Key: research.TrailerModel, Value: res.Model})
	}
	tr = append(tr, []gitrepo.Trailer{
		{Key: research.TrailerRecords, Value: strconv.Itoa(len(records))},
	}...)
	for _, c := range checks {
		tr = append(tr, gitrepo.Trailer{Key: research.TrailerCheck, Value: c})
	}
	if len(res.NotAllowed) > 0 {
		tr = append(tr, gitrepo.Trailer{Key: allow.TrailerConsent, Value: "not allowed on this computer: " + strings.Join(res.NotAllowed, ", ") + " (strom allow)"})
	}
	return gitrepo.Message{Subject: subject, Body: body, Trailers: tr}
}

// subjectTitle is a task's title as a commit's subject carries it: on one line as
// strom prints it, at most 60 characters.
func subjectTitle(title string) string {
	s := termsafe.Line(strings.TrimSpace(title))
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}
