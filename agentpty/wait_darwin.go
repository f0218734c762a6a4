//go:build darwin || ios

package agentpty

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitReadable blocks until fd has input (true) or wake became readable or hung up
// (false). It uses select: poll reports POLLNVAL for terminals on darwin.
func waitReadable(fd, wake int) (bool, error) {
	for {
		var r unix.FdSet
		r.Set(fd)
		r.Set(wake)
		_, err := unix.Select(max(fd, wake)+1, &r, nil, nil, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		if r.IsSet(wake) {
			return false, nil
		}
		if r.IsSet(fd) {
			return true, nil
		}
	}
}
