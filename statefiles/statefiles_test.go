package statefiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 9, 12, 4, 0, time.UTC)

func newTree(t *testing.T) *Tree {
	t.Helper()
	root := t.TempDir()
	tr := At(root)
	if err := os.MkdirAll(tr.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tr.SaveQueue(NewQueue()); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestQueueRoundTrip(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	ctx := context.Background()
	var ids []string
	for _, title := range []string{"Find Anna", "Find Jan", "Find Marie"} {
		err := tr.UpdateQueue(ctx, func(q *Queue) error {
			task, err := q.Add(title, "", t0)
			if err == nil {
				ids = append(ids, task.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(ids, ","); got != "T-1,T-2,T-3" {
		t.Fatalf("ids = %s", got)
	}
	if err := tr.MoveTask(ctx, "T-3", "T-1"); err != nil {
		t.Fatal(err)
	}
	if err := tr.MoveTask(ctx, "T-1", "T-1"); err == nil || !strings.Contains(err.Error(), "cannot move before itself") {
		t.Fatalf("a task moved before itself: %v", err)
	}
	q, err := tr.LoadQueue()
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, task := range q.Tasks {
		order = append(order, task.ID)
	}
	if got := strings.Join(order, ","); got != "T-3,T-1,T-2" {
		t.Fatalf("order = %s", got)
	}
}

func TestIDsNeverReused(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	// A hand edit that removed next_id's lead: the file says next_id 1 but holds T-7.
	hand := `{"version":1,"next_id":1,"tasks":[{"id":"T-7","title":"x","state":"open","created":"2026-11-30T09:00:00Z","updated":"2026-11-30T09:00:00Z"}]}`
	if err := os.WriteFile(tr.Path(QueueFile), []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	var id string
	err := tr.UpdateQueue(context.Background(), func(q *Queue) error {
		task, err := q.Add("y", "", t0)
		if task != nil {
			id = task.ID
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if id != "T-8" {
		t.Fatalf("new id = %s, want T-8", id)
	}
}

func TestInvalidFilesNamed(t *testing.T) {
	t.Parallel()
	task := `{"id":"T-1","title":"x","state":"open","created":"2026-11-30T09:00:00Z","updated":"2026-11-30T09:00:00Z"}`
	cases := []struct {
		name, content, pointer, rule string
	}{
		{"bad json", `{"version":1,"next_id":1,"tasks":[`, "", "truncated"},
		{"empty", ``, "", "empty"},
		{"wrong type", `{"version":1,"next_id":"two","tasks":[]}`, "/next_id", "expected integer"},
		{"unknown state", `{"version":1,"next_id":2,"tasks":[` + strings.Replace(task, `"open"`, `"sleeping"`, 1) + `]}`, "/tasks/0/state", "value must be one of"},
		{"duplicate id", `{"version":1,"next_id":2,"tasks":[` + task + `,` + task + `]}`, "/tasks/1/id", "duplicate task id T-1"},
		{"wrong version", `{"version":0,"next_id":1,"done":0,"tasks":[]}`, "/version", "value must be"},
		{"unknown field", `{"version":1,"next_id":1,"tasks":[],"extra":1}`, "", "additionalProperties 'extra' not allowed"},
		{"parked without reason", `{"version":1,"next_id":2,"tasks":[` + strings.Replace(task, `"open"`, `"parked"`, 1) + `]}`, "/tasks/0", "missing properties"},
		{"bad date", `{"version":1,"next_id":2,"tasks":[` + strings.Replace(task, `2026-11-30T09:00:00Z`, `yesterday`, 1) + `]}`, "/tasks/0/created", "is not valid 'date-time'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			if err := os.WriteFile(tr.Path(QueueFile), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := tr.LoadQueue()
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SchemaError", err)
			}
			if se.File != ".strom/queue.json" || se.Pointer != tc.pointer || !strings.Contains(se.Rule, tc.rule) {
				t.Fatalf("got file %q pointer %q rule %q; want pointer %q rule containing %q", se.File, se.Pointer, se.Rule, tc.pointer, tc.rule)
			}
			// A change refused: the file's bytes are untouched.
			err = tr.UpdateQueue(context.Background(), func(q *Queue) error { _, err := q.Add("z", "", t0); return err })
			if err == nil {
				t.Fatal("update of an invalid queue succeeded")
			}
			got, _ := os.ReadFile(tr.Path(QueueFile))
			if string(got) != tc.content {
				t.Fatalf("file changed to %q", got)
			}
		})
	}
}

func TestSaveRefusesToReplaceInvalidFile(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	broken := []byte(`{"version":1,"mode":"holiday"}`)
	if err := os.WriteFile(tr.Path(ModeFile), broken, 0o644); err != nil {
		t.Fatal(err)
	}
	err := tr.SaveMode(&Mode{Version: 1, Mode: ModeArchive})
	var se *SchemaError
	if !errors.As(err, &se) || se.Pointer != "/mode" {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(tr.Path(ModeFile)); string(got) != string(broken) {
		t.Fatal("invalid file was overwritten")
	}
}

// A record cut short, in a file of records, an older segment or an older
// progress.jsonl, is said with its line, and no append goes after it.
func TestProgressTruncatedLine(t *testing.T) {
	t.Parallel()
	good := `{"version":1,"time":"2026-11-30T09:00:00Z","task":"T-1","text":"found it"}` + "\n"
	for _, file := range []string{RecordsFile("T-1"), ProgressDir + "/000001.jsonl", ProgressFile} {
		tr := newTree(t)
		os.MkdirAll(tr.Path(ProgressDir), 0o755)
		os.MkdirAll(tr.Path(RecordsDir), 0o755)
		if err := os.WriteFile(tr.Path(file), []byte(good+`{"version":1,"time":"2026-`), 0o644); err != nil {
			t.Fatal(err)
		}
		err := tr.AppendProgress(context.Background(), Record{Time: t0, Task: "T-1", Text: "more"})
		var se *SchemaError
		if !errors.As(err, &se) || se.Line != 2 || se.File != ".strom/"+file {
			t.Errorf("%s: err = %v, want a SchemaError on line 2", file, err)
		}
		if now, _ := os.ReadFile(tr.Path(file)); string(now) != good+`{"version":1,"time":"2026-` {
			t.Errorf("%s was written to", file)
		}
	}
}

func TestMissingOptionalFilesAreDefaults(t *testing.T) {
	t.Parallel()
	tr := At(t.TempDir())
	if m, err := tr.LoadMode(); err != nil || m.Mode != ModeResearch {
		t.Fatalf("mode = %v, %v", m, err)
	}
	if p, err := tr.LoadPark(); err != nil || len(p.Empty) != 0 {
		t.Fatalf("park = %v, %v", p, err)
	}
	if r, err := tr.LoadProgress(); err != nil || len(r) != 0 {
		t.Fatalf("progress = %v, %v", r, err)
	}
}

func TestFindStopsAtRepoTop(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	os.MkdirAll(filepath.Join(outer, DirName), 0o755)
	repo := filepath.Join(outer, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "sub", "dir"), 0o755)
	if _, err := Find(filepath.Join(repo, "sub", "dir")); !errors.Is(err, ErrNotResearch) {
		t.Fatalf("err = %v, want ErrNotResearch", err)
	}
	os.MkdirAll(filepath.Join(repo, DirName), 0o755)
	tr, err := Find(filepath.Join(repo, "sub", "dir"))
	if err != nil || tr.Root != repo {
		t.Fatalf("tree = %v, %v", tr, err)
	}
}

func TestSettingsResolveOrder(t *testing.T) {
	t.Parallel()
	user := &Config{Version: 1, Settings: map[string]any{"run.minutes": int64(45)}}
	tree := &Config{Version: 1, Settings: map[string]any{"run.minutes": int64(30)}}
	env := map[string]string{}
	s := Settings{User: user, Tree: tree, Getenv: func(k string) string { return env[k] },
		TreeFile: SettingsFile{Shown: ".strom/config.json"}, UserFile: SettingsFile{Shown: "user"}}
	check := func(flag, want string, src Source) {
		t.Helper()
		r, err := s.Resolve("run.minutes", flag)
		if err != nil || r.Value != want || r.Source != src {
			t.Fatalf("flag %q: got %v %v %v, want %s from %s", flag, r.Value, r.Source, err, want, src)
		}
	}
	env["STROM_RUN_MINUTES"] = "20"
	check("15", "15", FromFlag)
	check("", "20", FromEnv)
	env["STROM_RUN_MINUTES"] = ""
	check("", "30", FromTree)
	delete(tree.Settings, "run.minutes")
	check("", "45", FromUser)
	delete(user.Settings, "run.minutes")
	check("", "60", FromDefault)
	if _, err := s.Resolve("run.minutes", "4"); err == nil || !strings.Contains(err.Error(), "5–600") {
		t.Fatalf("out of range flag: %v", err)
	}
	if _, err := s.Resolve("run.speed", ""); err == nil {
		t.Fatal("unknown key resolved")
	}
}

func TestKeysMatchSchema(t *testing.T) {
	t.Parallel()
	// Every key the CLI accepts must be accepted by the schema, at both ends of its range.
	for _, k := range Keys {
		var vals []string
		switch k.Kind {
		case KindInt:
			vals = []string{strconv.Itoa(k.Min), strconv.Itoa(k.Max)}
		case KindEnum:
			vals = k.Values
		case KindURL:
			vals = []string{"https://ntfy.sh/strom-night", "http://127.0.0.1:8080/hook?x=1"}
		default:
			vals = []string{"x y"}
		}
		for _, s := range vals {
			v, err := k.Parse(s)
			if err != nil {
				t.Fatalf("%s %s: %v", k.Name, s, err)
			}
			f := SettingsFile{Path: filepath.Join(t.TempDir(), "config.json"), Shown: "config.json"}
			if err := f.Save(&Config{Version: 1, Settings: map[string]any{k.Name: v}}); err != nil {
				t.Fatalf("%s=%s refused by the schema: %v", k.Name, s, err)
			}
		}
	}
}

// TestURLSetting: an address setting takes http and https URLs only, as its schema
// does for a file written by hand.
func TestURLSetting(t *testing.T) {
	t.Parallel()
	k, err := LookupKey("notify.url")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "ntfy.sh/x", "ftp://host/x", "https://", "https://host/a b", "file:///etc/passwd"} {
		if _, err := k.Parse(bad); err == nil {
			t.Errorf("notify.url %q taken", bad)
		}
	}
	dir := t.TempDir()
	f := SettingsFile{Path: filepath.Join(dir, "config.json"), Shown: "config.json"}
	if err := os.WriteFile(f.Path, []byte(`{"version": 1, "settings": {"notify.url": "ntfy.sh/x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Load(); err == nil || !strings.Contains(err.Error(), "notify.url") {
		t.Fatalf("a settings file with notify.url ntfy.sh/x loaded: %v", err)
	}
}

// TestConcurrentAppends starts 16 processes that each append 10 records at once; none
// may be lost and the records must stay valid. The records are long enough that
// the appends start new segments on the way: none passes the segment limit.
func TestConcurrentAppends(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	const procs, each = 16, 10
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=TestHelperAppend")
		cmd.Env = append(os.Environ(), "STROM_HELPER_APPEND="+tr.Root, "STROM_HELPER_N="+strconv.Itoa(each), "STROM_HELPER_ID="+strconv.Itoa(i), "STROM_HELPER_PAD=5000")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := tr.LoadProgress()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != procs*each {
		t.Fatalf("%d records, want %d", len(recs), procs*each)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Text] = true
	}
	if len(seen) != procs*each {
		t.Fatalf("%d distinct records, want %d", len(seen), procs*each)
	}
	if got, err := tr.TaskRecords(t.Context(), "T-1"); err != nil || len(got) != procs*each {
		t.Errorf("T-1: %d records, %v", len(got), err)
	}
}

func TestHelperAppend(t *testing.T) {
	root := os.Getenv("STROM_HELPER_APPEND")
	if root == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv("STROM_HELPER_N"))
	tr := At(root)
	for i := 0; i < n; i++ {
		pad, _ := strconv.Atoi(os.Getenv("STROM_HELPER_PAD"))
		text := fmt.Sprintf("process %s record %d %s", os.Getenv("STROM_HELPER_ID"), i, strings.Repeat("x", pad))
		if err := tr.AppendProgress(context.Background(), Record{Time: time.Now(), Task: "T-1", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTaskStateChanges(t *testing.T) {
	t.Parallel()
	q := NewQueue()
	task, _ := q.Add("a", "", t0)
	if err := task.AnswerQuestion("yes", t0); err == nil {
		t.Fatal("answered a task that is not waiting")
	}
	task.State = Waiting
	task.Questions = []Question{{Question: "which Anna?", Asked: t0}}
	if err := task.Park("kept for later", t0); err != nil {
		t.Fatal(err)
	}
	if err := task.Unpark(t0); err != nil || task.State != Waiting {
		t.Fatalf("unpark: %v %s", err, task.State)
	}
	if err := task.AnswerQuestion("the one born 1850", t0); err != nil || task.State != Open || task.Questions[0].Answer == "" {
		t.Fatalf("answer: %v %+v", err, task)
	}
	if _, err := q.Add("  ", "", t0); err == nil {
		t.Fatal("empty title accepted")
	}
	if _, err := q.Find("T-99"); !errors.Is(err, ErrUnknownTask) {
		t.Fatalf("find: %v", err)
	}
}

// TestTryLockFile: a lock held through one open file is seen as held through
// another (flock locks belong to the open file), and free again after unlock.
func TestTryLockFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run", "run.lock")
	unlock, held, err := TryLockFile(path)
	if err != nil || held {
		t.Fatalf("first TryLockFile: held %v, %v", held, err)
	}
	if _, held, err := TryLockFile(path); err != nil || !held {
		t.Fatalf("second TryLockFile while locked: held %v, %v", held, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := LockFile(ctx, path, "the run lock"); err == nil || !strings.Contains(err.Error(), "lock the run lock") {
		t.Errorf("LockFile while locked = %v, want it to give up naming the file", err)
	}
	unlock()
	again, held, err := TryLockFile(path)
	if err != nil || held {
		t.Fatalf("TryLockFile after unlock: held %v, %v", held, err)
	}
	again()
}
