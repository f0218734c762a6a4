package statefiles

import (
	"encoding/json"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// A task's JSON object decoded without encoding/json, which spends some 37,000
// instructions on each of a page's hundred tasks (its reflection, its scanner run
// twice over the bytes). decodeTask gives exactly what json.Unmarshal into a zero
// Task gives, or says it cannot; then json.Unmarshal decides, as before. It knows
// the layout strom writes, compacted or indented: one object whose keys are
// spelled as the struct's tags, each once; strings, with every escape JSON has
// (invalid UTF-8 and lone surrogates become U+FFFD as encoding/json makes them);
// the times as time.Time reads them; needs as an array of strings, questions as
// an array of question objects of the same kind. Anything else is left to
// encoding/json: a key it does not know or in another case (encoding/json matches
// keys case-insensitively), a key twice (the last would win), null, a number, a
// boolean, another object, bytes after the object. The fuzz target
// FuzzTaskDecode holds the two to the same result.
//
// The strings of a task share one copy of its object's bytes: one allocation a
// task, not one a field; a string with escapes or bytes to replace has its own.

// unmarshalTask decodes one task's JSON into task as json.Unmarshal into a zero
// Task does.
func unmarshalTask(data []byte, task *Task) error {
	if t, ok := decodeTask(data); ok {
		*task = t
		return nil
	}
	*task = Task{}
	return json.Unmarshal(data, task)
}

// unmarshalShard decodes a shard's bytes ({"tasks": [ … ]}) into its tasks as
// json.Unmarshal into a shardDoc does.
func unmarshalShard(data []byte) ([]Task, error) {
	if tasks, ok := decodeShardTasks(data); ok {
		return tasks, nil
	}
	var doc shardDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return doc.Tasks, nil
}

// decodeShardTasks decodes a shard's tasks by decodeTask; false when the shard is
// not of the layout taskRanges follows or a task not of decodeTask's.
func decodeShardTasks(data []byte) ([]Task, bool) {
	ranges, ok := taskRanges(data)
	if !ok {
		return nil, false
	}
	// An empty array is an empty slice, as encoding/json makes it, not nil.
	tasks := make([]Task, len(ranges))
	for i, r := range ranges {
		if tasks[i], ok = decodeTask(data[r[0]:r[1]]); !ok {
			return nil, false
		}
	}
	return tasks, true
}

// decodeTask decodes one task's JSON object; false when the bytes are not of the
// layout it knows.
func decodeTask(data []byte) (Task, bool) {
	d := taskDecoder{b: data}
	d.space()
	if !d.byte('{') {
		return Task{}, false
	}
	d.s = string(data)
	var task Task
	var seen uint32
	ok := d.members(func(key []byte) bool {
		var bit uint32
		ok := true
		switch string(key) {
		case "id":
			bit = 1 << 0
			task.ID, ok = d.str()
		case "title":
			bit = 1 << 1
			task.Title, ok = d.str()
		case "body":
			bit = 1 << 2
			task.Body, ok = d.str()
		case "state":
			var s string
			s, ok = d.str()
			bit, task.State = 1<<3, State(s)
		case "created":
			bit = 1 << 4
			task.Created, ok = d.time()
		case "updated":
			bit = 1 << 5
			task.Updated, ok = d.time()
		case "session":
			bit = 1 << 6
			task.Session, ok = d.str()
		case "host":
			bit = 1 << 7
			task.Host, ok = d.str()
		case "reason":
			bit = 1 << 8
			task.Reason, ok = d.str()
		case "parked_from":
			var s string
			s, ok = d.str()
			bit, task.ParkedFrom = 1<<9, State(s)
		case "added_by":
			bit = 1 << 10
			task.AddedBy, ok = d.str()
		case "needs":
			bit = 1 << 11
			task.Needs, ok = d.strings()
		case "questions":
			bit = 1 << 12
			task.Questions, ok = d.questions()
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok {
		return Task{}, false
	}
	d.space()
	if d.i != len(d.b) {
		return Task{}, false
	}
	return task, true
}

// taskDecoder reads JSON from b at i; s is b as a string, whose pieces the
// strings without escapes are.
type taskDecoder struct {
	b []byte
	s string
	i int
}

// plain marks the bytes a string holds as they are: printable ASCII but the
// quote and the backslash; spaces the four bytes of JSON's white space.
var plain, spaces = func() (p, s [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		p[c] = c != '"' && c != '\\'
	}
	for _, c := range " \t\n\r" {
		s[c] = true
	}
	return p, s
}()

func (d *taskDecoder) space() {
	for d.i < len(d.b) && spaces[d.b[d.i]] {
		d.i++
	}
}

// plainRun returns the end of the run of plain bytes from i on.
func (d *taskDecoder) plainRun(i int) int {
	for i < len(d.b) && plain[d.b[i]] {
		i++
	}
	return i
}

// byte consumes c when it comes next.
func (d *taskDecoder) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// members reads the members of an object whose '{' is read, through its '}',
// calling value with each key (its bytes between the quotes) to read the value
// that follows the colon; false at anything else, a key of other bytes than
// plain ones or a value refused.
func (d *taskDecoder) members(value func(key []byte) bool) bool {
	d.space()
	if d.byte('}') {
		return true
	}
	for {
		if !d.byte('"') {
			return false
		}
		// A key of other bytes than plain ones is none of the tags.
		start := d.i
		d.i = d.plainRun(d.i)
		key := d.b[start:d.i]
		if !d.byte('"') {
			return false
		}
		d.space()
		if !d.byte(':') {
			return false
		}
		d.space()
		if !value(key) {
			return false
		}
		d.space()
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
		d.space()
	}
}

// elements reads the elements of an array, calling value for each; an empty
// array gives no call.
func (d *taskDecoder) elements(value func() bool) bool {
	if !d.byte('[') {
		return false
	}
	d.space()
	if d.byte(']') {
		return true
	}
	for {
		if !value() {
			return false
		}
		d.space()
		if d.byte(']') {
			return true
		}
		if !d.byte(',') {
			return false
		}
		d.space()
	}
}

// str reads a JSON string as encoding/json unquotes it.
func (d *taskDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for i := d.plainRun(start); i < len(d.b); i = d.plainRun(i) {
		switch c := d.b[i]; {
		case c == '"':
			d.i = i + 1
			return d.s[start:i], true
		case c == '\\':
			return d.unquote(start, i)
		case c < ' ':
			return "", false
		default:
			r, size := utf8.DecodeRune(d.b[i:])
			if r == utf8.RuneError && size == 1 {
				return d.unquote(start, i)
			}
			i += size
		}
	}
	return "", false
}

// unquote reads the rest of a string whose bytes start at start and need
// unquoting from i on, as encoding/json's unquote does, and refuses what its
// scanner refuses: an escape it does not know, a control character.
func (d *taskDecoder) unquote(start, i int) (string, bool) {
	b := d.b
	out := make([]byte, 0, len(b)-start)
	out = append(out, b[start:i]...)
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			d.i = i + 1
			return string(out), true
		case c < ' ':
			return "", false
		case c == '\\':
			if i+1 >= len(b) {
				return "", false
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(b[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair when a low surrogate's escape follows; else the first
					// is U+FFFD and what follows is read on its own.
					if dec := utf16.DecodeRune(r, hex4(b[i:])); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = utf8.AppendRune(out, r)
			i += size
		}
	}
	return "", false
}

// hex4 returns the code of an escape \uXXXX at the start of b, -1 when none.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// time reads a time as encoding/json does: time.Time's UnmarshalJSON of the
// string as written. A string of other bytes than plain ones (an escape, a
// control character, a letter beyond ASCII: none is in a time) is left to
// encoding/json.
func (d *taskDecoder) time() (time.Time, bool) {
	start := d.i
	if !d.byte('"') {
		return time.Time{}, false
	}
	if d.i = d.plainRun(d.i); !d.byte('"') {
		return time.Time{}, false
	}
	var t time.Time
	if t.UnmarshalJSON(d.b[start:d.i]) != nil {
		return time.Time{}, false
	}
	return t, true
}

// strings reads an array of strings; an empty one is an empty slice, not nil.
func (d *taskDecoder) strings() ([]string, bool) {
	out := []string{}
	ok := d.elements(func() bool {
		s, ok := d.str()
		out = append(out, s)
		return ok
	})
	return out, ok
}

// questions reads an array of question objects; an empty one is an empty slice.
func (d *taskDecoder) questions() ([]Question, bool) {
	out := []Question{}
	ok := d.elements(func() bool {
		q, ok := d.question()
		out = append(out, q)
		return ok
	})
	return out, ok
}

// question reads one question object, its keys spelled as the tags, each once.
func (d *taskDecoder) question() (Question, bool) {
	var q Question
	if !d.byte('{') {
		return q, false
	}
	var seen uint32
	ok := d.members(func(key []byte) bool {
		var bit uint32
		ok := true
		switch string(key) {
		case "question":
			bit = 1 << 0
			q.Question, ok = d.str()
		case "asked":
			bit = 1 << 1
			q.Asked, ok = d.time()
		case "session":
			bit = 1 << 2
			q.Session, ok = d.str()
		case "answer":
			bit = 1 << 3
			q.Answer, ok = d.str()
		case "answered":
			var t time.Time
			t, ok = d.time()
			bit, q.Answered = 1<<4, &t
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	return q, ok
}
