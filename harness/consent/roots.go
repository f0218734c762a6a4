package consent

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/statefiles"
)

// rootsMax is how many HEAD commits the cache of root commits remembers.
const rootsMax = 64

// rootsBack is how far back along HEAD's first parents a commit the cache knows is
// looked for before the whole history is walked.
const rootsBack = 256

// RootsFile is the cache of root commits in the user's cache folder
// ($XDG_CACHE_HOME/strom/roots), "" when there is none. It lives outside the
// research, where no commit can put an entry, and deleting it only costs a git
// process.
func RootsFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "strom", "roots")
}

// cachedRoots are the root commits kept, by the HEAD commit each was kept for.
func cachedRoots(file string) map[string]string {
	out := map[string]string{}
	for _, l := range rootLines(file) {
		if h, root, ok := strings.Cut(l, " "); ok {
			out[h] = root
		}
	}
	return out
}

// keepRoot remembers head's root commit, newest last, at most rootsMax of them. A
// cache that cannot be written only means the next command asks git again.
func keepRoot(file, head, root string) {
	if file == "" {
		return
	}
	lines := append(rootLines(file), head+" "+root)
	if len(lines) > rootsMax {
		lines = lines[len(lines)-rootsMax:]
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	_ = statefiles.WriteAtomic(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func rootLines(file string) []string {
	if file == "" {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && isHex(f[0]) && isHex(f[1]) {
			out = append(out, f[0]+" "+f[1])
		}
	}
	return out
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
