package merge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/statefiles"
)

// TestInstall: the drivers and .strom/.gitattributes are put in place once; a
// second Install with the same strom changes nothing, one with another strom
// names it in every driver.
func TestInstall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	g, err := gitrepo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := statefiles.At(dir)
	if err := os.MkdirAll(tree.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		strom   string
		changed bool
	}{{"/opt/strom/strom", true}, {"/opt/strom/strom", false}, {"/usr/local/bin/strom", true}} {
		changed, err := Install(ctx, g, tree, tc.strom)
		if err != nil || changed != tc.changed {
			t.Fatalf("Install %d with %s: changed %v, %v; want %v", i+1, tc.strom, changed, err, tc.changed)
		}
		for _, d := range drivers {
			if got, _ := g.Config(ctx, "merge."+d.name+".driver"); !strings.HasPrefix(got, tc.strom+" hooks merge-driver "+d.kind) {
				t.Errorf("merge.%s.driver = %q", d.name, got)
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(tree.Dir, statefiles.AttributesFile)); string(data) != statefiles.Attributes {
		t.Errorf(".strom/.gitattributes:\n%s", data)
	}
}
