package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/harness/gates"
	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/harness/views"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// How much of each research the overview shows.
const (
	showSessions = 8
	showAnswers  = 5
)

// pageData is everything one page shows.
type pageData struct {
	Lang       string
	CSRF       string
	Researches []researchView
	Notes      []string // researches that dropped out, and why
}

// researchView is one research on the page.
type researchView struct {
	ID       string
	Name     string
	Root     string
	Mode     string // research, archive, waiting
	ModeNote string // why a research shows as an archive: the agent it waits for
	Run      *views.RunView
	Tasks    []statefiles.Task
	Sessions []harness.SessionEntry
	Answers  []gates.LogEntry
	Usage    *claudeusage.Usage
	// Report is "Since you left": the last run's end, what its sessions found,
	// the questions waiting and the tasks parked (strom report).
	Report harness.Report
	Err    string
	Now    time.Time
}

// researchID names a research in the page's forms: stable for its path, and no
// path in a URL.
func researchID(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:6])
}

// collect reads every research. A research that is gone drops out with a note.
func (s *Server) collect(ctx context.Context) pageData {
	d := pageData{Lang: s.w.lang, CSRF: s.csrf}
	roots, err := s.o.Roots()
	if err != nil {
		d.Notes = append(d.Notes, err.Error())
		return d
	}
	for _, root := range roots {
		if !isResearch(root) {
			d.Notes = append(d.Notes, s.w.say("app.gone", "Root", root))
			if s.o.Forget != nil {
				s.o.Forget(root)
			}
			continue
		}
		d.Researches = append(d.Researches, s.research(ctx, root))
	}
	return d
}

// isResearch reports whether root still holds a research repo.
func isResearch(root string) bool {
	fi, err := os.Stat(filepath.Join(root, statefiles.DirName, statefiles.QueueFile))
	return err == nil && fi.Mode().IsRegular()
}

func (s *Server) research(ctx context.Context, root string) researchView {
	v := researchView{ID: researchID(root), Name: filepath.Base(root), Root: root}
	r, err := research.Open(root, s.o.Env)
	if err != nil {
		v.Err = err.Error()
		return v
	}
	v.Now = r.Now()
	// A run with no terminal asks its "Start anyway?" here while a page shows it.
	runfiles.NoteWatched(r)
	o, err := views.ReadOverview(ctx, r)
	if err == nil {
		v.Sessions, err = s.sessions(ctx, r)
	}
	v.Mode = o.Mode.Shown
	if o.Mode.Shown == mode.ModeWaiting {
		v.ModeNote = o.Mode.Text()
	}
	v.Run, v.Tasks = o.Run, o.Tasks
	if err != nil {
		v.Err = err.Error()
	}
	if rep, err := s.report(ctx, r); err != nil && v.Err == "" {
		v.Err = err.Error()
	} else {
		v.Report = rep
	}
	v.Answers = gates.LastAnswers(r.Tree, showAnswers)
	if u, ok := gates.LoadReport(r.Tree); ok {
		v.Usage = &u
	}
	return v
}

// sessions returns a research's last sessions, read from the history again only when
// its HEAD moved: the page's event stream looks every second.
func (s *Server) sessions(ctx context.Context, r *research.Research) ([]harness.SessionEntry, error) {
	head := harness.HeadCommit(ctx, r)
	s.mu.Lock()
	kept, ok := s.kept[r.Tree.Root]
	s.mu.Unlock()
	if ok && head != "" && kept.head == head {
		return kept.list, nil
	}
	list, err := harness.Sessions(ctx, r, showSessions)
	if err == nil && head != "" {
		s.mu.Lock()
		s.kept[r.Tree.Root] = keptSessions{head, list}
		s.mu.Unlock()
	}
	return list, err
}

// keptSessions are the last sessions of a history as of its HEAD.
type keptSessions struct {
	head string
	list []harness.SessionEntry
}

// report is strom report's page of the last run for the overview. Its sessions as
// the history tells them are read again only when HEAD or the run's sessions
// changed; the run's end, the tasks' titles and summaries, the questions and the
// parked tasks are read each time.
func (s *Server) report(ctx context.Context, r *research.Research) (harness.Report, error) {
	rep := harness.Report{Sessions: []harness.ReportSession{}}
	lr, err := harness.ReadLastRun(r)
	if err != nil {
		return rep, err
	}
	rep.Run = lr
	key := harness.HeadCommit(ctx, r)
	if lr != nil && key != "" {
		key += " " + lr.Started.String() + " " + strings.Join(lr.Sessions, " ")
	}
	s.mu.Lock()
	kept, ok := s.keptReport[r.Tree.Root]
	s.mu.Unlock()
	sessions := kept.list
	if !ok || key == "" || kept.key != key {
		if sessions, err = harness.ReportCommits(ctx, r, lr, time.Time{}); err != nil {
			return rep, err
		}
		if key != "" {
			s.mu.Lock()
			s.keptReport[r.Tree.Root] = keptReport{key, sessions}
			s.mu.Unlock()
		}
	}
	rep.Sessions = harness.WithTasks(ctx, r, sessions)
	rep.Questions, rep.Parked, err = harness.WaitingForPerson(ctx, r)
	return rep, err
}

// keptReport are a report's sessions as the history told them, for a key of HEAD
// and the last run's sessions.
type keptReport struct {
	key  string
	list []harness.ReportSession
}

// find returns the research of an id from the page.
func (s *Server) find(id string) (string, bool) {
	roots, err := s.o.Roots()
	if err != nil {
		return "", false
	}
	for _, root := range roots {
		if researchID(root) == id {
			return root, true
		}
	}
	return "", false
}

