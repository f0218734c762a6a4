package statefiles

import (
	"os"
	"syscall"
)

// changeTime is the inode's change time of fi in nanoseconds; 0 when unknown.
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}

// inode is fi's inode number; 0 when unknown.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
