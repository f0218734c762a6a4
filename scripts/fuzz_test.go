// Package scripts holds the repository's shell scripts (make demo, make bench,
// make fuzz); its tests run them on a tree of their own with a fake go command,
// so that what a script promises holds without its real, long work. The release
// (make release) is built for real, for one platform (release_test.go).
package scripts

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeGo is the go command fuzz.sh calls: it notes when each target starts and
// ends and at what niceness, and answers as go test -fuzz does. FuzzA and FuzzB
// wait for each other, so they pass only when they run at the same time; FuzzC
// fails; FuzzD ends as Go's coordinator ends a target at its deadline, FuzzE so
// and with a panic.
const fakeGo = `#!/bin/sh
name=$(echo "$5" | tr -d '^$')
echo "start $name $(nice)" >>"$CALLS"
case $name in
FuzzA|FuzzB)
	touch "$MEET/$name"
	i=0
	until [ -e "$MEET/FuzzA" ] && [ -e "$MEET/FuzzB" ]; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then echo "$name ran alone"; echo "end $name" >>"$CALLS"; exit 3; fi
		sleep 0.05
	done
	echo "fuzz: elapsed: 0s, execs: 1 (1/sec), new interesting: 0 (total: 1)"
	echo "fuzz: elapsed: 1s, execs: 42 (42/sec), new interesting: 0 (total: 1)"
	echo PASS
	echo "end $name" >>"$CALLS"
	;;
FuzzD)
	echo "fuzz: elapsed: 1s, execs: 7 (7/sec), new interesting: 0 (total: 1)"
	echo "--- FAIL: $name (1.00s)"
	echo "    context deadline exceeded"
	echo FAIL
	echo "exit status 1"
	echo "end $name" >>"$CALLS"
	exit 1
	;;
FuzzE)
	echo "--- FAIL: $name (1.00s)"
	echo "    context deadline exceeded"
	echo "    panic: index out of range"
	echo "end $name" >>"$CALLS"
	exit 1
	;;
*)
	echo "--- FAIL: $name"
	echo "    Failing input written to testdata/fuzz/$name/0123"
	echo "end $name" >>"$CALLS"
	exit 1
	;;
esac
`

type fuzzRun struct {
	out   string   // what the script printed, stdout and stderr
	code  int      // its exit status
	calls []string // "start NAME NICENESS" and "end NAME", in the order they came
	logs  string   // the folder of the targets' logs
}