func (s *Server) parse() (*template.Template, error) {
	return template.New("").Funcs(template.FuncMap{
		"t":      s.w.say,
		"state":  func(st statefiles.State) string { return s.w.say("state." + string(st)) },
		"ending": func(e string) string { return s.w.end(e) },
		"clock": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.Local().Format("15:04")
		},
		"day":   func(t time.Time) string { return t.Local().Format("2006-01-02 15:04") },
		"zoned": func(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") },
		"mins":  func(sec int) int { return sec / 60 },
		"left":  s.w.left,
		"short": func(h string) string { return h[:min(len(h), 7)] },
		"pct":   func(f float64) string { return fmt.Sprintf("%.0f %%", f) },
		"lastq": func(t statefiles.Task) string {
			if n := len(t.Questions); n > 0 {
				return t.Questions[n-1].Question
			}
			return ""
		},
	}).ParseFS(assets, "assets/*.html")
}

// page is the whole overview.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	s.render(w, "page", s.collect(r.Context()))
}

// fragment is the overview without the page around it, for the page's script.
func (s *Server) fragment(w http.ResponseWriter, r *http.Request) {
	s.render(w, "overview", s.collect(r.Context()))
}

func (s *Server) render(w http.ResponseWriter, name string, d pageData) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, d); err != nil {
		http.Error(w, "render the overview: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// events tells the page when the overview changed (server-sent events): the page
// then fetches it again. Without a script the page refreshes itself instead.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	last := ""
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	quiet := 0
	for {
		var b bytes.Buffer
		_ = s.tmpl.ExecuteTemplate(&b, "overview", s.collect(r.Context()))
		sum := sha256.Sum256(b.Bytes())
		if cur := hex.EncodeToString(sum[:8]); cur != last {
			last = cur
			fmt.Fprintf(w, "event: update\ndata: %s\n\n", cur)
			fl.Flush()
			quiet = 0
		} else if quiet++; quiet*int(s.o.Poll/time.Millisecond) >= 15000 {
			fmt.Fprint(w, ": still here\n\n")
			fl.Flush()
			quiet = 0
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// finish is "Finish and stop": it asks the run to finish the working session, which
// the run's terminal confirms (R7.3).
func (s *Server) finish(w http.ResponseWriter, r *http.Request) {
	res, root, ok := s.posted(w, r)
	if !ok {
		return
	}
	err := views.AskFinishFromApp(res, strings.TrimSpace(r.PostForm.Get("session")))
	if errors.Is(err, views.ErrNoSessionWorking) {
		http.Error(w, s.w.p.Text(err), http.StatusConflict)
		return
	}
	s.done(w, r, root, err)
}

// posted checks a form from the overview — its Origin, its CSRF token, the research
// it names — and opens the research; false when it answered the request itself.
func (s *Server) posted(w http.ResponseWriter, r *http.Request) (*research.Research, string, bool) {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(w, s.w.say("app.refuse.origin"), http.StatusForbidden)
		return nil, "", false
	}
	if err := r.ParseForm(); err != nil || !hmacEqual(r.PostForm.Get("csrf"), s.csrf) {
		http.Error(w, s.w.say("app.refuse.csrf"), http.StatusForbidden)
		return nil, "", false
	}
	root, ok := s.find(r.PostForm.Get("research"))
	if !ok {
		http.Error(w, s.w.say("app.refuse.gone"), http.StatusNotFound)
		return nil, "", false
	}
	res, err := research.Open(root, s.o.Env)
	if err != nil {
		http.Error(w, s.w.p.Text(err), http.StatusInternalServerError)
		return nil, "", false
	}
	return res, root, true
}

// done answers a form the overview posted: back to the research on the page, or
// the sentence that says why not (a refusal of the person's is a conflict, not a
// failure of the app's).
func (s *Server) done(w http.ResponseWriter, r *http.Request, root string, err error) {
	var me *messages.Error
	switch {
	case err == nil:
		http.Redirect(w, r, "/#"+researchID(root), http.StatusSeeOther)
	case errors.As(err, &me):
		http.Error(w, s.w.p.Text(err), http.StatusConflict)
	default:
		http.Error(w, s.w.p.Text(err), http.StatusInternalServerError)
	}
}

// startAnyway answers a run's "Start anyway?" (R7.4.1), asked here because the run
// has no terminal.
func (s *Server) startAnyway(w http.ResponseWriter, r *http.Request) {
	res, root, ok := s.posted(w, r)
	if !ok {
		return
	}
	answer := r.PostForm.Get("answer")
	if answer != "yes" && answer != "no" {
		http.Error(w, s.w.say("app.refuse.bad_answer"), http.StatusBadRequest)
		return
	}
	s.done(w, r, root, runfiles.AnswerStart(res, answer == "yes"))
}

// answer is a person's answer to a task's question, as strom task answer gives it.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	res, root, ok := s.posted(w, r)
	if !ok {
		return
	}
	text := strings.TrimSpace(r.PostForm.Get("answer"))
	if text == "" {
		http.Error(w, s.w.say("app.refuse.answer_empty"), http.StatusBadRequest)
		return
	}
	_, err := queue.AnswerTask(r.Context(), res, r.PostForm.Get("task"), text)
	s.done(w, r, root, err)
}

// unpark returns a parked task to the queue, as strom task unpark does.
func (s *Server) unpark(w http.ResponseWriter, r *http.Request) {
	res, root, ok := s.posted(w, r)
	if !ok {
		return
	}
	_, err := queue.UnparkTask(r.Context(), res, r.PostForm.Get("task"))
	s.done(w, r, root, err)
}

func hmacEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
