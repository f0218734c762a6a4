package session

import (
	"os"
	"syscall"
	"time"
)

// changeTime is when path's file or its mode last changed (its ctime, which a
// program cannot set back), its modification time where there is none.
func changeTime(path string) (time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Unix()), true
	}
	return fi.ModTime(), true
}
