//go:build !linux

package session

import (
	"os"
	"time"
)

// changeTime is when path's file last changed, by its modification time.
func changeTime(path string) (time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
