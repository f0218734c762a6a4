// Package merge merges strom's own state files where two lines of a research's
// history meet — a git merge, rebase or pull between clones of one research: the
// queue task by task, a file of records as the union of both sides', park.json counter
// by counter, the research's note as the side that wrote it later. `strom hooks merge-driver` runs it for git (.strom/.gitattributes names
// the drivers, strom hooks install registers them).
//
// Its guarantee: a merge loses no task, no record and no answer, never deletes or
// rewords a task the other side kept, keeps task ids unique, and leaves a file that
// is valid against its schema; when it cannot, it says why and git leaves the file
// to a person as a conflict.
package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strom-research/strom/statefiles"
)

// ErrConflict means a side of the merge is not a file strom can merge: git keeps
// the file as a conflict for a person.
var ErrConflict = errors.New("strom cannot merge this file")

// fields is a task's JSON object, field by field.
type fields map[string]json.RawMessage

// stateGroup are the fields that change together with a task's state: they are
// merged as one, so a merge never mixes one side's state with the other's reason.
var stateGroup = []string{"state", "session", "host", "reason", "parked_from"}

// Queue merges three versions of queue.json: base (the common ancestor; nil or
// empty when there is none), ours and theirs. A task both sides kept is merged
// field by field: a field only one side changed takes that change, a field both
// changed takes the change of the side that updated the task later (ours on a tie).
// A task one side deleted is kept as the other side has it. A task both sides added
// under the same id keeps the id on the side that created it first; the other gets
// the next free id, and notes says so. Queue order is ours, unless only theirs
// reordered; tasks only theirs added come after.
func Queue(base, ours, theirs []byte) (merged []byte, notes []string, err error) {
	o, err := parseQueue("the common version", base, true)
	if err != nil {
		return nil, nil, err
	}
	a, err := parseQueue("our version", ours, false)
	if err != nil {
		return nil, nil, err
	}
	b, err := parseQueue("their version", theirs, false)
	if err != nil {
		return nil, nil, err
	}
	baseByID := byID(o.tasks)
	ourByID := byID(a.tasks)
	theirByID := byID(b.tasks)

	// The order: ours, unless only theirs reordered the tasks both kept.
	order := ids(a.tasks)
	if sameOrder(ids(o.tasks), ids(a.tasks), theirByID) && !sameOrder(ids(o.tasks), ids(b.tasks), ourByID) {
		order = ids(b.tasks)
		for _, id := range ids(a.tasks) {
			if !slices.Contains(order, id) {
				order = append(order, id)
			}
		}
	}
	var out []fields
	taken := map[string]bool{}
	for _, id := range order {
		taken[id] = true
	}
	for _, id := range ids(b.tasks) {
		taken[id] = true
	}
	next := max(a.nextID, b.nextID)
	for id := range taken {
		next = max(next, idNumber(id)+1)
	}
	var renamed []fields
	for _, id := range order {
		ot, inO := baseByID[id]
		at, inA := ourByID[id]
		bt, inB := theirByID[id]
		switch {
		case inA && inB && inO:
			out = append(out, mergeTask(ot, at, bt))
		case inA && inB && equalTask(at, bt):
			out = append(out, at)
		case inA && inB:
			// Added on both sides under one id: two tasks.
			first, second := at, bt
			if created(bt).Before(created(at)) {
				first, second = bt, at
			}
			out = append(out, first)
			second = clone(second)
			newID := fmt.Sprintf("T-%d", next)
			next++
			notes = append(notes, fmt.Sprintf("%s was added on both sides: %q keeps %s, %q is now %s", id, title(first), id, title(second), newID))
			second["id"] = quote(newID)
			renamed = append(renamed, second)
		case inA && inO:
			// Theirs deleted it: a merge never deletes a task.
			out = append(out, mergeTask(ot, at, ot))
		case inA:
			out = append(out, at)
		case inB && inO:
			out = append(out, mergeTask(ot, ot, bt))
		case inB:
			out = append(out, bt)
		}
	}
	for _, t := range b.tasks {
		id := taskID(t)
		if _, done := ourByID[id]; done || slices.Contains(order, id) {
			continue
		}
		if ot, inO := baseByID[id]; inO {
			out = append(out, mergeTask(ot, ot, t)) // ours deleted it: kept
		} else {
			out = append(out, t)
		}
	}
	out = append(out, renamed...)
	// A task both deleted stays deleted: no side kept it.
	merged, err = encodeQueue(a.version, next, out)
	if err != nil {
		return nil, nil, err
	}
	return merged, notes, nil
}

// mergeTask merges one task that both sides have, from its common version o.
func mergeTask(o, a, b fields) fields {
	out := fields{}
	aLater := !updated(b).After(updated(a))
	pick := func(names []string) {
		av, bv, ov := group(a, names), group(b, names), group(o, names)
		var from fields
		switch {
		case av == bv, bv == ov:
			from = a
		case av == ov:
			from = b
		case len(names) == 1 && names[0] == "summary":
			// A summary is rewritten whole: the one written later holds.
			from = laterSummary(a, b)
		case released(o, a):
			// A claim's session returned the task (a crash committed on a rerun)
			// while the other side moved on: a takeover, or its end. The return
			// is of a claim that no longer holds.
			from = b
		case released(o, b):
			from = a
		case aLater:
			from = a
		default:
			from = b
		}
		for _, n := range names {
			if v, ok := from[n]; ok {
				out[n] = v
			}
		}
	}
	names := map[string]bool{}
	for _, t := range []fields{o, a, b} {
		for n := range t {
			names[n] = true
		}
	}
	pick(stateGroup)
	for n := range names {
		switch {
		case slices.Contains(stateGroup, n):
		case n == "updated":
			out[n] = a[n]
			if updated(b).After(updated(a)) {
				out[n] = b[n]
			}
		case n == "questions":
			out[n] = mergeQuestions(o[n], a[n], b[n])
		default:
			pick([]string{n})
		}
	}
	for n, v := range out {
		if v == nil {
			delete(out, n)
		}
	}
	return out
}

