package notify

import (
	"context"
	"fmt"
	"os/exec"
)

// script shows its first argument as a notification with its second as the title:
// the text reaches osascript as argv, never as part of the script.
var script = []string{
	"-e", "on run argv",
	"-e", "display notification (item 1 of argv) with title (item 2 of argv)",
	"-e", "end run",
}

// desktop asks the notification centre through osascript.
func desktop(ctx context.Context, n Note) error {
	args := append(append([]string{}, script...), n.Text(), n.Title)
	if out, err := exec.CommandContext(ctx, "osascript", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("notify desktop: osascript: %w: %s", err, out)
	}
	return nil
}
