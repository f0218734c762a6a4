// Package notify calls a person who is not at the terminal: a desktop notification
// (the freedesktop Notifications service on the session D-Bus on Linux, the
// notification centre through osascript on macOS) and a plain POST to a URL that
// ntfy, Gotify or a webhook takes (package push, which only strom-app links: the
// commands an agent runs many times a session do not start an HTTP client). Every call is bounded in time, and the text is
// never part of a program or script: it travels as D-Bus arguments, as osascript's
// argv, or as the POST's body.
package notify

import (
	"context"
	"errors"
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

// Desktop shows the note as a desktop notification, within Timeout. It returns
// ErrNoDesktop where there is no desktop session and ErrNoServer where no
// notification service answers.
func Desktop(ctx context.Context, n Note) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return desktop(ctx, n)
}