// runFuzz runs a copy of scripts/fuzz.sh in a tree of three targets (FuzzA and
// FuzzB in ./a, FuzzC in ./b) with the fake go command.
func runFuzz(t *testing.T, env []string, args ...string) fuzzRun {
	t.Helper()
	root := t.TempDir()
	script, err := os.ReadFile("fuzz.sh")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"scripts/fuzz.sh":    string(script),
		"bin/go":             fakeGo,
		"a/a_test.go":        "package a\n\nfunc FuzzA(f *testing.F) {}\n\nfunc FuzzB(f *testing.F) {}\n",
		"b/b_test.go":        "package b\n\nfunc FuzzC(f *testing.F) {}\n",
		".cache/c/c_test.go": "package c\n\nfunc FuzzCached(f *testing.F) {}\n",
		"d/d_test.go":        "package d\n\nfunc FuzzD(f *testing.F) {}\n\nfunc FuzzE(f *testing.F) {}\n",
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := fuzzRun{logs: filepath.Join(root, "logs")}
	calls, meet := filepath.Join(root, "calls"), filepath.Join(root, "meet")
	if err := os.Mkdir(meet, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), "bash", append([]string{filepath.Join(root, "scripts", "fuzz.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "GO="+filepath.Join(root, "bin", "go"), "CALLS="+calls, "MEET="+meet,
		"LOGS="+run.logs, "FUZZTIME=1s", "JOBS=", "RUN=", "NICE=", "PARALLEL=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	run.out = string(out)
	if ee, ok := err.(*exec.ExitError); ok {
		run.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(calls); err == nil {
		run.calls = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return run
}

// atOnce is the most targets that ran at the same time.
func (r fuzzRun) atOnce() int {
	n, most := 0, 0
	for _, c := range r.calls {
		if strings.HasPrefix(c, "start ") {
			n++
		} else {
			n--
		}
		most = max(most, n)
	}
	return most
}

// TestFuzzJobs: JOBS=2 runs the targets two at a time and no more, each with a
// log of its own; the summary names the target that failed, with its log, and
// the script fails.
func TestFuzzJobs(t *testing.T) {
	t.Parallel()
	r := runFuzz(t, []string{"JOBS=2"}, "FuzzA", "FuzzB", "FuzzC")
	if r.code != 1 {
		t.Errorf("exit status %d with FuzzC failing, want 1:\n%s", r.code, r.out)
	}
	if n := r.atOnce(); n != 2 {
		t.Errorf("%d targets at once with JOBS=2, want 2: %v", n, r.calls)
	}
	if len(r.calls) != 6 {
		t.Errorf("the targets run, want FuzzA, FuzzB, FuzzC: %v", r.calls)
	}
	for _, want := range []string{
		"ok   ./a FuzzA  ", "elapsed: 1s, execs: 42, new interesting: 0 (total: 1)", "ok   ./a FuzzB  ",
		"FAIL ./b FuzzC  ", filepath.Join(r.logs, "b.FuzzC.log"), "Failing input written to testdata/fuzz/FuzzC/0123",
		"failed: ./b FuzzC\n",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("the output says no %q:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.out, "FuzzCached") {
		t.Errorf("a target under .cache/ ran:\n%s", r.out)
	}
	for name, want := range map[string]string{
		"a.FuzzA": "fuzz: elapsed: 1s, execs: 42", "a.FuzzB": "fuzz: elapsed: 1s, execs: 42", "b.FuzzC": "--- FAIL: FuzzC",
	} {
		if b, err := os.ReadFile(filepath.Join(r.logs, name+".log")); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("the log of %s does not say %q: %v %q", name, want, err, b)
		}
	}
}

// TestFuzzNamed: targets named as arguments run alone; a name no target has
// fails the summary, and the others still run.
func TestFuzzNamed(t *testing.T) {
	t.Parallel()
	r := runFuzz(t, []string{"JOBS=2"}, "FuzzA", "FuzzB")
	if r.code != 0 || !strings.Contains(r.out, "2 fuzz targets, each 1s, 2 at a time, passed") {
		t.Errorf("FuzzA and FuzzB, named: exit status %d:\n%s", r.code, r.out)
	}
	r = runFuzz(t, []string{"JOBS=2"}, "FuzzA", "FuzzNoSuch", "FuzzB")
	if r.code != 1 || !strings.Contains(r.out, "failed: FuzzNoSuch: no fuzz target has this name (RUN=.)") {
		t.Errorf("a name no target has: exit status %d:\n%s", r.code, r.out)
	}
	if !strings.Contains(r.out, "ok   ./a FuzzA") || !strings.Contains(r.out, "ok   ./a FuzzB") {
		t.Errorf("the targets named beside the one missing did not run:\n%s", r.out)
	}
}

// TestFuzzOneAtATime: without JOBS (make fuzz) one target runs at a time, its
// output shown as it runs; RUN chooses the targets, and a RUN no target matches
// fails.
func TestFuzzOneAtATime(t *testing.T) {
	t.Parallel()
	r := runFuzz(t, []string{"RUN=^FuzzC$"})
	if r.code != 1 || r.atOnce() != 1 || len(r.calls) != 2 {
		t.Errorf("RUN=^FuzzC$: exit status %d, calls %v:\n%s", r.code, r.calls, r.out)
	}
	shown, summary := strings.Index(r.out, "--- FAIL: FuzzC"), strings.Index(r.out, "== summary")
	if shown < 0 || summary < shown {
		t.Errorf("the target's output is not shown as it runs:\n%s", r.out)
	}
	r = runFuzz(t, []string{"RUN=NoSuch"})
	if r.code != 1 || !strings.Contains(r.out, "failed: no fuzz target's name matches RUN=NoSuch") || len(r.calls) != 0 {
		t.Errorf("RUN=NoSuch: exit status %d, calls %v:\n%s", r.code, r.calls, r.out)
	}
}

// TestFuzzNiced: every target runs under nice -n NICE.
func TestFuzzNiced(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(context.Background(), "nice").Output()
	if err != nil {
		t.Fatal(err)
	}
	own, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	r := runFuzz(t, []string{"JOBS=2", "NICE=3"}, "FuzzA", "FuzzB")
	want := strconv.Itoa(min(own+3, 19))
	for _, c := range r.calls {
		if f := strings.Fields(c); f[0] == "start" && f[2] != want {
			t.Errorf("%s ran at niceness %s, want %s", f[1], f[2], want)
		}
	}
}

// TestFuzzJobsRefused: JOBS that is not a whole number of 1 or more is refused
// with one sentence, and nothing runs.
func TestFuzzJobsRefused(t *testing.T) {
	t.Parallel()
	for _, jobs := range []string{"0", "x", "-1", "1.5"} {
		r := runFuzz(t, []string{"JOBS=" + jobs})
		want := `fuzz.sh: JOBS takes a whole number of targets at a time, 1 or more, not "` + jobs + `"` + "\n"
		if r.code != 2 || r.out != want || len(r.calls) != 0 {
			t.Errorf("JOBS=%s: exit status %d, calls %v:\n%s", jobs, r.code, r.calls, r.out)
		}
	}
}

// TestFuzzCoordinatorDeadline: a target whose one failure is Go's coordinator's
// "context deadline exceeded", with no failing input, passes and the summary says
// why; the same line beside a panic fails.
func TestFuzzCoordinatorDeadline(t *testing.T) {
	t.Parallel()
	r := runFuzz(t, nil, "FuzzD")
	if r.code != 0 || !strings.Contains(r.out, "ok   ./d FuzzD  ") || !strings.Contains(r.out, "s  elapsed: 1s, execs: 7, new interesting: 0 (total: 1)  (ended by the coordinator's deadline, golang/go#75804: no failing input)") {
		t.Errorf("FuzzD: exit status %d:\n%s", r.code, r.out)
	}
	r = runFuzz(t, nil, "FuzzD", "FuzzE")
	if r.code != 1 || !strings.Contains(r.out, "failed: ./d FuzzE\n") || strings.Contains(r.out, "failed: ./d FuzzD") {
		t.Errorf("FuzzD and FuzzE: exit status %d:\n%s", r.code, r.out)
	}
}
