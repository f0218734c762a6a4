package views

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/session"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// Overview is a research as a person looks in on it from outside the run's
// terminal (strom app): the mode, the run and the queue (the last sessions come
// from Sessions). It is read from the same files strom status reads, and changes
// nothing.
type Overview struct {
	Root  string
	Mode  mode.State
	Run   *RunView // nil when no run is alive
	Tasks []statefiles.Task
}

// RunView is the live run as the overview shows it.
type RunView struct {
	runfiles.RunInfo
	TaskTitle     string
	Left          time.Duration // time left in the session; zero when none works
	Records       int           // records the working session has made so far
	Transcript    []string      // the last lines of the session's transcript, escapes removed
	FinishPending bool          // a finish request waits for the agent (R7.3)
	AppAsked      bool          // the app asked to finish; the run's terminal has not answered yet
}

// Working reports whether a session works right now.
func (v *RunView) Working() bool { return v != nil && v.Session != "" }

// Paused reports whether the run waits between sessions (for the condition, or for
// an archive), and until when.
func (v *RunView) Paused() bool { return v != nil && v.Session == "" && !v.PausedTill.IsZero() }

// transcriptLines is how many of the transcript's last lines the overview carries.
const transcriptLines = 12

// overviewTasks is how many tasks the overview shows: the tasks not done in queue
// order, then the newest done ones.
const overviewTasks = 200

// Overview reads the research for the app.
func ReadOverview(ctx context.Context, r *research.Research) (Overview, error) {
	o := Overview{Root: r.Tree.Root}
	m, err := r.Tree.LoadMode()
	if err != nil {
		return o, err
	}
	ri, err := runfiles.LiveRun(r)
	if err != nil {
		return o, err
	}
	o.Mode = mode.State{Saved: m.Mode, Shown: m.Mode}
	if ms, err := mode.Of(r, m, ri); err == nil {
		o.Mode = ms
	}
	// The tasks not done and the newest done ones, up to overviewTasks: the
	// overview is read every second while a page is open.
	o.Tasks, _, err = r.Tree.QueuePage(ctx, "", 0, overviewTasks)
	if err != nil {
		return o, err
	}
	if ri != nil {
		v := &RunView{RunInfo: *ri}
		if ri.Session != "" {
			if t, err := r.Tree.FindTask(ctx, ri.Task); err == nil {
				v.TaskTitle = t.Title
			}
			if left := ri.Deadline.Sub(r.Now()); left > 0 {
				v.Left = left
			}
			_, v.FinishPending = runfiles.Requested(r, "finish", ri.Session)
			_, v.AppAsked = runfiles.Requested(r, runfiles.AppFinishRequest, ri.Session)
			// The task's records through the index: the overview is read every second
			// while a page is open, and the records only grow.
			if recs, err := queue.Records(ctx, r, ri.Task); err == nil {
				for _, rec := range recs {
					if rec.Session == ri.Session {
						v.Records++
					}
				}
			}
			v.Transcript = lastLines(filepath.Join(session.SessionsDir(r), ri.Session+".log"), transcriptLines)
		}
		o.Run = v
	}
	return o, nil
}

// lastLines returns the last n non-empty lines of a transcript, with the terminal's
// escapes taken out; nothing when it cannot be read.
func lastLines(path string, n int) []string {
	f, err := statefiles.OpenRead(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const tail = 32 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		_, _ = f.Seek(fi.Size()-tail, io.SeekStart)
	}
	data, _ := io.ReadAll(io.LimitReader(f, tail))
	text := limits.StripVT(string(bytes.ToValidUTF8(data, []byte("?"))))
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// ErrNoSessionWorking means there is no such session at work to finish.
var ErrNoSessionWorking = errors.New("no session is working in this research")

// AskFinishFromApp leaves the app's request to finish the working session. The run
// asks its terminal "The app asks this session to finish — finish it? [Y/n]"; a yes,
// or a run without a terminal, makes it a finish request. session must be the one
// at work: a request for a session that ended meanwhile changes nothing.
func AskFinishFromApp(r *research.Research, session string) error {
	ri, err := runfiles.LiveRun(r)
	if err != nil {
		return err
	}
	if ri == nil || ri.Session == "" || ri.Session != session {
		return messages.Errorf(ErrNoSessionWorking, "app.session_ended", messages.Args{"Session": session})
	}
	return runfiles.WriteRequest(r, runfiles.AppFinishRequest, session, "the app")
}

// listedFile, under .strom/run/, says in which list of researches this one was
// put: the next command finds it there and does nothing more.
const listedFile = "listed"

// Remember puts the research on this computer's list of researches (strom app shows
// them), once: later calls read one small file. Inside a session nothing is done,
// the run did it. A list that cannot be written costs the app one research and
// never the command its work, so errors are only returned, for tests.
func Remember(ctx context.Context, r *research.Research) error {
	if r.Getenv("STROM_SESSION") != "" {
		return nil
	}
	list := statefiles.ResearchesPath(r.Getenv)
	marker := r.Tree.Path(statefiles.RunDir, listedFile)
	if data, err := statefiles.ReadFile(marker); err == nil && string(data) == list+"\n" {
		if _, err := os.Stat(list); err == nil {
			return nil
		}
	}
	if err := statefiles.RememberResearch(ctx, r.Getenv, r.Tree.Root, r.Now()); err != nil {
		return err
	}
	return statefiles.WriteTransient(marker, []byte(list+"\n"))
}
