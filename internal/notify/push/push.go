// Package push POSTs a note to a URL that ntfy, Gotify or a webhook takes
// (notify.url). It is strom-app's: strom runs `strom-app push`, so that strom's own
// binary links no HTTP client.
package push

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Timeout bounds one POST.
const Timeout = 5 * time.Second

// Push POSTs a note to u: the body is its text, the title goes in the
// Title header (ntfy's; Gotify and webhooks read the body), and a status other
// than 2xx is an error. The POST takes at most Timeout.
func Push(ctx context.Context, client *http.Client, u, title, text string) error {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return fmt.Errorf("push note: %q is not an http or https URL", u)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(text))
	if err != nil {
		return fmt.Errorf("push note: %w", err)
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	// A header carries no line break; the title is one line.
	req.Header.Set("Title", strings.Join(strings.Fields(title), " "))
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
