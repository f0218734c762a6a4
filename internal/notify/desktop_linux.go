package notify

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// desktop calls org.freedesktop.Notifications.Notify on the session bus. A bus is
// never started for it (no dbus-launch): without one there is no desktop.
func desktop(ctx context.Context, n Note) error {
	conn, err := dbus.SessionBusPrivateNoAutoStartup(dbus.WithContext(ctx))
	if err != nil {
		return ErrNoDesktop
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("%w: %w", ErrNoDesktop, err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("%w: %w", ErrNoDesktop, err)
	}
	obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
	// Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout)
	call := obj.CallWithContext(ctx, "org.freedesktop.Notifications.Notify", 0,
		"strom", uint32(0), "", n.Title, n.Text(), []string{}, map[string]dbus.Variant{}, int32(-1))
	if call.Err != nil {
		var de dbus.Error
		if errors.As(call.Err, &de) && (de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner") {
			return ErrNoServer
		}
		return fmt.Errorf("notify desktop: %w", call.Err)
	}
	return nil
}
