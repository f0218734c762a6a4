package runfiles

import (
	"errors"
	"os"
	"time"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// A run with no terminal asks "Start anyway?" in strom app's overview as well as in
// a window on the desktop (R7.4.1): the question waits in run.json, the app's
// answer in a request file of the run's own ("start-run"), and an open overview
// shows that it is open by the time of a file ("watched").
const (
	startRequest = "start"
	watchedFile  = "watched"
	// WatchedFor is how long after the overview's last look a run counts on it to
	// show its question: the overview's page looks every second, and its server
	// marks a research at most every WatchedEvery.
	WatchedFor   = 30 * time.Second
	WatchedEvery = 10 * time.Second
)

// ErrNoQuestion means the app answered a question the run no longer asks.
var ErrNoQuestion = errors.New("the run asks nothing now")

// AskStart puts the run's question into run.json, to be answered until until.
func AskStart(r *research.Research, question string, until time.Time) error {
	os.Remove(RequestFile(r, startRequest, runRequest))
	return UpdateRun(r, func(ri *RunInfo) { ri.Question, ri.QuestionUntil = question, until })
}

// EndQuestion takes the question back, answered or not.
func EndQuestion(r *research.Research) {
	_ = UpdateRun(r, func(ri *RunInfo) { ri.Question, ri.QuestionUntil = "", time.Time{} })
	os.Remove(RequestFile(r, startRequest, runRequest))
}

// StartAnswer is the app's answer to the run's question, if it gave one.
func StartAnswer(r *research.Research) (yes, answered bool) {
	word, ok := Requested(r, startRequest, runRequest)
	return word == "yes", ok
}

// AnswerStart is the app's answer: yes starts the run past its condition.
func AnswerStart(r *research.Research, yes bool) error {
	ri, err := LiveRun(r)
	if err != nil {
		return err
	}
	if ri == nil || ri.Question == "" {
		return messages.Errorf(ErrNoQuestion, "app.refuse.no_question", nil)
	}
	word := "no"
	if yes {
		word = "yes"
	}
	return WriteRequest(r, startRequest, runRequest, word)
}

// NoteWatched marks the research as shown in an open overview. The mark is the
// file's time on the computer's own clock, as the page's looks are.
func NoteWatched(r *research.Research) {
	path := r.Tree.Path(statefiles.RunDir, watchedFile)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) < WatchedEvery {
		return
	}
	// Written anew rather than touched: a rename never follows a link put there.
	_ = statefiles.WriteTransient(path, nil)
}

// Watched reports whether an open overview showed the research lately.
func Watched(r *research.Research) bool {
	fi, err := os.Lstat(r.Tree.Path(statefiles.RunDir, watchedFile))
	return err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) < WatchedFor
}
