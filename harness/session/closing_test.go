package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/statefiles"
)

// The check command's verdict is its exit, whatever it left running: a background
// process that still holds its output neither keeps the session from closing nor
// outlives the check.
func TestRunCheckLeavesChild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		check string
		want  string // a part of why the check failed, "" for passed
	}{
		{"a child holding the output", `sleep 300 & echo $! > child`, ""},
		{"a child holding nothing", `sleep 300 >/dev/null 2>&1 & echo $! > child`, ""},
		{"a grandchild holding the output", `sh -c 'sleep 300 & echo $! > g.tmp; mv g.tmp grandchild; wait' & echo $! > child; while [ ! -e grandchild ]; do :; done`, ""},
		{"a failure with a child holding the output", `sleep 300 & echo $! > child; echo broken; exit 3`, "exit status 3 (broken)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := &research.Research{Tree: statefiles.At(dir)}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan string, 1)
			go func() { done <- runCheck(ctx, r, tt.check) }()
			files := []string{filepath.Join(dir, "child")}
			if strings.Contains(tt.check, "grandchild") {
				files = append(files, filepath.Join(dir, "grandchild"))
			}
			why := testenv.WaitAnswer(t, done, cancel, files...)
			if tt.want == "" && why != "" || !strings.Contains(why, tt.want) {
				t.Errorf("runCheck(%q) = %q, want %q", tt.check, why, tt.want)
			}
		})
	}
}
