package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// killAgent records twice, adds a follow-up task and ends its task: a session
// whose end writes the task, the park counters, the records and a new task. Its own
// strom commands are not killed (the variable is the run's alone).
const killAgent = `#!/bin/sh
unset STROM_TEST_KILL_AT
echo "found in $STROM_SESSION" > "found-$STROM_TASK.txt"
strom record "first finding" >/dev/null
if [ "$STROM_TASK" = T-3 ]; then
	strom ask "Which parish, Tábor or Písek?" >/dev/null
	exit 0
fi
strom record "second finding" >/dev/null
strom task add "Follow-up of $STROM_TASK" >/dev/null
strom done >/dev/null
`

// TestKillAtEveryWrite runs each command that writes state and kills it (SIGKILL)
// at every point where it writes — before and after each write, fsync, rename and
// removal of a state file, and where it takes the lock (statefiles' failpoints,
// STROM_TEST_KILL_AT=n for n = 1, 2, … until the command finishes) — each time on a
// fresh copy of the same research. After each kill the next commands must work
// (no state a person must mend), and what they read must be the state before the
// command or the state after it: no task, record or file lost, none doubled.
func TestKillAtEveryWrite(t *testing.T) {
	withoutRace(t)
	t.Parallel()
	h := newCLIHarness(t)
	if err := os.WriteFile(filepath.Join(h.dir, "agent.sh"), []byte(killAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	h.git(t, "init", "-q")
	h.must(t, "init", "--agent", "command")
	// The person's own agent: the copies of the research below are other folders,
	// where a tree's agent another than the person's would need strom allow.
	h.must(t, "config", "set", "agent.name", "command")
	h.must(t, "config", "set", "agent.command", "sh "+filepath.Join(h.dir, "agent.sh"))
	for i := 1; i <= 4; i++ {
		h.must(t, "task", "add", fmt.Sprintf("Task %d", i), "--body", "text")
	}
	h.must(t, "record", "--task", "T-1", "an earlier finding")
	h.must(t, "task", "park", "T-4", "--why", "needs a person")
	h.git(t, "add", "-A")
	h.git(t, "commit", "-q", "-m", "the research")
	template := h.repo
	// The same research with T-3 waiting for an answer (its session asked), and
	// one whose records are in an older strom's segments.
	waiting := copyResearch(t, template, filepath.Join(h.dir, "waiting"))
	if out, err := runIn(t, h, waiting, nil, "run", "--task", "T-3"); err != nil || !strings.Contains(out, "waiting") {
		t.Fatalf("the session that asks: %v\n%s", err, out)
	}
	older := copyResearch(t, template, filepath.Join(h.dir, "older"))
	records := filepath.Join(older, ".strom", "records", "T-1-99.jsonl")
	data, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(older, ".strom", "progress"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(older, ".strom", "progress", "000001.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(records)
	cmd := exec.Command("sh", "-c", "git add -A && git commit -q --no-verify -m 'the records in segments'")
	cmd.Dir, cmd.Env = older, h.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	// The same research with queue.json of version 3 (the order of every task), as
	// strom wrote it before version 4.
	older3 := copyResearch(t, template, filepath.Join(h.dir, "older3"))
	v3 := `{"version": 3, "next_id": 5, "order": ["T-1", "T-2", "T-3", "T-4"]}` + "\n"
	if err := os.WriteFile(filepath.Join(older3, ".strom", "queue.json"), []byte(v3), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("sh", "-c", "git add -A && git commit -q --no-verify -m 'queue.json of version 3'")
	cmd.Dir, cmd.Env = older3, h.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	// The same research in the layouts of version 2 (a file per task) and 1 (every
	// task in queue.json), each with a change not committed yet (T-2 reworded), which
	// the migration's own commit must leave a change not committed yet.
	older2 := olderLayout(t, h, template, filepath.Join(h.dir, "older2"), 2)
	older1 := olderLayout(t, h, template, filepath.Join(h.dir, "older1"), 1)

	cases := []struct {
		name string
		args []string
		from string // the research it starts from; "" the template
	}{
		{"task add", []string{"task", "add", "A new task", "--body", "its text"}, ""},
		{"task edit", []string{"task", "edit", "T-2", "--title", "Task 2, reworded"}, ""},
		{"task move", []string{"task", "move", "T-3", "--before", "T-1"}, ""},
		{"task park", []string{"task", "park", "T-2", "--why", "wait for the archive"}, ""},
		{"task unpark", []string{"task", "unpark", "T-4"}, ""},
		{"record", []string{"record", "--task", "T-2", "a finding"}, ""},
		{"task summary", []string{"task", "summary", "T-2", "where it stands"}, ""},
		{"note", []string{"note", "what the next session should know"}, ""},
		{"run", []string{"run", "--task", "T-1"}, ""},
		{"run that asks", []string{"run", "--task", "T-3"}, ""},
		{"task answer", []string{"task", "answer", "T-3", "Tábor"}, waiting},
		{"record migrating segments", []string{"record", "--task", "T-2", "a finding"}, older},
		{"task add migrating queue.json 3 to 4", []string{"task", "add", "A new task", "--body", "its text"}, older3},
		{"task add migrating queue.json 2 to 4", []string{"task", "add", "A new task", "--body", "its text"}, older2},
		{"task park migrating queue.json 1 to 4", []string{"task", "park", "T-1", "--why", "wait for the archive"}, older1},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			from := template
			if c.from != "" {
				from = c.from
			}
			after := copyResearch(t, from, filepath.Join(dir, "after"))
			runIn(t, h, after, nil, c.args...)
			want := stateOf(t, h, after)
			before := stateOf(t, h, copyResearch(t, from, filepath.Join(dir, "before")))
			points := 0
			for n := 1; ; n++ {
				repo := copyResearch(t, from, filepath.Join(dir, fmt.Sprint(n)))
				out, err := runIn(t, h, repo, []string{fmt.Sprintf("STROM_TEST_KILL_AT=%d", n)}, c.args...)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
					if err != nil {
						t.Fatalf("strom %s, not killed: %v\n%s", strings.Join(c.args, " "), err, out)
					}
					break // it went past its last write point
				}
				points++
				if strings.HasPrefix(c.name, "run") {
					checkRunResumed(t, h, repo, n, c.args[len(c.args)-1])
					os.RemoveAll(repo)
					continue
				}
				if out, err := runIn(t, h, repo, nil, "status"); err != nil {
					t.Fatalf("killed at write point %d of strom %s: strom status then failed: %v\n%s", n, c.name, err, out)
				}
				got := stateOf(t, h, repo)
				if got != before && got != want {
					t.Fatalf("killed at write point %d of strom %s, the next command read a state that is neither before nor after:\n%s\nbefore:\n%s\nafter:\n%s", n, c.name, got, before, want)
				}
				os.RemoveAll(repo)
			}
			if points == 0 {
				t.Fatalf("strom %s passed no write point: STROM_TEST_KILL_AT had no effect", c.name)
			}
			t.Logf("strom %s: killed at each of its %d write points", c.name, points)
		})
	}
}

// olderLayout copies the research at from to to with its queue in the layout of
// version 2 (a file per task) or 1 (every task in queue.json), committed, and then
// T-2 reworded in the work tree.
func olderLayout(t *testing.T, h *cliHarness, from, to string, version int) string {
	t.Helper()
	copyResearch(t, from, to)
	shard := filepath.Join(to, ".strom", "tasks", "T-1-99.json")
	data, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Tasks []json.RawMessage }
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	os.Remove(shard)
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(to, ".strom", rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks := make([]string, len(s.Tasks))
	ids := make([]string, len(s.Tasks))
	for i, one := range s.Tasks {
		var task struct{ ID string }
		if err := json.Unmarshal(one, &task); err != nil {
			t.Fatal(err)
		}
		tasks[i], ids[i] = string(one), fmt.Sprintf("%q", task.ID)
		if version == 2 {
			write("tasks/"+task.ID+".json", tasks[i]+"\n")
		}
	}
	if version == 2 {
		write("queue.json", `{"version": 2, "next_id": 5, "order": [`+strings.Join(ids, ", ")+`]}`+"\n")
	} else {
		os.Remove(filepath.Dir(shard))
		write("queue.json", `{"version": 1, "next_id": 5, "tasks": [`+strings.Join(tasks, ",\n")+`]}`+"\n")
	}
	cmd := exec.Command("sh", "-c", fmt.Sprintf("git add -A && git commit -q --no-verify -m 'queue.json of version %d'", version))
	cmd.Dir, cmd.Env = to, h.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rel := "queue.json"
	if version == 2 {
		rel = "tasks/T-2.json"
	}
	data, err = os.ReadFile(filepath.Join(to, ".strom", rel))
	if err != nil || !bytes.Contains(data, []byte(`"Task 2"`)) {
		t.Fatalf("%s holds no task 2: %v\n%s", rel, err, data)
	}
	write(rel, strings.Replace(string(data), `"Task 2"`, `"Task 2, reworded"`, 1))
	return to
}

// copyResearch copies the research at from (its git folder too) to to.
func copyResearch(t *testing.T, from, to string) string {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return to
}

func runIn(t *testing.T, h *cliHarness, repo string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(h.strom, args...)
	cmd.Dir, cmd.Env = repo, append(append([]string{}, h.env...), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// stateOf is what a person reads of the research, without times: the mode, every
// task (id, title, state, text, reason) in queue order with its records' texts,
// and the files of the work tree with what git says of them. A second `strom
// status` and `strom task list` must work too.
func stateOf(t *testing.T, h *cliHarness, repo string) string {
	t.Helper()
	out, err := runIn(t, h, repo, nil, "task", "list", "--all", "--json")
	if err != nil {
		t.Fatalf("strom task list: %v\n%s", err, out)
	}
	var tasks []struct {
		ID, Title, Body, State, Reason string
		Summary                        *struct{ Text string }
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &tasks); err != nil {
		t.Fatalf("strom task list --json: %v\n%s", err, out)
	}
	var b strings.Builder
	mode, _ := os.ReadFile(filepath.Join(repo, ".strom", "mode.json"))
	fmt.Fprintf(&b, "mode archive=%v\n", strings.Contains(string(mode), `"archive"`))
	note, err := runIn(t, h, repo, nil, "note", "--json")
	if err != nil {
		t.Fatalf("strom note: %v\n%s", err, note)
	}
	var n struct{ Note *struct{ Text string } }
	if err := json.Unmarshal([]byte(note[strings.Index(note, "{"):]), &n); err != nil {
		t.Fatalf("strom note --json: %v\n%s", err, note)
	}
	if n.Note != nil {
		fmt.Fprintf(&b, "note %q\n", n.Note.Text)
	}
	for _, task := range tasks {
		fmt.Fprintf(&b, "%s %q %q %s %q:", task.ID, task.Title, task.Body, task.State, task.Reason)
		if task.Summary != nil {
			fmt.Fprintf(&b, " summary %q:", task.Summary.Text)
		}
		out, err := runIn(t, h, repo, nil, "task", "show", task.ID, "--json")
		if err != nil {
			t.Fatalf("strom task show %s: %v\n%s", task.ID, err, out)
		}
		var shown struct{ Records []struct{ Text string } }
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &shown); err != nil {
			t.Fatalf("strom task show --json: %v\n%s", err, out)
		}
		for _, r := range shown.Records {
			fmt.Fprintf(&b, " %q", r.Text)
		}
		b.WriteString("\n")
	}
	files, _ := filepath.Glob(filepath.Join(repo, "found-*.txt"))
	for _, f := range files {
		fmt.Fprintf(&b, "file %s\n", filepath.Base(f))
	}
	return b.String()
}

// checkRunResumed checks a research whose strom run was killed at its write point
// n: rerunning strom run is the whole recovery. After it the task is done, the
// agent's file and records are committed, the work tree is clean, and strom status
// works.
func checkRunResumed(t *testing.T, h *cliHarness, repo string, n int, task string) {
	t.Helper()
	// The killed run may have ended the task already: the rerun then commits what
	// it left and skips the task ("· T-1 skipped: it is done"); it fails for no
	// other reason.
	out, err := runIn(t, h, repo, nil, "run", "--task", task)
	if err != nil && !strings.Contains(out, "· "+task+" skipped: it is ") {
		t.Fatalf("killed at write point %d of strom run, the rerun failed: %v\n%s", n, err, out)
	}
	if out, err := runIn(t, h, repo, nil, "status"); err != nil {
		t.Fatalf("killed at write point %d of strom run: strom status after the rerun failed: %v\n%s", n, err, out)
	}
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir, cmd.Env = repo, h.env
	if st, err := cmd.Output(); err != nil || len(st) > 0 {
		t.Fatalf("killed at write point %d of strom run, after the rerun git status says: %s %v", n, st, err)
	}
	state := stateOf(t, h, repo)
	end := map[string]string{"T-1": "done", "T-3": "waiting"}[task]
	title := map[string]string{"T-1": "Task 1", "T-3": "Task 3"}[task]
	if !strings.Contains(state, fmt.Sprintf("%s %q \"text\" %s", task, title, end)) || !strings.Contains(state, `"first finding"`) || !strings.Contains(state, "file found-"+task+".txt") {
		t.Fatalf("killed at write point %d of strom run, after the rerun the research reads:\n%s", n, state)
	}
	cmd = exec.Command("git", "ls-files", "found-"+task+".txt")
	cmd.Dir, cmd.Env = repo, h.env
	if ls, _ := cmd.Output(); len(ls) == 0 {
		t.Fatalf("killed at write point %d of strom run: the agent's file found-%s.txt is not committed", n, task)
	}
}
