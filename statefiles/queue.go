package statefiles

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
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
	return "", fmt.Errorf("unknown task state \"%s\": use one of open, started, waiting, done, parked", termsafe.Excerpt(s))
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
	// Summary is what the sessions on the task keep rewriting: where it stands,
	// what is known, what comes next (strom task summary). Its history is the
	// history of the task's file.
	Summary *Summary `json:"summary,omitempty"`
	// FollowUp is the task's depth in a chain of follow-ups: 0 for a task a
	// person added, one more than its task's for a task a session added
	// (run.followUps parks a chain deeper than it allows).
	FollowUp int `json:"follow_up,omitempty"`
}

// Summary is a task's summary (at most SummaryMax bytes), rewritten whole, with
// when and by which session ("" for a person) it was written last.
type Summary struct {
	Text    string    `json:"text"`
	Updated time.Time `json:"updated"`
	Session string    `json:"session,omitempty"`
}

// Queue is the whole queue: the tasks in order. On disk it is .strom/queue.json (the
// order and next_id, queueorder.go) and the tasks in files of a hundred under
// .strom/tasks/ (shards.go); a
// queue.json of version 1 held the tasks themselves (queueolder.go).
type Queue struct {
	Version int    `json:"version"`
	NextID  int    `json:"next_id"`
	Tasks   []Task `json:"tasks"`
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{Version: QueueVersion, NextID: 1, Tasks: []Task{}} }

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
	if strings.HasPrefix(id, "t-") {
		return "T" + id[1:]
	}
	return id
}

// Add appends a new open task and returns it. The id is never one used before.
func (q *Queue) Add(title, body string, now time.Time) (*Task, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, messages.Errorf(ErrEmpty, "files.empty_title", nil)
	}
	if err := CheckText(title, body); err != nil {
		return nil, err
	}
	id := "T-" + strconv.Itoa(q.NextID)
	q.NextID++
	q.Tasks = append(q.Tasks, Task{ID: id, Title: title, Body: body, State: Open, Created: now.UTC(), Updated: now.UTC()})
	return &q.Tasks[len(q.Tasks)-1], nil
}

// NewTask returns a new open task with id, refusing what Add refuses.
func NewTask(id, title, body string, now time.Time) (Task, error) {
	q := &Queue{NextID: idNumber(id)}
	t, err := q.Add(title, body, now)
	if err != nil {
		return Task{}, err
	}
	return *t, nil
}

// CheckText refuses a task title or text that CheckInput refuses: over its bound
// (TitleMax, BodyMax) or not UTF-8.
func CheckText(title, body string) error {
	if err := CheckInput(TitleText, title, ""); err != nil {
		return err
	}
	return CheckInput(BodyText, body, "")
}

// Find returns the task with id, or ErrUnknownTask.
func (q *Queue) Find(id string) (*Task, error) {
	id = NormalizeID(id)
	for i := range q.Tasks {
		if q.Tasks[i].ID == id {
			return &q.Tasks[i], nil
		}
	}
	return nil, unknownTask(id)
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
		return messages.Errorf(ErrNotParked, "files.not_parked", messages.Args{"Task": t.ID, "State": messages.New("state."+string(t.State), nil)})
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
	if strings.TrimSpace(answer) == "" {
		return messages.Errorf(ErrEmpty, "files.empty_answer", messages.Args{"Task": t.ID})
	}
	if t.State != Waiting {
		return messages.Errorf(ErrNotWaiting, "files.not_waiting", messages.Args{"Task": t.ID, "State": messages.New("state."+string(t.State), nil)})
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
