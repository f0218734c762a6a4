package statefiles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/strom-research/strom/schemas"
)

// State is a task's state. The words are stable: they are written to queue.json.
type State string

// Task states.
const (
	Open    State = "open"    // in the queue, waiting for a session
	Started State = "started" // a session holds it
	Waiting State = "waiting" // waits for a person's answer
	Done    State = "done"
	Parked  State = "parked" // set aside with a reason; only a person unparks it
)

// States lists every state in queue order of interest.
var States = []State{Open, Started, Waiting, Done, Parked}

func (s State) String() string { return string(s) }

// ParseState turns a word into a State.
func ParseState(s string) (State, error) {
	for _, st := range States {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown task state %q: use one of open, started, waiting, done, parked", s)
}

// Question is a question an agent asked a person about a task, and the answer.
type Question struct {
	Question string     `json:"question"`
	Asked    time.Time  `json:"asked"`
	Session  string     `json:"session,omitempty"`
	Answer   string     `json:"answer,omitempty"`
	Answered *time.Time `json:"answered,omitempty"`
}

// Task is one entry of the queue.
type Task struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Body    string    `json:"body,omitempty"`
	State   State     `json:"state"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Session string    `json:"session,omitempty"`
	// Host is the machine that claimed the task for its session through the
	// remote (sync.remote); "" for a clone alone.
	Host       string `json:"host,omitempty"`
	Reason     string `json:"reason,omitempty"`
	ParkedFrom State  `json:"parked_from,omitempty"`
	AddedBy    string `json:"added_by,omitempty"`
	// Needs names the archives the task reads (R7.1.1): a run takes it only while
	// each of them answers its probe.
	Needs     []string   `json:"needs,omitempty"`
	Questions []Question `json:"questions,omitempty"`
}

// Queue is .strom/queue.json: the tasks in order. Queue order is file order.
type Queue struct {
	Version int    `json:"version"`
	NextID  int    `json:"next_id"`
	Tasks   []Task `json:"tasks"`
}

// loadedQueue is the file the tree's last loaded or saved Queue was read from or
// written as: its stamp and each task's bytes. SaveQueue validates only the tasks
// that differ from it.
type loadedQueue struct {
	q     *Queue
	stamp stamp
	tasks map[string][]byte
}

// remember keeps what q was read from or written as (only the last queue of each
// tree: a harness loads and saves one at a time, under the lock).
func (t *Tree) rememberQueue(q *Queue, data []byte) {
	st, err := stampOf(t.Path(QueueFile))
	if err != nil || st.Size != int64(len(data)) {
		return
	}
	spans := indentedSpans(data)
	if len(spans) != len(q.Tasks) {
		return
	}
	l := &loadedQueue{q: q, stamp: st, tasks: make(map[string][]byte, len(spans))}
	for i, sp := range spans {
		l.tasks[q.Tasks[i].ID] = data[sp.off : sp.off+sp.n]
	}
	loadedMu.Lock()
	loaded[t.Dir] = l
	loadedMu.Unlock()
}

// loadedOf returns what q was read from, if it is the tree's last queue.
func (t *Tree) loadedOf(q *Queue) *loadedQueue {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if l := loaded[t.Dir]; l != nil && l.q == q {
		return l
	}
	return nil
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*loadedQueue{} // by tree
)

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{Version: 1, NextID: 1, Tasks: []Task{}} }

// idNumber returns the number of an id like T-12.
func idNumber(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "T-"))
	if err != nil || !strings.HasPrefix(id, "T-") {
		return 0
	}
	return n
}

// NormalizeID accepts "T-3", "t-3" and "3".
func NormalizeID(id string) string {
	id = strings.TrimSpace(id)
	if n, err := strconv.Atoi(id); err == nil {
		return "T-" + strconv.Itoa(n)
	}
	return strings.ToUpper(id[:min(2, len(id))]) + id[min(2, len(id)):]
}

// LoadQueue reads and validates the queue. A missing queue is empty.
func (t *Tree) LoadQueue() (*Queue, error) {
	data, err := readOptional(t.Path(QueueFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.rel(QueueFile), err)
	}
	if data == nil {
		return NewQueue(), nil
	}
	q, err := ParseQueue(t.rel(QueueFile), data)
	if err != nil {
		return nil, err
	}
	// The stamp is read after the bytes: a file changed in between has another
	// stamp than the one SaveQueue compares, and is checked again there.
	t.rememberQueue(q, data)
	return q, nil
}

// check enforces what the schema cannot say: ids are unique, and the next id is past
// every id in the file, so that an id is never handed out twice even after a hand edit.
func (q *Queue) check(file string) error {
	seen := make(map[string]int, len(q.Tasks))
	for i, task := range q.Tasks {
		if j, dup := seen[task.ID]; dup {
			return &SchemaError{File: file, Pointer: fmt.Sprintf("/tasks/%d/id", i),
				Rule: fmt.Sprintf("duplicate task id %s (also at /tasks/%d)", task.ID, j)}
		}
		seen[task.ID] = i
		if n := idNumber(task.ID); n >= q.NextID {
			q.NextID = n + 1
		}
	}
	return nil
}

// SaveQueue validates and writes the queue. Hold the lock. What it validates is
// what changed: the tasks whose bytes differ from the file the queue was loaded
// from, against the schema, and what spans tasks (unique ids, next_id) in code.
// A queue not loaded from the file as it stands (another process changed it, or it
// was made new) is validated whole, and so is the file it replaces.
func (t *Tree) SaveQueue(q *Queue) error {
	shown := t.rel(QueueFile)
	if err := q.check(shown); err != nil {
		return err
	}
	data, parts, err := marshalQueue(q)
	if err != nil {
		return fmt.Errorf("encode %s: %w", shown, err)
	}
	path := t.Path(QueueFile)
	fresh := false
	l := t.loadedOf(q)
	if l != nil {
		cur, err := stampOf(path)
		fresh = err == nil && cur == l.stamp
	}
	if fresh {
		changed := &Queue{Version: q.Version, NextID: q.NextID, Tasks: []Task{}}
		for i, task := range q.Tasks {
			if old, ok := l.tasks[task.ID]; !ok || !bytes.Equal(old, parts[i]) {
				changed.Tasks = append(changed.Tasks, task)
			}
		}
		mini, err := marshal(changed)
		if err != nil {
			return fmt.Errorf("encode %s: %w", shown, err)
		}
		if err := validate(shown, 0, schemas.Queue, mini); err != nil {
			// Say where in the whole queue the rule is broken.
			if err := validate(shown, 0, schemas.Queue, data); err != nil {
				return fmt.Errorf("refuse to write invalid data: %w", err)
			}
			return fmt.Errorf("refuse to write invalid data: %w", err)
		}
		if len(data) == int(l.stamp.Size) && tailSum(data[max(0, len(data)-stampTail):]) == l.stamp.Tail {
			if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
				return nil
			}
		}
		if err := WriteAtomic(path, data, 0o644); err != nil {
			return err
		}
		validated.remember(sumOf(schemas.Queue, data))
	} else if data, err = saveFileData(path, shown, schemas.Queue, q); err != nil {
		return err
	}
	t.indexSavedQueue(q, data)
	// The bytes of the queue are not kept past its save: a run lives for hours, and
	// the next change loads the queue again.
	loadedMu.Lock()
	delete(loaded, t.Dir)
	loadedMu.Unlock()
	return nil
}

// marshalQueue writes the queue as marshal does, and returns each task's bytes.
func marshalQueue(q *Queue) ([]byte, [][]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"version\": %d,\n  \"next_id\": %d,\n  \"tasks\": [", q.Version, q.NextID)
	if len(q.Tasks) == 0 {
		buf.WriteString("]\n}\n")
		return buf.Bytes(), nil, nil
	}
	offs := make([][2]int, len(q.Tasks))
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	for i := range q.Tasks {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		one.Reset()
		if err := enc.Encode(&q.Tasks[i]); err != nil {
			return nil, nil, err
		}
		offs[i] = [2]int{buf.Len(), buf.Len() + one.Len() - 1}
		buf.Write(one.Bytes()[:one.Len()-1])
	}
	buf.WriteString("\n  ]\n}\n")
	data := buf.Bytes()
	parts := make([][]byte, len(offs))
	for i, o := range offs {
		parts[i] = data[o[0]:o[1]]
	}
	return data, parts, nil
}

// UpdateQueue loads the queue under the lock, lets fn change it, and saves it when fn
// returns nil.
func (t *Tree) UpdateQueue(ctx context.Context, fn func(*Queue) error) error {
	return t.Locked(ctx, func() error {
		q, err := t.LoadQueue()
		if err != nil {
			return err
		}
		if err := fn(q); err != nil {
			return err
		}
		return t.SaveQueue(q)
	})
}

// Add appends a new open task and returns it. The id is never one used before.
func (q *Queue) Add(title, body string, now time.Time) (*Task, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, fmt.Errorf("a task needs a title: give one, e.g. strom task add \"Find the baptism of Anna Novak\"")
	}
	if err := CheckText(title, body); err != nil {
		return nil, err
	}
	id := "T-" + strconv.Itoa(q.NextID)
	q.NextID++
	q.Tasks = append(q.Tasks, Task{ID: id, Title: title, Body: body, State: Open, Created: now.UTC(), Updated: now.UTC()})
	return &q.Tasks[len(q.Tasks)-1], nil
}

// CheckText refuses a task title or text that is not UTF-8.
func CheckText(title, body string) error {
	if !utf8.ValidString(title) {
		return fmt.Errorf("the task's title is %w: write it in UTF-8 (iconv -t UTF-8 converts other encodings)", ErrNotUTF8)
	}
	if !utf8.ValidString(body) {
		return fmt.Errorf("the task's text is %w: write it in UTF-8 (iconv -t UTF-8 converts other encodings)", ErrNotUTF8)
	}
	return nil
}

// Find returns the task with id, or ErrUnknownTask.
func (q *Queue) Find(id string) (*Task, error) {
	id = NormalizeID(id)
	for i := range q.Tasks {
		if q.Tasks[i].ID == id {
			return &q.Tasks[i], nil
		}
	}
	return nil, fmt.Errorf("%w %s: strom task list shows the ids", ErrUnknownTask, id)
}

// FirstOpen returns the first open task in queue order, or nil.
func (q *Queue) FirstOpen() *Task {
	for i := range q.Tasks {
		if q.Tasks[i].State == Open {
			return &q.Tasks[i]
		}
	}
	return nil
}

// Count returns how many tasks are in each state.
func (q *Queue) Count() map[State]int {
	c := make(map[State]int, len(States))
	for _, st := range States {
		c[st] = 0
	}
	for _, task := range q.Tasks {
		c[task.State]++
	}
	return c
}

// Move puts task id right before task before.
func (q *Queue) Move(id, before string) error {
	from, err := q.Find(id)
	if err != nil {
		return err
	}
	to, err := q.Find(before)
	if err != nil {
		return err
	}
	if from.ID == to.ID {
		return fmt.Errorf("%s cannot move before itself: name another task with --before (strom task list shows the order)", from.ID)
	}
	moved := *from
	var rest []Task
	for _, task := range q.Tasks {
		if task.ID != moved.ID {
			rest = append(rest, task)
		}
	}
	out := make([]Task, 0, len(q.Tasks))
	for _, task := range rest {
		if task.ID == to.ID {
			out = append(out, moved)
		}
		out = append(out, task)
	}
	q.Tasks = out
	return nil
}

// Park sets a task aside with a reason, remembering the state to return to.
func (t *Task) Park(reason string, now time.Time) error {
	switch t.State {
	case Parked:
		return fmt.Errorf("task %s is already parked (%s): strom task unpark %s returns it", t.ID, t.Reason, t.ID)
	case Done:
		return fmt.Errorf("task %s is done: a done task cannot be parked", t.ID)
	}
	if strings.TrimSpace(reason) == "" {
		return fmt.Errorf("parking task %s needs a reason: give it with --why", t.ID)
	}
	from := t.State
	if from == Started {
		// A started task has no session once it is parked: it goes back to the queue.
		from = Open
	}
	t.ParkedFrom, t.State, t.Reason, t.Session = from, Parked, reason, ""
	t.Updated = now.UTC()
	return nil
}

// Unpark returns a parked task to the state it was parked from.
func (t *Task) Unpark(now time.Time) error {
	if t.State != Parked {
		return fmt.Errorf("task %s is %s, not parked: nothing to unpark", t.ID, t.State)
	}
	back := t.ParkedFrom
	if back == "" || back == Started {
		back = Open
	}
	t.State, t.ParkedFrom, t.Reason = back, "", ""
	t.Updated = now.UTC()
	return nil
}

// AnswerQuestion records a person's answer and returns a waiting task to the queue.
func (t *Task) AnswerQuestion(answer string, now time.Time) error {
	if t.State != Waiting {
		return fmt.Errorf("task %s is %s, not waiting for an answer: only a waiting task takes one", t.ID, t.State)
	}
	if strings.TrimSpace(answer) == "" {
		return fmt.Errorf("the answer to task %s is empty: give the answer as text", t.ID)
	}
	now = now.UTC()
	if n := len(t.Questions); n > 0 && t.Questions[n-1].Answered == nil {
		t.Questions[n-1].Answer = answer
		t.Questions[n-1].Answered = &now
	} else {
		t.Questions = append(t.Questions, Question{Question: "(no question recorded)", Asked: now, Answer: answer, Answered: &now})
	}
	t.State, t.Updated = Open, now
	return nil
}

// ParseQueue validates queue bytes that are not on disk (a staged or committed
// version), naming them shown in errors.
func ParseQueue(shown string, data []byte) (*Queue, error) {
	q := NewQueue()
	if err := check(shown, schemas.Queue, data); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, q); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	if err := q.check(shown); err != nil {
		return nil, err
	}
	return q, nil
}

// Validate checks bytes of a state file named like its place under .strom/ (for
// example "queue.json" or "gates/claude-usage/hold.json"). Files strom does not own
// are not checked.
func Validate(rel string, data []byte) error {
	shown := DirName + "/" + rel
	switch {
	case rel == QueueFile:
		_, err := ParseQueue(shown, data)
		return err
	case rel == ProgressFile:
		return checkProgress(shown, data)
	case rel == ConfigFile:
		err := check(shown, schemas.Config, data)
		return err
	case rel == ParkFile:
		err := check(shown, schemas.Park, data)
		return err
	case rel == ModeFile:
		err := check(shown, schemas.Mode, data)
		return err
	case strings.HasPrefix(rel, GatesDir+"/") && strings.HasSuffix(rel, "/"+HoldFile):
		err := check(shown, schemas.Hold, data)
		return err
	}
	return nil
}
