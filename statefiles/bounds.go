package statefiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/strom-research/strom/messages"
)

// The bounds on what strom takes in and keeps. A text over its bound is refused
// where it enters (a command's argument, flag or file), with a sentence that names
// the bound, before anything is written; a file of the research's state over
// FileMax is neither read nor written. So no input, however it was made, makes
// every later command slow, and no file strom writes is one it would refuse to read.
const (
	// TitleMax is the most characters of a task's title: a title is one line of
	// strom task list, of a commit's subject and of every prompt on the task.
	TitleMax = 500
	// BodyMax is the most bytes of a task's text (its body). Longer material belongs
	// in a file of the research that the text names; a file of a hundred tasks
	// (FileMax) holds fifteen texts at this bound.
	BodyMax = 1 << 20
	// AnswerMax is the most bytes of a person's answer to a task's question.
	AnswerMax = 1 << 20
	// RecordMax is the most bytes of one record: every later session on the task
	// reads it.
	RecordMax = 64 << 10
	// QuestionMax is the most bytes of the question a task waits with.
	QuestionMax = 64 << 10
	// ReasonMax is the most characters of the reason a person parks a task with: it
	// is shown on the task's line beside its title.
	ReasonMax = 500
	// SummaryMax is the most bytes of a task's summary (strom task summary): every
	// session on the task reads it, and sessions rewrite it rather than add to it.
	SummaryMax = 4 << 10
	// NoteMax is the most bytes of the research's handover note (strom note):
	// every session of the research reads it.
	NoteMax = 8 << 10
	// FileMax is the most bytes of each file of the research's state under .strom/
	// (queue.json, a file of a hundred tasks or of their records, config.json,
	// park.json, mode.json, a gate's hold.json). It holds queue.json's order of the
	// tasks T-1 … T-1000000 (15.9 MB).
	FileMax = 16 << 20
)

// A TextKind is a kind of text strom takes from a person or an agent and keeps in
// the research's state; each has its bound.
type TextKind string

// The kinds of text, named as the ids of their sentences (files.too_long_<kind>).
const (
	TitleText    TextKind = "title"
	BodyText     TextKind = "body"
	AnswerText   TextKind = "answer"
	RecordText   TextKind = "record"
	QuestionText TextKind = "question"
	ReasonText   TextKind = "reason"
	SummaryText  TextKind = "summary"
	NoteText     TextKind = "note"
)

// textBounds is each kind's bound: max characters when chars, else max bytes.
var textBounds = map[TextKind]struct {
	max   int
	chars bool
}{
	TitleText: {TitleMax, true}, ReasonText: {ReasonMax, true}, BodyText: {BodyMax, false},
	AnswerText: {AnswerMax, false}, RecordText: {RecordMax, false}, QuestionText: {QuestionMax, false},
	SummaryText: {SummaryMax, false}, NoteText: {NoteMax, false},
}

// CheckInput refuses a text of kind k that strom would not keep as it was given,
// with one sentence, before anything is written: one over its bound (errors.Is
// ErrTooLong; the sentence says the bound), or one that is not UTF-8 (errors.Is
// ErrNotUTF8), whose bytes JSON would silently turn into replacement characters.
// from names where a person gave it — a flag ("--title"), a flag and its file
// ("--body-file notes.md") — for the sentence; "" for a command's argument, which
// needs no name.
func CheckInput(k TextKind, text, from string) error {
	b, ok := textBounds[k]
	if !ok {
		panic("statefiles: unknown text kind " + string(k))
	}
	max, chars := b.max, b.chars
	n := len(text)
	if chars && n > max {
		n = utf8.RuneCountInString(text)
	}
	if n > max {
		id := "files.too_long_" + string(k)
		args := messages.Args{"Bound": boundText(max, chars)}
		if from != "" {
			id += "_from"
			args["From"] = from
		}
		return messages.Errorf(ErrTooLong, id, args)
	}
	if !utf8.ValidString(text) {
		return notUTF8(messages.New("files.text_"+string(k), nil), from)
	}
	return nil
}

// notUTF8 is the sentence that refuses what, a text that is not UTF-8, given in
// from ("" for a command's argument).
func notUTF8(what *messages.Error, from string) error {
	if from != "" {
		return messages.Errorf(ErrNotUTF8, "files.not_utf8_from", messages.Args{"What": what, "From": from})
	}
	return messages.Errorf(ErrNotUTF8, "files.not_utf8", messages.Args{"What": what})
}

// boundText is a bound as the sentences say it: a count of characters, or bytes
// in KiB or MiB.
func boundText(max int, chars bool) string {
	switch {
	case chars:
		return fmt.Sprint(max)
	case max >= 1<<20 && max%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", max>>20)
	case max >= 1<<10 && max%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", max>>10)
	}
	return fmt.Sprintf("%d bytes", max)
}

// readFile reads a file of the research's state whole, as ReadFile does (a link,
// a fifo or a device under .strom/ refused), but refuses one over FileMax
// (errors.Is ErrTooBig) before reading it: by its size, or, for a file that does
// not say its size, after FileMax+1 bytes.
func readFile(path string) ([]byte, error) { return readWhole(path, true) }

// readWhole is ReadFile, and readFile when bounded.
func readWhole(path string, bounded bool) ([]byte, error) {
	f, size, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if bounded {
		if err := checkFileSize(shownPath(path), size); err != nil {
			return nil, err
		}
		r = io.LimitReader(f, FileMax+1)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead) // as os.ReadFile: room to see the end
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	if bounded {
		if err := checkFileSize(shownPath(path), int64(buf.Len())); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// checkFileSize refuses a state file of size bytes over FileMax, naming it shown.
func checkFileSize(shown string, size int64) error {
	if size <= FileMax {
		return nil
	}
	return messages.Errorf(ErrTooBig, "files.too_big", messages.Args{"File": shown, "Bound": boundText(FileMax, false)})
}

// checkWriteSize refuses to write data as the state file shown when it is over
// FileMax: strom would refuse to read it back.
func checkWriteSize(shown string, data []byte) error {
	if len(data) <= FileMax {
		return nil
	}
	return messages.Errorf(ErrTooBig, "files.too_big_write", messages.Args{"File": shown, "Bound": boundText(FileMax, false)})
}

// readError is the error of reading the state file shown: a file over its bound,
// or one that is not a plain file (nofollow.go), is its own sentence, which names
// the file; any other error is wrapped.
func readError(shown string, err error) error {
	if errors.Is(err, ErrTooBig) || errors.Is(err, ErrNotPlain) {
		return err
	}
	return fmt.Errorf("read %s: %w", shown, err)
}

// shownPath names a state file as messages show it: from .strom/ on, or the whole
// path of a file outside a research (the person's own settings).
func shownPath(path string) string {
	p := filepath.ToSlash(path)
	if i := strings.LastIndex(p, "/"+DirName+"/"); i >= 0 {
		return p[i+1:]
	}
	return p
}
