package gitrepo

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Benchmark repositories are expensive (200,000 files), so they are built once per
// process and removed by TestMain.
var (
	benchRoot     string
	benchRootOnce sync.Once
	benchRootErr  error
)

func benchDir(b *testing.B) string {
	benchRootOnce.Do(func() { benchRoot, benchRootErr = os.MkdirTemp("", "gitrepo-bench-") })
	if benchRootErr != nil {
		b.Fatal(benchRootErr)
	}
	return benchRoot
}

func cleanupBench() {
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
}

const (
	benchDirs    = 200
	benchSubdirs = 20
	benchFiles   = 50 // per subdirectory: 200·20·50 = 200,000 files
	benchChanged = 100
)

func benchPath(i int) string {
	f := i % benchFiles
	s := i / benchFiles % benchSubdirs
	d := i / benchFiles / benchSubdirs
	return fmt.Sprintf("d%02d/s%02d/f%02d.txt", d, s, f)
}

// fastImport writes a history into an empty repository with one git fast-import:
// one pack, no loose objects, far quicker than git add of 200,000 files.
func fastImport(dir string, write func(w *bufio.Writer)) error {
	cmd := exec.CommandContext(context.Background(), "git", "fast-import", "--quiet")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	write(w)
	w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w: %s", err, stderr.String())
	}
	return nil
}

func data(w *bufio.Writer, s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }

// bigRepo makes a repository of 200,000 committed files in nested directories.
func bigRepo(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if _, err := gitEnvIn(dir, nil, "", "init", "-q"); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"user.name", "Bench"}, {"user.email", "bench@example.org"}} {
		if _, err := gitEnvIn(dir, nil, "", "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	n := benchDirs * benchSubdirs * benchFiles
	err := fastImport(dir, func(w *bufio.Writer) {
		for i := range n {
			fmt.Fprintf(w, "blob\nmark :%d\n", i+1)
			data(w, fmt.Sprintf("file %d of the research tree\nsome text so that it looks like a note\n", i))
		}
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.org> %s\n", testDate)
		data(w, "200,000 files")
		for i := range n {
			fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, benchPath(i))
		}
	})
	if err != nil {
		return err
	}
	// Check the files out; this also writes an index with their stat data.
	if _, err := gitEnvIn(dir, nil, "", "reset", "-q", "--hard"); err != nil {
		return err
	}
	return nil
}

// change rewrites the same 100 files, spread over the tree, with new content.
func change(b *testing.B, dir string, round int) {
	b.Helper()
	n := benchDirs * benchSubdirs * benchFiles
	for k := range benchChanged {
		p := filepath.Join(dir, filepath.FromSlash(benchPath(k*(n/benchChanged)+7)))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("changed in round %d\n", round)), 0o666); err != nil {
			b.Fatal(err)
		}
	}
}

var (
	bigOnce      sync.Once
	bigA, bigB   string
	bigErr       error
	checkpointed int // rounds made so far, so every round changes the files anew
)

func BenchmarkCheckpoint(b *testing.B) {
	ctx := context.Background()
	root := benchDir(b)
	bigOnce.Do(func() {
		bigA, bigB = filepath.Join(root, "checkpoint"), filepath.Join(root, "git")
		errs := make(chan error, 2)
		for _, d := range []string{bigA, bigB} {
			go func() { errs <- bigRepo(d) }()
		}
		for range 2 {
			if err := <-errs; err != nil && bigErr == nil {
				bigErr = err
			}
		}
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	r, err := Open(ctx, bigA)
	if err != nil {
		b.Fatal(err)
	}
	msg := sessionMessage("Changed 100 of 200,000 files.")
	checkpoint := func() {
		// The options of the harness's session commit (harness.commitPaths).
		opts := CheckpointOptions{AllowMarkers: true, AllowEmpty: true, NoVerify: true, FallbackName: "strom", FallbackEmail: "strom@localhost"}
		if _, err := r.Checkpoint(ctx, msg, opts); err != nil {
			b.Fatal(err)
		}
	}
	plain := func() {
		if _, err := gitEnvIn(bigB, nil, "", "add", "-A"); err != nil {
			b.Fatal(err)
		}
		if _, err := gitEnvIn(bigB, nil, "", "commit", "-q", "-m", "x"); err != nil {
			b.Fatal(err)
		}
	}
	if checkpointed == 0 {
		// An untimed first round leaves both indexes fresh, so that neither side
		// pays for re-hashing files the checkout wrote in the same second.
		checkpointed++
		change(b, bigA, 0)
		checkpoint()
		change(b, bigB, 0)
		plain()
	}

	var tCheckpoint, tGit time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		round := checkpointed
		checkpointed++
		change(b, bigA, round)
		change(b, bigB, round)
		// Alternate which side goes first, so that neither always finds a warmer
		// cache.
		steps := []func(){
			func() { s := time.Now(); checkpoint(); tCheckpoint += time.Since(s) },
			func() { s := time.Now(); plain(); tGit += time.Since(s) },
		}
		if i%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		steps[0]()
		steps[1]()
	}
	b.StopTimer()
	cp := float64(tCheckpoint.Nanoseconds()) / float64(b.N)
	plainNs := float64(tGit.Nanoseconds()) / float64(b.N)
	b.ReportMetric(cp, "ns/op")
	b.ReportMetric(cp, "checkpoint-ns/op")
	b.ReportMetric(plainNs, "git-add-commit-ns/op")
	b.ReportMetric(cp/plainNs, "ratio")
}

var (
	logOnce sync.Once
	logRepo *Repo
	logErr  error
)

const logCommits = 2000

// BenchmarkLog reads a history of 2,000 commits, every fourth one a session commit.
func BenchmarkLog(b *testing.B) {
	ctx := context.Background()
	root := benchDir(b)
	logOnce.Do(func() {
		dir := filepath.Join(root, "log")
		if err := os.MkdirAll(dir, 0o777); err != nil {
			logErr = err
			return
		}
		if _, logErr = gitEnvIn(dir, nil, "", "init", "-q"); logErr != nil {
			return
		}
		logErr = fastImport(dir, func(w *bufio.Writer) {
			for i := range logCommits {
				fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.org> %d +0100\n", i+1, 1795000000+i*60)
				msg := fmt.Sprintf("agent commit %d\n\nwork in progress\n", i)
				if i%4 == 3 {
					msg = sessionMessageN(i, "done").String()
				}
				data(w, msg)
				if i > 0 {
					fmt.Fprintf(w, "from :%d\n", i)
				}
				blob := fmt.Sprintf("notes %d\n", i)
				fmt.Fprintf(w, "M 100644 inline notes/%d.md\n", i%50)
				data(w, blob)
			}
		})
		if logErr == nil {
			_, logErr = gitEnvIn(dir, nil, "", "reset", "-q", "--hard")
		}
		if logErr == nil {
			logRepo, logErr = Open(ctx, dir)
		}
	})
	if logErr != nil {
		b.Fatal(logErr)
	}
	for _, c := range []struct {
		name string
		opts LogOptions
		want int
	}{
		{"sessions", LogOptions{TrailerKey: "Strom-Session"}, logCommits / 4},
		{"last-session", LogOptions{TrailerKey: "Strom-Session", Max: 1}, 1},
		{"all", LogOptions{}, logCommits},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				got, err := logRepo.Log(ctx, c.opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != c.want {
					b.Fatalf("got %d commits, want %d", len(got), c.want)
				}
			}
		})
	}
}
