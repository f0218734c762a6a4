package main

import (
	"testing"

	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

func TestParseTaskEdit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, title, body string }{
		{"Title\n\nText\n", "Title", "Text"},
		{"Title\n", "Title", ""},
		{"  Title  \n\n\nText\n\n  \n", "Title", "Text"},
		{"Title\r\n\r\n# Heading\r\ntext\r\n", "Title", "# Heading\ntext"},
		{"Title\n\nText\n" + editScissors + "\n# help\nmore\n", "Title", "Text"},
		{"Title\n\nText\n\n" + editScissors + "\n", "Title", "Text"},
		{editScissors + "\nTitle\n", "", ""},
		{"\nText as a first line\n", "", "Text as a first line"},
		{"", "", ""},
		{"Title\n\nnot a # scissors " + editScissors + " line\n", "Title", "not a # scissors " + editScissors + " line"},
	} {
		title, body := parseTaskEdit(tc.text)
		if title != tc.title || body != tc.body {
			t.Errorf("parseTaskEdit(%q) = %q, %q; want %q, %q", tc.text, title, body, tc.title, tc.body)
		}
	}
	// What the editor opens reads back as the task.
	for _, task := range []statefiles.Task{
		{ID: "T-1", State: "open", Title: "Find Anna", Body: "Parish of Tábor.\n\n# Sources\nRegister 12.\n"},
		{ID: "T-2", State: "waiting", Title: "No text"},
		{ID: "T-3", State: "open", Title: "Text with blank lines around", Body: "\n\nmiddle\n\n"},
	} {
		title, body := parseTaskEdit(editTaskText(messages.For(messages.English), task))
		if title != task.Title || body != normalizeBody(task.Body) {
			t.Errorf("%s: read back as %q, %q", task.ID, title, body)
		}
	}
}
