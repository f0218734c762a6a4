package agents

import (
	"fmt"
	"strings"
	"time"

	"github.com/strom-research/strom/messages"
)

// MaxPromptRecords is how many earlier records of a task the prompt quotes
// (the most recent ones).
const MaxPromptRecords = 20

// QA is a question the agent asked on the task and the person's answer.
type QA struct {
	Question string
	Answer   string
}

// TaskInfo is what the session prompt says about the task.
type TaskInfo struct {
	ID       string
	Title    string
	Body     string
	Deadline time.Time
	Minutes  int      // the session's length
	Answers  []QA     // questions asked on this task and their answers
	Records  []string // earlier records on this task, oldest first (the newest MaxPromptRecords quoted)
	// OlderRecords counts the task's records older than Records that the caller
	// left out: the prompt says how many there are and how to page through them.
	OlderRecords int
	// Note is the research's handover note (strom note), "" when it has none.
	Note string
	// Summary is the task's summary (strom task summary), "" when it has none.
	Summary string
	// NeedSummary says that the session's close requires a rewritten summary once
	// it recorded something (check.summary).
	NeedSummary bool
	// Msg says the prompt in the person's language; nil is English. The quoted task
	// data keeps its English labels (Title:, Text:, Q:, A:), which read as data.
	Msg *messages.Printer
	// Strom is the strom binary's absolute path, for an agent whose shell does not
	// find strom on PATH (a login shell that resets PATH); "" says nothing.
	Strom string
}

// Prompt writes the session prompt: the task's id and deadline, the strom
// commands the agent works with, the rules of a session, and then the task's
// title, text, answers and earlier records quoted as data inside a fenced
// block that nothing in them can close.
func Prompt(t TaskInfo) string {
	var b strings.Builder
	p := t.Msg
	say := func(id string, args ...messages.Args) { b.WriteString(p.Say("prompt."+id, args...)) }
	line := func(id string, args ...messages.Args) { say(id, args...); b.WriteString("\n") }

	line("intro")
	say("task", messages.Args{"Task": t.ID})
	switch {
	case !t.Deadline.IsZero() && t.Minutes > 0:
		say("ends_minutes", messages.Args{"Ends": t.Deadline.UTC().Format(time.RFC3339), "Minutes": t.Minutes})
	case !t.Deadline.IsZero():
		say("ends", messages.Args{"Ends": t.Deadline.UTC().Format(time.RFC3339)})
	case t.Minutes > 0:
		say("lasts", messages.Args{"Minutes": t.Minutes})
	}
	b.WriteString("\n\n")

	if t.Strom != "" {
		line("commands_path", messages.Args{"Strom": t.Strom})
	} else {
		line("commands")
	}
	for _, id := range []string{"cmd_task", "cmd_record", "cmd_summary", "cmd_note", "cmd_add", "cmd_done", "cmd_ask", "cmd_close"} {
		line(id)
	}
	b.WriteString("\n")
	rules := []string{"rules", "rule_one", "rule_commit", "rule_clean", "rule_strom", "rule_time"}
	if t.NeedSummary {
		rules = append(rules, "rule_summary")
	}
	for _, id := range rules {
		line(id)
	}
	b.WriteString("\n")

	data := taskData(t)
	fence := fenceFor(data)
	line("data_1", messages.Args{"Fence": fence})
	line("data_2")
	line("data_3")
	line("data_4")
	b.WriteString("\n")
	fmt.Fprintf(&b, "%stask-data\n%s%s\n\n", fence, data, fence)
	line("end")
	return b.String()
}

// taskData is the quoted part of the prompt, each line ending in "\n".
func taskData(t TaskInfo) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	block := func(s string) {
		for l := range strings.SplitSeq(s, "\n") {
			line(l)
		}
	}

	line("Title: " + oneLineText(clean(t.Title)))
	body := strings.TrimSpace(clean(t.Body))
	if body == "" {
		line("Text: (none)")
	} else {
		line("Text:")
		block(body)
	}
	if len(t.Answers) > 0 {
		line("")
		line("Questions and answers:")
		for _, qa := range t.Answers {
			block("Q: " + strings.TrimSpace(clean(qa.Question)))
			answer := strings.TrimSpace(clean(qa.Answer))
			if answer == "" {
				answer = "(not answered yet)"
			}
			block("A: " + answer)
		}
	}
	if note := strings.TrimSpace(clean(t.Note)); note != "" {
		line("")
		line("The research's note (strom note: any session rewrites it for the next):")
		block(note)
	}
	if summary := strings.TrimSpace(clean(t.Summary)); summary != "" {
		line("")
		line("The task's summary (strom task summary: rewrite it as the task moves on):")
		block(summary)
	}
	recs := t.Records
	if len(recs) > MaxPromptRecords {
		recs = recs[len(recs)-MaxPromptRecords:]
	}
	if len(recs) > 0 {
		line("")
		older := len(t.Records) - len(recs) + max(t.OlderRecords, 0)
		if older > 0 {
			line(fmt.Sprintf("%d older records are not quoted here: `strom task show %s --page 2` shows the %d before these, --page 3 the ones before those, and so on.", older, t.ID, MaxPromptRecords))
			line(fmt.Sprintf("Earlier records (the newest %d of %d, oldest first):", len(recs), older+len(recs)))
		} else {
			line(fmt.Sprintf("Earlier records (%d, oldest first):", len(recs)))
		}
		for _, r := range recs {
			block("- " + strings.TrimSpace(clean(r)))
		}
	}
	return b.String()
}

// fenceFor returns a backtick fence longer than any run of backticks in
// data (at least five), so no line of data can close it.
func fenceFor(data string) string {
	longest, run := 0, 0
	for _, c := range data {
		if c == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	return strings.Repeat("`", max(5, longest+1))
}

// clean drops control characters other than newline and tab (terminal escape
// sequences must not reach a TUI the prompt is typed into) and turns CRLF
// and lone CR into newlines.
func clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// MaxArgPrompt is the largest prompt handed to an agent as it is (an argument, its
// terminal, typed). A larger one would not fit: Linux takes at most 128 KiB in one
// argument, a terminal line 4 KiB. The agent then gets PointerPrompt instead.
const MaxArgPrompt = 16 << 10

// PointerPrompt is the short prompt that stands for one too long to pass: it names
// the task and the file that holds the whole prompt, and asks the agent to read it.
func PointerPrompt(id, title, file string, size int) string {
	title = strings.Join(strings.Fields(title), " ")
	if r := []rune(title); len(r) > 200 {
		title = string(r[:199]) + "…"
	}
	return fmt.Sprintf("You are working alone on one research task, in a session that strom runs. "+
		"Your task is %s (%q). Its full instructions, the task's text and the records of earlier "+
		"sessions are too long to pass here (%d KB): read the whole file %s first, then work as it says.",
		id, title, (size+1023)/1024, file)
}
