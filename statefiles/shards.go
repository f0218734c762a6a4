package statefiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// The tasks of a version 3 queue live in shard files of a hundred ids each:
// T-1…T-99 in .strom/tasks/T-1-99.json, T-100…T-199 in .strom/tasks/T-100-199.json.
// A shard is {"tasks": [ … ]}, pretty-printed, its tasks sorted by id number, each
// task as a task's file was in version 2; the shard schema governs the file, the
// task schema each task, and code what the schemas cannot say: every id in the
// file's range, sorted, none twice. A research of 20,000 tasks has 200 files
// for git to look at, not 20,000, and a session's diff is its task's lines.
//
// A write validates the tasks it changes and no other: a shard's other tasks are
// byte for byte (compacted) what was read, and what was read was valid; the
// written shard's bytes go to the memo, so the next read validates nothing.

// ShardSize is how many ids a shard file holds.
const ShardSize = 100

// shardRange is the range of ids of the shard that holds T-n.
func shardRange(n int) (lo, hi int) {
	lo = n / ShardSize * ShardSize
	hi = lo + ShardSize - 1
	if lo == 0 {
		lo = 1
	}
	return lo, hi
}

// hundredFile names the file of a hundred ids under dir that holds T-n, e.g.
// "tasks/T-1200-1299.json" for T-1234.
func hundredFile(dir, ext string, n int) string {
	lo, hi := shardRange(n)
	return dir + "/T-" + strconv.Itoa(lo) + "-" + strconv.Itoa(hi) + ext
}

// hundredOf returns the range of ids a path relative to .strom/ holds when it is
// a file of a hundred under dir named so ("tasks/T-100-199.json" → 100, 199).
func hundredOf(rel, dir, ext string) (lo, hi int, ok bool) {
	name, ok1 := strings.CutPrefix(rel, dir+"/T-")
	a, _, ok2 := strings.Cut(name, "-")
	n, err := strconv.Atoi(a)
	if !ok1 || !ok2 || err != nil || n <= 0 || hundredFile(dir, ext, n) != rel {
		return 0, 0, false
	}
	lo, hi = shardRange(n)
	return lo, hi, true
}

// shardOf names the shard file of T-n relative to .strom/.
func shardOf(n int) string { return hundredFile(TasksDir, ".json", n) }

// ShardFile names the shard file that holds task id, relative to .strom/ (e.g.
// "tasks/T-1200-1299.json" for T-1234).
func ShardFile(id string) string { return shardOf(idNumber(id)) }

// ShardOfFile returns the range of ids a path relative to .strom/ holds when it is
// a shard file ("tasks/T-100-199.json" → 100, 199).
func ShardOfFile(rel string) (lo, hi int, ok bool) { return hundredOf(rel, TasksDir, ".json") }

// shardDoc is a shard file's shape.
type shardDoc struct {
	Tasks []Task `json:"tasks"`
}

// shardSum names a shard's bytes valid under the shard schema and the task schema
// together (a change of either validates every shard again).
func shardSum(data []byte) sum {
	return schemasSum("shard\x00", []string{schemas.Shard, schemas.Task}, data)
}

// shardSetSum names a set of shards validated together (a queue read whole).
func shardSetSum(names []string, data [][]byte) sum {
	parts := make([][]byte, 0, 3*len(names))
	for i, name := range names {
		one := sha256.Sum256(data[i])
		parts = append(parts, []byte(name), []byte{0}, one[:])
	}
	return schemasSum("shards\x00", []string{schemas.Shard, schemas.Task}, parts...)
}

// readSet reads the files rels (under .strom/) and gives each to parse with its
// bytes; valid says the memo knows the set, read whole before (the same bytes
// under the same schemas, memo.go), so parse need only decode. A set parse
// takes goes to the memo: a queue read whole asks and tells it once.
func (t *Tree) readSet(rels []string, parse func(rel string, data []byte, valid bool) error) error {
	raw := make([][]byte, len(rels))
	for i, rel := range rels {
		var err error
		if raw[i], err = readFile(t.Path(rel)); err != nil {
			return readError(t.rel(rel), err)
		}
	}
	set := shardSetSum(rels, raw)
	valid := validated.has(set)
	for i, rel := range rels {
		if err := parse(rel, raw[i], valid); err != nil {
			return err
		}
	}
	validated.remember(set)
	return nil
}

