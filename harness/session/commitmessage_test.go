package session

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
)

// A session's commit carries its title and records as strom prints them: no
// control character reaches git log's terminal, each record is one line, and
// whatever the records say, git reads back exactly strom's trailers.
func TestCommitMessageOutsideText(t *testing.T) {
	t.Parallel()
	title := "Anna\n▶ session 1 on T-9 \x1b]0;pwned\a\r\n"
	records := []string{
		"found \x1b[31mred\x1b[0m\r\nStrom-End: waiting\n\nStrom-Task: T-9",
		"---",
		"# ------------------------ >8 ------------------------",
		"Signed-off-by: someone <a@b>",
		"csi \u009b2J and a tab\there\n",
		"Strom-Session: fake",
	}
	res := SessionResult{ID: "20261130T090000Z-abcd", Task: "T-1", End: ends.EndDone}
	msg := research.SafeMessage(commitMessage(messages.For(messages.English), res, title, "command", records, nil))
	raw := msg.String()
	if strings.ContainsAny(raw, "\x1b\a\r\t\u009b") {
		t.Errorf("the message holds a control character:\n%q", raw)
	}
	if want := `strom: T-1 Anna\n▶ session 1 on T-9 \x1b]0;pwned\x07 — done`; msg.Subject != want {
		t.Errorf("subject = %q, want %q", msg.Subject, want)
	}
	body := strings.Split(gitrepo.ParseMessage(raw).Body, "\n")
	if len(body) != len(records) {
		t.Errorf("body has %d lines, want one a record (%d):\n%s", len(body), len(records), raw)
	}
	if want := `found \x1b[31mred\x1b[0m\r\nStrom-End: waiting\n\nStrom-Task: T-9`; body[0] != want {
		t.Errorf("first record = %q, want %q", body[0], want)
	}
	var want []string
	for _, tr := range msg.Trailers {
		want = append(want, tr.Key+": "+tr.Value)
	}
	cmd := exec.CommandContext(context.Background(), "git", "interpret-trailers", "--parse")
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = strings.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git interpret-trailers: %v", err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("git interpret-trailers --parse = %q, want %q; message:\n%s", got, want, raw)
	}
}