// released reports whether side returned to open the task base had started: the
// end of the claim's session without an outcome.
func released(base, side fields) bool {
	return str(base, "state") == "started" && str(side, "state") == "open"
}

func str(t fields, name string) string {
	var s string
	_ = json.Unmarshal(t[name], &s)
	return s
}

// question is one question of a task, as the merge compares it.
type question struct {
	Asked    time.Time `json:"asked"`
	Question string    `json:"question"`
}

// mergeQuestions keeps every question either side has, each with its answer where
// one side answered it, in the order they were asked.
func mergeQuestions(o, a, b json.RawMessage) json.RawMessage {
	var all []json.RawMessage
	seen := map[question]int{}
	for _, side := range []json.RawMessage{a, b, o} {
		var qs []json.RawMessage
		if len(side) == 0 || json.Unmarshal(side, &qs) != nil {
			continue
		}
		for _, q := range qs {
			var k question
			_ = json.Unmarshal(q, &k)
			i, dup := seen[k]
			if !dup {
				seen[k] = len(all)
				all = append(all, q)
				continue
			}
			if !bytes.Contains(all[i], []byte(`"answer"`)) && bytes.Contains(q, []byte(`"answer"`)) {
				all[i] = q
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(x, y json.RawMessage) int {
		var kx, ky question
		_ = json.Unmarshal(x, &kx)
		_ = json.Unmarshal(y, &ky)
		return kx.Asked.Compare(ky.Asked)
	})
	data, _ := json.Marshal(all)
	return data
}

// group is the canonical text of some fields of a task, for comparing sides.
func group(t fields, names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('=')
		if v, ok := t[n]; ok {
			b.Write(canonical(v))
		}
		b.WriteByte(';')
	}
	return b.String()
}

// canonical is a JSON value without insignificant white space.
func canonical(v json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}

func equalTask(a, b fields) bool {
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	return group(a, names) == group(b, names)
}

type queueFile struct {
	version int
	nextID  int
	tasks   []fields
}

// parseQueue checks one side against the schema and reads its tasks field by field.
// An empty base (no common version) is an empty queue.
func parseQueue(which string, data []byte, emptyOK bool) (queueFile, error) {
	if emptyOK && len(bytes.TrimSpace(data)) == 0 {
		return queueFile{version: 1, nextID: 1}, nil
	}
	q, err := statefiles.ParseQueue(statefiles.DirName+"/"+statefiles.QueueFile, data)
	if err != nil {
		return queueFile{}, fmt.Errorf("%w: %s of queue.json is not valid (%v)", ErrConflict, which, err)
	}
	var raw struct {
		Tasks []fields `json:"tasks"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return queueFile{}, fmt.Errorf("%w: %s of queue.json: %v", ErrConflict, which, err)
	}
	return queueFile{version: q.Version, nextID: q.NextID, tasks: raw.Tasks}, nil
}

// encodeQueue writes the merged queue as strom writes queue.json, checked.
func encodeQueue(version, next int, tasks []fields) ([]byte, error) {
	raw, err := json.Marshal(map[string]any{"version": version, "next_id": next, "tasks": tasks})
	if err != nil {
		return nil, fmt.Errorf("encode the merged queue: %w", err)
	}
	q, err := statefiles.ParseQueue(statefiles.DirName+"/"+statefiles.QueueFile, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: the merged queue would not be valid (%v)", ErrConflict, err)
	}
	return statefiles.EncodeQueue(q)
}

func byID(ts []fields) map[string]fields {
	m := make(map[string]fields, len(ts))
	for _, t := range ts {
		m[taskID(t)] = t
	}
	return m
}

func ids(ts []fields) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, taskID(t))
	}
	return out
}

// sameOrder reports whether side keeps base's order of the tasks that base, side and
// other all have.
func sameOrder(base, side []string, other map[string]fields) bool {
	in := func(list []string) []string {
		var out []string
		for _, id := range list {
			if _, ok := other[id]; ok && slices.Contains(base, id) && slices.Contains(side, id) {
				out = append(out, id)
			}
		}
		return out
	}
	return slices.Equal(in(base), in(side))
}

func taskID(t fields) string {
	var s string
	_ = json.Unmarshal(t["id"], &s)
	return s
}

func title(t fields) string {
	var s string
	_ = json.Unmarshal(t["title"], &s)
	return s
}

func timeField(t fields, name string) time.Time {
	var tm time.Time
	_ = json.Unmarshal(t[name], &tm)
	return tm
}

func created(t fields) time.Time { return timeField(t, "created") }
func updated(t fields) time.Time { return timeField(t, "updated") }

func idNumber(id string) int {
	n := 0
	_, _ = fmt.Sscanf(id, "T-%d", &n)
	return n
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func clone(t fields) fields {
	out := make(fields, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}
