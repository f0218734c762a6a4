package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// TestSessionIDPaths: a session id names files under .strom/run/; one from outside
// (STROM_SESSION, a run.json strom did not write) that could lead out of it is
// refused or read as no session, and nothing is written outside.
func TestSessionIDPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"20261130T091204Z-4f2a", true},
		{"run", true},
		{"", false},
		{"..", false},
		{"x/../../../../escaped", false},
		{`x\..\escaped`, false},
		{"-x", false},
		{".hidden", false},
	} {
		if got := research.ValidSessionID(tc.id); got != tc.ok {
			t.Errorf("research.ValidSessionID(%q) = %v, want %v", tc.id, got, tc.ok)
		}
	}

	root := filepath.Join(t.TempDir(), "research")
	tree := statefiles.At(root)
	if err := os.MkdirAll(tree.Path(statefiles.RunDir), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &research.Research{Tree: tree, Clock: clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))}
	escape := "x/../../../escaped"
	if err := runfiles.RequestClose(r, escape, "done"); !errors.Is(err, runfiles.ErrNotLiveSession) {
		t.Errorf("RequestClose(%q) = %v, want ErrNotLiveSession", escape, err)
	}
	if err := session.RequestSend(r, escape, session.Send{Text: "hi"}); !errors.Is(err, runfiles.ErrNotLiveSession) {
		t.Errorf("RequestSend(%q) = %v, want ErrNotLiveSession", escape, err)
	}
	runfiles.NoteActivity(r, escape)
	if _, ok := runfiles.Requested(r, "close", escape); ok {
		t.Error("a request of an escaping id reads as pending")
	}
	if ents, _ := os.ReadDir(filepath.Dir(root)); len(ents) != 1 {
		t.Errorf("%d files beside the research, want none", len(ents)-1)
	}

	run := `{"pid": 1, "host": "h", "session": "../../escaped"}`
	if err := os.WriteFile(tree.Path(statefiles.RunDir, "run.json"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	ri, err := runfiles.LoadRun(r)
	if err != nil || ri == nil || ri.Session != "" {
		t.Errorf("LoadRun = %+v, %v; want a run with no session", ri, err)
	}
}
