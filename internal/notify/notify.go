// Package notify calls a person who is not at the terminal: a desktop notification
// (the freedesktop Notifications service on the session D-Bus on Linux, the
// notification centre through osascript on macOS) and a plain POST to a URL that
// ntfy, Gotify or a webhook takes. Every call is bounded in time, and the text is
// never part of a program or script: it travels as D-Bus arguments, as osascript's
// argv, or as the POST's body.
package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Note is what a person is told: a title, the body, and the command to run next.
type Note struct {
	Title   string
	Body    string
	Command string // "" = none
}

// Text is the body with the command on a line of its own.
func (n Note) Text() string {
	if n.Command == "" {
		return n.Body
	}
	return n.Body + "\n" + n.Command
}

// Timeout bounds one desktop notification or one POST.
const Timeout = 5 * time.Second

// ErrNoDesktop is a computer with no desktop to notify: no session bus (a server,
// a login over ssh) or a system that strom does not notify on.
var ErrNoDesktop = errors.New("no desktop session to notify")

// ErrNoServer is a desktop session whose bus has no notification service.
var ErrNoServer = errors.New("no notification service on the session bus")

// Push POSTs the note to u: the body is the note's text, the title goes in the
// Title header (ntfy's; Gotify and webhooks read the body), and a status other
// than 2xx is an error. The POST takes at most Timeout.
func Push(ctx context.Context, client *http.Client, u string, n Note) error {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return fmt.Errorf("push note: %q is not an http or https URL", u)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(n.Text()))
	if err != nil {
		return fmt.Errorf("push note: %w", err)
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	// A header carries no line break; the title is one line.
	req.Header.Set("Title", strings.Join(strings.Fields(n.Title), " "))
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("push note: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("push note: %s answered %s", parsed.Host, resp.Status)
	}
	return nil
}

// Desktop shows the note as a desktop notification, within Timeout. It returns
// ErrNoDesktop where there is no desktop session and ErrNoServer where no
// notification service answers.
func Desktop(ctx context.Context, n Note) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return desktop(ctx, n)
}
