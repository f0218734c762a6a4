package statefiles

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strom-research/strom/schemas"
)

// Entry is a task that is not done, as queue.json lists it.
type Entry struct {
	ID    string
	State State
}

// Order is .strom/queue.json of version 4.
type Order struct {
	Version int
	NextID  int
	Done    int     // how many tasks are done
	Live    []Entry // the tasks not done, in queue order
}

// orderFile is queue.json's shape on disk.
type orderFile struct {
	Version int      `json:"version"`
	NextID  int      `json:"next_id"`
	Done    int      `json:"done"`
	Tasks   []string `json:"tasks"`
}

// validID reports whether id is written as strom writes ids: T- and a number
// without leading zeros.
func validID(id string) bool {
	d, ok := strings.CutPrefix(id, "T-")
	if !ok || d == "" || d[0] == '0' || strings.Trim(d, "0123456789") != "" {
		return false
	}
	_, err := strconv.Atoi(d)
	return err == nil
}

// QueueVersionOf returns the version queue.json bytes say they are (0 when they
// say none). strom writes it first, so the first bytes tell it; other layouts
// are decoded.
func QueueVersionOf(data []byte) int {
	const prefix = "{\n  \"version\": "
	if rest, ok := bytes.CutPrefix(data, []byte(prefix)); ok {
		if i := bytes.IndexByte(rest[:min(len(rest), 12)], ','); i > 0 {
			if n, err := strconv.Atoi(string(rest[:i])); err == nil {
				return n
			}
		}
	}
	var v struct {
		Version json.Number `json:"version"`
	}
	if json.Unmarshal(data, &v) != nil {
		return 0
	}
	n, err := strconv.Atoi(string(v.Version))
	if err != nil {
		return 0
	}
	return n
}

// newerQueue is the error for a queue.json of a version this strom does not know.
func newerQueue(shown string, version int) error {
	return fmt.Errorf("%s is %w (version %d; this strom knows up to %d): update strom", shown, ErrNewerStrom, version, QueueVersion)
}

// ParseOrder validates the bytes of a queue.json of version 4 (on disk, staged or
// committed), naming them shown in errors. It checks what the schema cannot say:
// no task twice; next_id is raised past every id.
func ParseOrder(shown string, data []byte) (*Order, error) {
	switch v := QueueVersionOf(data); {
	case v > QueueVersion:
		return nil, newerQueue(shown, v)
	case v > 0 && v < QueueVersion:
		return nil, &SchemaError{File: shown, Rule: fmt.Sprintf("version %d is an older layout of the queue: strom migrates it at its next write", v)}
	}
	sum := orderSum(data)
	known := validated.has(sum)
	if !known {
		if err := check(shown, schemas.Queue, data); err != nil {
			return nil, err
		}
	}
	var f orderFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &SchemaError{File: shown, Rule: err.Error()}
	}
	o := &Order{Version: f.Version, NextID: f.NextID, Done: f.Done, Live: make([]Entry, len(f.Tasks))}
	for i, s := range f.Tasks {
		id, st, _ := strings.Cut(s, " ")
		o.Live[i] = Entry{ID: id, State: State(st)}
		o.NextID = max(o.NextID, idNumber(id)+1)
	}
	if !known {
		if err := o.check(shown); err != nil {
			return nil, err
		}
		validated.remember(sum)
	}
	return o, nil
}

// orderSum names the bytes of a queue.json that ParseOrder or EncodeOrder found
// valid, the code's rules (check) with the schema's: a read of the same bytes
// checks neither again.
func orderSum(data []byte) sum { return schemasSum("order\x00", []string{schemas.Queue}, data) }

