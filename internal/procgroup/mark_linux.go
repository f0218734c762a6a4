package procgroup

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// findsMarked: /proc lists every process with its environment.
const findsMarked = true

var marks atomic.Uint64

// mark gives cmd's environment a value of MarkVar of its own and returns it.
func mark(cmd *exec.Cmd) string {
	var salt [6]byte
	_, _ = rand.Read(salt[:])
	token := fmt.Sprintf("%d-%d-%s", os.Getpid(), marks.Add(1), hex.EncodeToString(salt[:]))
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clip(env), MarkVar+"="+token)
	return token
}

// markRounds bounds the scans of killMarked: a process that forks between the
// reading of its environment and its SIGKILL leaves a child the next scan finds.
const markRounds = 20

// emptyRounds bounds how often a process whose environment reads empty is looked
// at again: a process inside execve has none for a moment, between its new memory
// and its new stack; one that emptied its environment keeps none.
const emptyRounds = 5

// killMarked sends SIGKILL to every process of this user whose environment holds
// the mark token, scanning /proc again while a scan found one or a process in the
// middle of execve.
func killMarked(token string) {
	if token == "" {
		return
	}
	needle := []byte(MarkVar + "=" + token + "\x00")
	self := os.Getpid()
	empty := map[int]int{}
	for range markRounds {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		again := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil {
				continue
			}
			if len(env) == 0 {
				if empty[pid] < emptyRounds && !zombie(pid) {
					empty[pid]++
					again = true
				}
				continue
			}
			if !bytes.HasPrefix(env, needle) && !bytes.Contains(env, append([]byte{0}, needle...)) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				again = true
			}
		}
		if !again {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// zombie reports whether pid has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z'
}
