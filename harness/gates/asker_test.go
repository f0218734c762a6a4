package gates

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/testenv"
	"github.com/strom-research/strom/statefiles"
)

// A gate program's answer is what it printed and its exit, whatever it left running:
// a background process that still holds its stdout or stderr neither turns a go into
// a failure nor outlives the question.
func TestAskerProgramLeavesChild(t *testing.T) {
	t.Parallel()
	const answer = `echo '{"verdict":"go","reason":"all clear"}'`
	tests := []struct {
		name    string
		script  string // $PIDS is a folder for the pid files
		pids    []string
		verdict string
		err     string
	}{
		{name: "a child holding stdout",
			script: answer + "\nsleep 300 &\necho $! > \"$PIDS/child\"",
			pids:   []string{"child"}, verdict: Go},
		{name: "a child holding stderr",
			script: answer + "\nsleep 300 >/dev/null &\necho $! > \"$PIDS/child\"",
			pids:   []string{"child"}, verdict: Go},
		{name: "a child holding nothing",
			script: answer + "\nsleep 300 >/dev/null 2>&1 &\necho $! > \"$PIDS/child\"",
			pids:   []string{"child"}, verdict: Go},
		{name: "a grandchild holding stdout",
			script: answer + "\nsh -c 'sleep 300 & echo $! > \"$PIDS/g.tmp\"; mv \"$PIDS/g.tmp\" \"$PIDS/grandchild\"; wait' &\n" +
				"echo $! > \"$PIDS/child\"\nwhile [ ! -e \"$PIDS/grandchild\" ]; do :; done",
			pids: []string{"child", "grandchild"}, verdict: Go},
		{name: "an answer after the child started",
			script: "sleep 300 &\necho $! > \"$PIDS/child\"\n" + answer,
			pids:   []string{"child"}, verdict: Go},
		{name: "a failure with a child holding stderr",
			script: "sleep 300 &\necho $! > \"$PIDS/child\"\necho boom >&2\nexit 3",
			pids:   []string{"child"}, err: "failed with exit 3: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			pids := filepath.Join(tmp, "pids")
			config := filepath.Join(tmp, "config")
			getenv := func(k string) string {
				if k == "XDG_CONFIG_HOME" {
					return config
				}
				return os.Getenv(k)
			}
			prog := Program(getenv, "fake")
			research := filepath.Join(tmp, "research")
			for _, d := range []string{pids, filepath.Dir(prog), research} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			script := "#!/bin/sh\nexport PIDS='" + pids + "'\n" + tt.script + "\n"
			if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			a := &Asker{Tree: statefiles.At(research), Clock: clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)),
				Getenv: getenv, Spec: Spec{Name: "fake"}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan Reply, 1)
			go func() { done <- a.Ask(ctx) }()
			files := make([]string, len(tt.pids))
			for i, p := range tt.pids {
				files[i] = filepath.Join(pids, p)
			}
			rep := testenv.WaitAnswer(t, done, cancel, files...)
			switch {
			case tt.err != "" && (rep.Err == nil || !strings.Contains(rep.Err.Error(), tt.err)):
				t.Errorf("Ask = %+v, want the error %q", rep, tt.err)
			case tt.err == "" && rep.Err != nil:
				t.Errorf("Ask = error %v, want the answer %s", rep.Err, tt.verdict)
			case rep.Verdict != tt.verdict:
				t.Errorf("Ask = %+v, want the verdict %q", rep, tt.verdict)
			}
		})
	}
}
