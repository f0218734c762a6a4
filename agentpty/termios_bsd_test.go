//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package agentpty

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