// ParseShard validates the bytes of the shard file rel under .strom/ (on disk,
// staged or committed), naming them shown in errors, and returns its tasks in id
// order.
func ParseShard(shown, rel string, data []byte) ([]Task, error) {
	s := shardSum(data)
	valid := validated.has(s)
	tasks, err := parseShard(shown, rel, data, valid)
	if err == nil && !valid {
		validated.remember(s)
	}
	return tasks, err
}

// parseShard is ParseShard without the memo: valid says the bytes are known to
// be valid under the schemas, so that only code's own rules are checked.
func parseShard(shown, rel string, data []byte, valid bool) ([]Task, error) {
	lo, hi, ok := ShardOfFile(rel)
	if !ok {
		return nil, NotShard(shown)
	}
	if !valid {
		if err := validate(shown, 0, schemas.Shard, data); err != nil {
			return nil, err
		}
		var raw struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, &SchemaError{File: shown, Rule: err.Error()}
		}
		for i, one := range raw.Tasks {
			if err := validateTaskAt(shown, i, one); err != nil {
				return nil, err
			}
		}
	}
	var d shardDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if err := checkShard(shown, lo, hi, d.Tasks); err != nil {
		return nil, err
	}
	return d.Tasks, nil
}

// NotShard is the error for a file in .strom/tasks/ of a version 3 queue that is
// not a shard (shown names it).
func NotShard(shown string) error { return &SchemaError{File: shown, Rule: notShard} }

const notShard = "only files of a hundred tasks named like T-100-199.json belong in " + DirName + "/" + TasksDir

// validateTaskAt validates one task of a shard, the i-th, against the task schema.
func validateTaskAt(shown string, i int, data []byte) error {
	err := validate(shown, 0, schemas.Task, data)
	var se *SchemaError
	if errors.As(err, &se) {
		se.Pointer = fmt.Sprintf("/tasks/%d", i) + se.Pointer
	}
	return err
}

// checkShard checks what the schemas cannot say of a shard: every id in the file's
// range, sorted by number, none twice.
func checkShard(shown string, lo, hi int, tasks []Task) error {
	prev := 0
	for i, task := range tasks {
		n := idNumber(task.ID)
		ptr := fmt.Sprintf("/tasks/%d/id", i)
		switch {
		case n < lo || n > hi:
			return &SchemaError{File: shown, Pointer: ptr, Rule: fmt.Sprintf("task %s does not belong in this file of T-%d to T-%d: move it to %s/%s", task.ID, lo, hi, DirName, shardOf(n))}
		case n == prev:
			return &SchemaError{File: shown, Pointer: ptr, Rule: fmt.Sprintf("task %s is in the file twice: keep one of them", task.ID)}
		case n < prev:
			return &SchemaError{File: shown, Pointer: ptr, Rule: fmt.Sprintf("the tasks are not sorted by id: %s comes after T-%d", task.ID, prev)}
		}
		prev = n
	}
	return nil
}

// compactTask is a task's JSON as a shard holds it, without the indent.
func compactTask(task *Task) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(task); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// rawTasks returns each task of a shard's bytes, compacted, by id. Bytes that do
// not read as a shard give none.
func rawTasks(data []byte) map[string][]byte {
	var raw struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if data == nil || json.Unmarshal(data, &raw) != nil {
		return nil
	}
	out := make(map[string][]byte, len(raw.Tasks))
	for _, one := range raw.Tasks {
		var id struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(one, &id) != nil {
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, one) == nil {
			out[id.ID] = b.Bytes()
		}
	}
	return out
}