// check holds o to what queue.json's schema says of it, and to what the schema
// cannot say: no task twice; next_id is raised past every id.
func (o *Order) check(shown string) error {
	if o.Done < 0 {
		return &SchemaError{File: shown, Pointer: "/done", Rule: fmt.Sprintf("%d tasks done is less than none", o.Done)}
	}
	o.NextID = max(o.NextID, 1)
	// The lines up to the first that is not a task's line, by id number and
	// place: sorted, a task twice is two neighbours (a slice, not a map of
	// 5,000 ids: a write of queue.json touches a fifth of the memory).
	bad := len(o.Live)
	at := make([][2]int, 0, len(o.Live))
	for i, e := range o.Live {
		if validID(e.ID) { // twice is said before a state that is not a line's
			at = append(at, [2]int{idNumber(e.ID), i})
		}
		if !validID(e.ID) || e.State == Done || !slices.Contains(States, e.State) {
			bad = i
			break
		}
	}
	slices.SortFunc(at, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) })
	twice, first := bad+1, 0
	for k := 1; k < len(at); k++ {
		if at[k][0] == at[k-1][0] && (k == 1 || at[k-2][0] != at[k][0]) && at[k][1] < twice {
			twice, first = at[k][1], at[k-1][1]
		}
	}
	switch {
	case twice <= bad && twice < len(o.Live):
		return &SchemaError{File: shown, Pointer: fmt.Sprintf("/tasks/%d", twice),
			Rule: fmt.Sprintf("task %s is in the queue twice (also at /tasks/%d): keep one of them", o.Live[twice].ID, first)}
	case bad < len(o.Live) && !validID(o.Live[bad].ID):
		return &SchemaError{File: shown, Pointer: fmt.Sprintf("/tasks/%d", bad), Rule: fmt.Sprintf("%q is not a task id like T-12", o.Live[bad].ID)}
	case bad < len(o.Live):
		return &SchemaError{File: shown, Pointer: fmt.Sprintf("/tasks/%d", bad), Rule: fmt.Sprintf("%q is not a state of a task that is not done", o.Live[bad].State)}
	case len(at) > 0:
		o.NextID = max(o.NextID, at[len(at)-1][0]+1)
	}
	return nil
}

// EncodeOrder returns the bytes strom writes for queue.json, checked. The rules
// check holds an order to are the schema's rules of queue.json (FuzzOrder holds
// the two to agreeing), so the bytes are valid by construction: they go to the
// memo without a validation, and a write beside 5,000 tasks not done costs what
// writing their lines costs. The lines are written as marshal would write them.
func EncodeOrder(o *Order) ([]byte, error) {
	o.Version = QueueVersion
	if err := o.check(DirName + "/" + QueueFile); err != nil {
		return nil, fmt.Errorf("refuse to write invalid data: %w", err)
	}
	b := fmt.Appendf(make([]byte, 0, 64+20*len(o.Live)), "{\n  \"version\": %d,\n  \"next_id\": %d,\n  \"done\": %d,\n  \"tasks\": [", o.Version, o.NextID, o.Done)
	for i, e := range o.Live {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(append(append(b, "\n    \""...), e.ID...), ' '), e.State...), '"')
	}
	if len(o.Live) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "]\n}\n"...)
	validated.remember(orderSum(b))
	return b, nil
}

// Counts returns how many tasks are in each state.
func (o *Order) Counts() map[State]int {
	c := make(map[State]int, len(States))
	for _, st := range States {
		c[st] = 0
	}
	for _, e := range o.Live {
		c[e.State]++
	}
	c[Done] = o.Done
	return c
}

// index returns where task id is in the live tasks, or -1.
func (o *Order) index(id string) int {
	return slices.IndexFunc(o.Live, func(e Entry) bool { return e.ID == id })
}

// follow makes o say of task what its file says: was is the task's state before
// (its file's; "" for a task new to it). It reports whether o changed.
func (o *Order) follow(was State, task Task) bool {
	i := o.index(task.ID)
	changed := false
	switch {
	case task.State == Done && i >= 0:
		o.Live = slices.Delete(o.Live, i, i+1)
		o.Done++
		changed = true
	case task.State == Done && was != Done:
		o.Done++
		changed = true
	case task.State != Done && i >= 0 && o.Live[i].State != task.State:
		o.Live[i].State = task.State
		changed = true
	case task.State != Done && i < 0:
		o.Live = append(o.Live, Entry{ID: task.ID, State: task.State})
		if was == Done && o.Done > 0 {
			o.Done--
		}
		changed = true
	}
	if n := idNumber(task.ID); n >= o.NextID {
		o.NextID = n + 1
		changed = true
	}
	return changed
}
