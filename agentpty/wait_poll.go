//go:build unix && !darwin && !ios

package agentpty

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitReadable blocks until fd has input (true) or wake became readable or hung up
// (false).
func waitReadable(fd, wake int) (bool, error) {
	for {
		fds := []unix.PollFd{
			{Fd: int32(fd), Events: unix.POLLIN},
			{Fd: int32(wake), Events: unix.POLLIN},
		}
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		if fds[1].Revents != 0 {
			return false, nil
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			return true, nil
		}
		if fds[0].Revents != 0 {
			return false, nil // hung up, error or closed
		}
	}
}