// encodeShard returns the bytes of a shard of tasks (sorted by id here), named
// shown in errors. old is the shard's bytes as read (nil: none): a task whose bytes
// are old's is not validated again; every other is. What the shard schema says
// besides its tasks (an object of one array of one to a hundred objects) holds by
// construction: checkShard keeps every id in the file's hundred, and no shard
// is written without a task (FuzzShard holds the bytes to the schema). changed
// lists the ids whose bytes differ from old's.
func encodeShard(shown, rel string, tasks []Task, old []byte) (data []byte, changed []string, err error) {
	lo, hi, ok := ShardOfFile(rel)
	if !ok {
		return nil, nil, &SchemaError{File: shown, Rule: notShard}
	}
	if len(tasks) == 0 {
		return nil, nil, &SchemaError{File: shown, Pointer: "/tasks", Rule: "a file of tasks holds one task at least"}
	}
	tasks = slices.Clone(tasks)
	slices.SortStableFunc(tasks, func(a, b Task) int { return idNumber(a.ID) - idNumber(b.ID) })
	if err := checkShard(shown, lo, hi, tasks); err != nil {
		return nil, nil, err
	}
	was := rawTasks(old)
	var buf bytes.Buffer
	buf.WriteString(`{"tasks":[`)
	for i := range tasks {
		one, err := compactTask(&tasks[i])
		if err != nil {
			return nil, nil, fmt.Errorf("encode %s: %w", shown, err)
		}
		if !bytes.Equal(was[tasks[i].ID], one) {
			if err := validateTaskAt(shown, i, one); err != nil {
				return nil, nil, err
			}
			changed = append(changed, tasks[i].ID)
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(one)
	}
	buf.WriteString("]}")
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, nil, fmt.Errorf("encode %s: %w", shown, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), changed, nil
}

// EncodeShard returns the bytes strom writes for a shard of tasks, all validated;
// the tasks name their shard, and must be at least one.
func EncodeShard(tasks []Task) ([]byte, error) {
	rel := ShardFile("T-1")
	if len(tasks) > 0 {
		rel = ShardFile(tasks[0].ID)
	}
	data, _, err := encodeShard(DirName+"/"+rel, rel, tasks, nil)
	return data, err
}

// shardFiles lists the shard files in .strom/tasks/, relative to .strom/, sorted by
// their ranges.
func (t *Tree) shardFiles() ([]string, error) {
	return t.filesIn(TasksDir, func(name string) (int, bool) {
		lo, _, ok := ShardOfFile(TasksDir + "/" + name)
		return lo, ok
	})
}

// shard is one shard file as read: its bytes (nil when it does not exist) and
// its tasks.
type shard struct {
	rel   string
	data  []byte
	tasks []Task
}

func (s *shard) find(id string) int {
	return slices.IndexFunc(s.tasks, func(task Task) bool { return task.ID == id })
}

// readShard reads and validates a shard file; a missing one is empty.
func (t *Tree) readShard(rel string) (*shard, error) {
	data, err := readOptional(t.Path(rel))
	if err != nil {
		return nil, readError(t.rel(rel), err)
	}
	s := &shard{rel: rel, data: data}
	if data == nil {
		return s, nil
	}
	if s.tasks, err = ParseShard(t.rel(rel), rel, data); err != nil {
		return nil, err
	}
	return s, nil
}

// writeShard writes the shard file rel holding tasks, when its bytes differ from
// old (the file's bytes as read; nil: unknown or none), validating the tasks that
// changed. With no tasks the file is removed. It returns the file's bytes now and
// whether it wrote. note says whether the tasks changed go to the list of tasks
// written (WrittenTasks): a migration's, committed at once, do not.
func (t *Tree) writeShard(rel string, tasks []Task, old []byte, note bool) ([]byte, bool, error) {
	shown := t.rel(rel)
	if len(tasks) == 0 {
		if err := t.drop(rel); err != nil {
			return old, false, err
		}
		return nil, old != nil, nil
	}
	data, changed, err := encodeShard(shown, rel, tasks, old)
	if err != nil {
		return old, false, fmt.Errorf("refuse to write invalid data: %w", err)
	}
	if old != nil && bytes.Equal(old, data) {
		return old, false, nil
	}
	if err := checkWriteSize(shown, data); err != nil {
		return old, false, err
	}
	if err := t.put(rel, data); err != nil {
		return old, false, err
	}
	validated.remember(shardSum(data))
	for _, id := range changed {
		if note {
			t.noteWritten(id)
		}
	}
	return data, true, nil
}

// putTask writes task into its shard s (as read), in the place of the task of its
// id or added.
func (t *Tree) putTask(s *shard, task Task) error {
	tasks := slices.Clone(s.tasks)
	if i := s.find(task.ID); i >= 0 {
		tasks[i] = task
	} else {
		tasks = append(tasks, task)
	}
	data, wrote, err := t.writeShard(s.rel, tasks, s.data, true)
	if err == nil && wrote {
		slices.SortStableFunc(tasks, func(a, b Task) int { return idNumber(a.ID) - idNumber(b.ID) })
		s.tasks, s.data = tasks, data
	}
	return err
}
