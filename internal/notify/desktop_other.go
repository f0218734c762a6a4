//go:build !linux && !darwin

package notify

import "context"

// desktop has no notification to show on this system yet.
func desktop(context.Context, Note) error { return ErrNoDesktop }
