package session

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/hooks"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Timings of a session, on the research's clock.
const (
	// ExtraTime is what an agent that can take it gets at the limit to write and close.
	ExtraTime = 5 * time.Minute
	// stopGrace is the wait between SIGTERM and SIGKILL.
	stopGrace = 10 * time.Second
	// closeGrace is how long an agent that asked to close may take to exit by itself;
	// a TUI that stays open is stopped once it has been quiet for closeQuiet.
	closeGrace = 60 * time.Second
	closeQuiet = 3 * time.Second
	// pollEvery is how often, in real time, the harness looks at requests and output.
	pollEvery = 50 * time.Millisecond
)

// SessionResult is how a session ended.
type SessionResult struct {
	ID      string
	Task    string
	End     ends.End
	Reset   string // a subscription limit's reset, as the agent said it
	Detail  string // one sentence for the run's output
	Screen  string // advice of a screen that waited for a person (screens.go)
	Commit  string
	Records int
	// NotAllowed names the tree settings that start programs and were not
	// allowed when the session ended: changed while it worked.
	NotAllowed []string
	Finish     *runfiles.FinishRequest // a finish asked while the session ran, however it ended
	// ParkReason is why the session's close parked its task, "" when it did not:
	// ParkCount sessions in a row that recorded nothing, or, with ParkUnfinished,
	// that did not finish.
	// NotStarted: the agent's shell could not start the program it names (exit
	// 126 or 127): the session does not count toward parking.
	NotStarted     bool
	ParkReason     string
	ParkCount      int
	ParkUnfinished bool
	// CheckFailed is why the clean-state check failed at the session's commit
	// (its Strom-Check trailer), "" when it passed: the session's work is committed
	// all the same, and the ■ line and the commit's subject say so.
	CheckFailed string
	// Model and AgentVersion are the model the agent worked with and its client's
	// version, "" where neither the client nor its settings say
	// (Strom-Model, Strom-Agent-Version).
	Model, AgentVersion string
}

// Events are what the run loop's surroundings can tell a running session.
type Events struct {
	Interrupts <-chan struct{}       // Ctrl-C from the person
	Out        io.Writer             // the run's own output lines
	Terminal   *os.File              // the person's terminal, nil when there is none
	stream     *agents.StreamSignals // stream-json signals, for an agent that writes them
}

// SessionsDir is the folder of the sessions' transcripts.
func SessionsDir(r *research.Research) string { return r.Tree.Path(statefiles.SessionsDir) }

// RunSession starts the agent on one task and returns when the session is committed.
func RunSession(ctx context.Context, r *research.Research, p agents.SessionPlan, ev Events) (SessionResult, error) {
	now := r.Now()
	id := research.NewSessionID(now)
	if p.Session != "" {
		id = p.Session
	}
	res := SessionResult{ID: id, Task: p.Task.ID}
	p.Root = r.Tree.Root
	deadline := now.Add(time.Duration(p.Minutes) * time.Minute)

	// Everything the session's commit needs is checked before its task is taken.
	if err := ReadyForSession(ctx, r); err != nil {
		return res, err
	}
	// The person's own pre-commit hook, which the session's commit skips, is tried
	// once before the first agent starts: a failing one is said, and stops nothing.
	if !r.Kept.OwnHookTried {
		r.Kept.OwnHookTried = true
		if g, err := r.Git(ctx); err == nil {
			if line := TryOwnHook(ctx, r, g); line != "" {
				fmt.Fprintln(ev.Out, line)
			}
		}
	}
	if err := statefiles.MkdirAll(SessionsDir(r), 0o755); err != nil {
		return res, fmt.Errorf("start session: %w", err)
	}
	// The folder is pruned when a run's first session starts and once a day after.
	if r.Kept.Pruned.IsZero() || now.Sub(r.Kept.Pruned) >= 24*time.Hour {
		if err := PruneSessions(SessionsDir(r), now, SessionsKeepDays, SessionsKeepBytes); err != nil {
			return res, err
		}
		r.Kept.Pruned = now
	}
	// Take the task and remember the queue as it was: the harness restores tasks the
	// session deleted or reworded, even after a crash.
	var task statefiles.Task
	var recs []statefiles.Record
	var note string
	err := r.Tree.Locked(ctx, func() error {
		if n, err := r.Tree.LoadNote(); err != nil {
			return err
		} else if n != nil {
			note = n.Text
		}
		t, err := r.Tree.UpdateTaskLocked(p.Task.ID, func(t *statefiles.Task) error {
			if t.State != statefiles.Open && (t.State != statefiles.Started || p.Session == "" || t.Session != p.Session) {
				return messages.New("run.not_open_now", messages.Args{"Task": t.ID, "State": messages.New("state."+string(t.State), nil)})
			}
			t.State, t.Session, t.Updated = statefiles.Started, id, now.UTC()
			return nil
		})
		if err != nil {
			return err
		}
		task = t
		if recs, err = r.Tree.TaskRecordsLocked(t.ID); err != nil {
			return err
		}
		if err := queue.TakeSnapshot(ctx, r, id, task); err != nil {
			return err
		}
		ri, err := runfiles.LoadRun(r)
		if err != nil || ri == nil {
			host, _ := os.Hostname()
			ri = &runfiles.RunInfo{PID: os.Getpid(), Host: host, Started: now}
		}
		ri.Session, ri.Task, ri.Agent, ri.SessionAt, ri.Deadline, ri.Minutes = id, task.ID, p.Profile.Name, now, deadline, p.Minutes
		ri.Sessions = append(ri.Sessions, id)
		ri.PausedTill, ri.PauseWhy, ri.AgentPGID = time.Time{}, "", 0
		return runfiles.SaveRun(r, ri)
	})
	if err != nil {
		return res, err
	}

	// The prompt, in a file too: agents that take it so, and a person reading later.
	info := agents.TaskInfo{ID: task.ID, Title: task.Title, Body: task.Body, Deadline: deadline, Minutes: p.Minutes, Strom: p.Vars.Strom,
		Msg: r.Messages()}
	for _, q := range task.Questions {
		info.Answers = append(info.Answers, agents.QA{Question: q.Question, Answer: q.Answer})
	}
	for _, rec := range recs {
		info.Records = append(info.Records, rec.Text)
	}
	if n := len(info.Records); n > agents.MaxPromptRecords {
		info.Records, info.OlderRecords = info.Records[n-agents.MaxPromptRecords:], n-agents.MaxPromptRecords
	}
	if task.Summary != nil {
		info.Summary = task.Summary.Text
	}
	info.Note, info.NeedSummary = note, p.CheckSummary
	prompt := agents.Prompt(info)
	v := p.Vars
	v.Prompt, v.Session = prompt, id
	v.PromptFile = filepath.Join(SessionsDir(r), id+".prompt")
	if err := statefiles.WriteFile(v.PromptFile, []byte(prompt), 0o644); err != nil {
		return res, fmt.Errorf("write prompt: %w", err)
	}
	// A prompt of any size reaches the agent: one too long for an argument or the
	// terminal is passed as a pointer to its file.
	if len(prompt) > agents.MaxArgPrompt {
		prompt = agents.PointerPrompt(task.ID, task.Title, v.PromptFile, len(prompt))
		v.Prompt = prompt
	}
	if agents.IsClaude(p.Profile) {
		overlay, err := hooks.ClaudeOverlay(v.Strom, id)
		if err == nil {
			v.Settings = filepath.Join(SessionsDir(r), id+".settings.json")
			err = statefiles.WriteFile(v.Settings, overlay, 0o644)
		}
		if err != nil {
			return res, fmt.Errorf("write the Claude Code settings: %w", err)
		}
	}
	argv, err := p.Profile.Argv(v)
	if err != nil {
		return res, abandon(ctx, r, id, task.ID, err)
	}
	transcript, err := OpenTranscript(filepath.Join(SessionsDir(r), id+".log"), TranscriptMax)
	if err != nil {
		return res, abandon(ctx, r, id, task.ID, err)
	}
	defer transcript.Close()

	env := sessionEnv(r.Getenv, v.Strom, id, task.ID, deadline, p.Minutes)
	if p.Profile.Permissions != nil && v.Permissions == agents.PermBypass && os.Geteuid() == 0 {
		env = append(env, "IS_SANDBOX=1")
	}
	if p.ClaudeDir != "" && agents.IsClaude(p.Profile) {
		env = append(env, "CLAUDE_CONFIG_DIR="+p.ClaudeDir)
	}
	if p.Profile.StreamJSON || p.Profile.MessageJSON {
		ev.stream = agents.NewStreamSignals(p.Profile)
	}
	fmt.Fprintln(ev.Out, r.Messages().Say("run.session_start", messages.Args{"Session": id, "Task": task.ID, "Title": termsafe.Line(task.Title),
		"Minutes": p.Minutes, "Until": runfiles.ClockAt(deadline.Local())}))

	ints := make(chan struct{}, 4)
	ask := NewAppAsk()
	sess, err := agentpty.Start(ctx, agentpty.Options{
		Argv:        argv,
		Dir:         r.Tree.Root,
		Env:         env,
		Terminal:    ev.Terminal,
		Transcript:  transcript,
		ForwardKeys: p.Interactive,
		OnInterrupt: func() { ints <- struct{}{} },
		OnKeys:      ask.OnKeys,
		Output:      ev.stream.Output(),
		Clock:       r.Clock,
		TypingClock: clock.Real{},
		Grace:       stopGrace,
	})
	if err != nil {
		// No agent ran, so nothing was tried on the task: no session, no commit, no
		// count toward parking. The task goes back to the queue and the run ends
		// with what could not be started.
		os.Remove(transcript.Name())
		return res, abandon(context.WithoutCancel(ctx), r, id, task.ID, StartError(argv, err))
	}
	r.Marked("agent-started")
	_ = runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.AgentPGID = sess.Pid() })
	if p.Profile.Prompt == agents.PromptStdin {
		_ = sess.Write([]byte(prompt + "\r"))
		_ = sess.Write([]byte{4})
	} else if p.Profile.Prompt == agents.PromptTyped {
		_ = sess.Type(prompt)
	}

	st := watch(ctx, r, sess, p, ev, ints, ask, id, deadline)
	r.Marked("agent-ended")
	if p.Chat {
		st = st.forChat()
	}
	res.Model, res.AgentVersion = agentModel(r, p, ev.stream, id, argv)
	// The session's commit is made even when strom itself is being stopped.
	return closeSession(context.WithoutCancel(ctx), r, st.result(res), task, p)
}

// agentModel is the model the session's agent worked with and its client's
// version: what the client reported of itself (Claude Code's statusLine, its
// stream-json), else the model its command line, environment or settings name
// and the version its program said to --version.
func agentModel(r *research.Research, p agents.SessionPlan, stream *agents.StreamSignals, id string, argv []string) (model, version string) {
	reported := runfiles.ReportedModel(r, id)
	streamModel, streamVersion := stream.Model()
	model = cmp.Or(reported.Model, streamModel)
	if model == "" {
		model = agents.ConfiguredModel(p.Profile.Binary, argv, r.Getenv, r.Tree.Root)
	}
	return model, cmp.Or(reported.Version, streamVersion, r.Kept.AgentVersionSaid)
}

// agentStopped reads the agent's stream and screen (tail) for what stops a session
// and needs a person: a subscription limit, a login error, or a screen that waits
// for an answer. It fills end, reset, detail and screen.
func agentStopped(msg *messages.Printer, stream *agents.StreamSignals, pats limits.Patterns, p agents.SessionPlan, tail []byte) (sessionStats, bool) {
	if sig, ok := agents.AgentSignal(stream, pats, tail); ok {
		said := saySignal(msg, sig)
		if sig.Kind == limits.Limit {
			return sessionStats{end: ends.EndSubscriptionLimit, reset: sig.Reset, detail: said}, true
		}
		return sessionStats{end: ends.EndNotLoggedIn, detail: said}, true
	}
	if scr, end, ok := PersonScreen(p, tail); ok {
		said := SayScreen(msg, p, scr)
		return sessionStats{end: end, detail: said, screen: said}, true
	}
	return sessionStats{}, false
}

// saySignal says what a limit or login signal reports: the agent's own words,
// quoted, as they are in the agent's language; or strom's account of an event
// that came without words.
func saySignal(msg *messages.Printer, sig limits.Signal) string {
	if sig.Own == "" {
		return msg.Say("watch.agent_said", messages.Args{"Text": termsafe.Line(sig.Text)})
	}
	args := messages.Args{}
	if sig.Own == limits.OwnWindow {
		switch sig.Window {
		case "five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet":
			args["Window"] = msg.Say("watch.window_" + sig.Window)
		default:
			args["Window"] = msg.Say("watch.window_other", messages.Args{"Name": termsafe.Line(strings.ReplaceAll(sig.Window, "_", " "))})
		}
	}
	return msg.Say("watch.own_"+string(sig.Own), args)
}

// sessionStats is what watching a session found out.
type sessionStats struct {
	end        ends.End
	ended      bool // end was decided while the agent ran
	reset      string
	detail     string
	finishSeen bool
	finish     *runfiles.FinishRequest // the finish request seen last, whoever asked
	screen     string                  // advice of a screen that waits for a person
	notStarted bool                    // the agent's shell could not start its program
}

func (st sessionStats) result(res SessionResult) SessionResult {
	res.End, res.Reset, res.Detail, res.Screen, res.Finish = st.end, st.reset, st.detail, st.screen, st.finish
	res.NotStarted = st.notStarted
	return res
}

// watch follows a running agent until it exits, and decides why the session ends.
func watch(ctx context.Context, r *research.Research, sess *agentpty.Session, p agents.SessionPlan, ev Events, ints chan struct{}, ask *AppAsk, id string, deadline time.Time) sessionStats {
	var st sessionStats
	pats := p.Profile.Patterns()
	extraGiven, nudgedAt := false, time.Time{}
	var closeAt time.Time
	finishTyped := false
	lastScan := time.Time{}
	hand := 0
	stop := func(end ends.End, detail string) {
		if !st.ended {
			st.end, st.detail, st.ended = end, detail, true
		}
		_ = sess.Stop(stopGrace)
	}
	// R7.3: the first Ctrl-C asks the session to finish, the second stops it now;
	// with --interactive the first stops at once.
	ctrlC := func() {
		hand++
		AppFinishDropped(r, ask, id)
		if hand > 1 || p.Interactive {
			stop(ends.EndStoppedByHand, r.Messages().Say("watch.by_ctrl_c"))
			return
		}
		_ = runfiles.RequestFinish(r, id, "Ctrl-C")
		fmt.Fprint(ev.Out, "\r\n"+r.Messages().Say("watch.asked_finish_again")+"\r\n")
	}
	for {
		select {
		case <-sess.Done():
			goto exited
		case <-ctx.Done():
			stop(ends.EndStoppedByHand, r.Messages().Say("watch.told_to_stop"))
		case <-ints: // Ctrl-C read from the raw terminal
			ctrlC()
		case <-ev.Interrupts: // SIGINT, when no terminal is raw
			ctrlC()
		case k := <-ask.Keys: // the answer to the app's request to finish
			AppFinishKey(r, ask, id, k, ev.Out)
		case <-time.After(pollEvery):
		}
		if st.ended {
			continue
		}
		now := r.Now()

		// The agent's own word: done, ask, or close.
		if why, ok := runfiles.Requested(r, "close", id); ok {
			if closeAt.IsZero() {
				closeAt = now
			}
			quiet := now.Sub(sess.LastOutput()) >= closeQuiet && now.Sub(closeAt) >= closeQuiet
			if quiet || now.Sub(closeAt) >= closeGrace {
				st.ended = true
				st.end = closeEnd(why, st.finishSeen)
				_ = sess.Stop(stopGrace)
				continue
			}
		}
		// The app's request to finish, confirmed in this terminal first.
		AppFinishSeen(r, ask, id, sess.OnTerminal(), ev.Out)
		// A request to finish, a person's or a watching condition's: the agent sees
		// it at its next strom command; an agent we can type into is also told.
		if f, ok := runfiles.FinishRequested(r, id); ok {
			st.finishSeen, st.finish = true, &f
			if !finishTyped && p.Profile.Interactive && p.Profile.Finish != "" {
				_ = sess.Type(f.Typed(r.Messages(), p.Profile.Finish))
			}
			finishTyped = true
		}
		// strom session stop: at once, the task back in the queue.
		if _, ok := runfiles.Requested(r, "stop", id); ok {
			stop(ends.EndStoppedByHand, r.Messages().Say("watch.by_session_stop"))
			continue
		}
		// Typed text from strom session send.
		DeliverSends(r, id, sess)

		// Subscription limit or login trouble on the screen.
		if last := sess.LastOutput(); last.After(lastScan) {
			lastScan = last
			if a, ok := agentStopped(r.Messages(), ev.stream, pats, p, sess.Tail()); ok {
				st.reset, st.screen = a.reset, a.screen
				stop(a.end, a.detail)
				continue
			}
		}
		// The time limit, with the extra minutes for an agent that can take them.
		if !now.Before(deadline) {
			if p.Profile.ExtraTime && !extraGiven && p.Profile.WrapUp != "" {
				extraGiven = true
				deadline = deadline.Add(ExtraTime)
				_ = runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.Deadline = deadline })
				_ = sess.Type(p.Profile.WrapUp)
				fmt.Fprint(ev.Out, r.Messages().Say("watch.extra_time", messages.Args{"Time": r.Messages().Duration(ExtraTime)})+"\r\n")
				continue
			}
			stop(ends.EndTimeLimit, r.Messages().Say("watch.time_limit"))
			continue
		}
		// An agent that sits idle is nudged once, then given up on.
		// A strom command the agent ran counts as activity as its output does.
		if p.Idle > 0 {
			last := sess.LastOutput()
			if !nudgedAt.IsZero() || now.Sub(last) >= p.Idle {
				if a := runfiles.LastCommand(r, id); a.After(last) {
					last = a
				}
			}
			idle := now.Sub(last)
			switch {
			case !nudgedAt.IsZero() && last.After(nudgedAt):
				nudgedAt = time.Time{}
			case nudgedAt.IsZero() && idle >= p.Idle:
				nudgedAt = now
				if p.Profile.Nudge != "" {
					_ = sess.Type(p.Profile.Nudge)
				}
			case !nudgedAt.IsZero() && now.Sub(nudgedAt) >= p.Idle:
				stop(ends.EndAgentFailed, r.Messages().Say("watch.idle", messages.Args{"Time": r.Messages().Duration(p.Idle)}))
			}
		}
	}
exited:
	status, err := sess.Wait()
	// A finish asked at any time ends the run after this session, however the
	// session ends (R7.3).
	if f, ok := runfiles.FinishRequested(r, id); ok {
		st.finish, st.finishSeen = &f, true
	}
	if st.ended {
		return st
	}
	// The agent exited by itself: read why.
	if why, ok := runfiles.Requested(r, "close", id); ok {
		st.end = closeEnd(why, st.finishSeen)
		return st
	}
	if a, ok := agentStopped(r.Messages(), ev.stream, pats, p, sess.Tail()); ok {
		st.end, st.reset, st.detail, st.screen = a.end, a.reset, a.detail, a.screen
		return st
	}
	if st.finish != nil {
		st.end = ends.EndFinishRequested
		return st
	}
	if err != nil || status.Code != 0 || status.Signaled() {
		st.end, st.detail = ends.EndAgentFailed, r.Messages().Say("watch.ended_without_close", messages.Args{"Status": sayStatus(r.Messages(), status)})
		if !status.Signaled() && (status.Code == 126 || status.Code == 127) {
			// A shell's "cannot execute" and "not found" (POSIX): the program the
			// agent's line names never started (agentstart.go).
			st.notStarted, st.detail = true, NotStartedDetail(r.Messages(), sayStatus(r.Messages(), status), sess.Tail())
		}
		return st
	}
	st.end = ends.EndClosed
	return st
}

// closeEnd maps the agent's close request to an ending.
func closeEnd(why string, finishRequested bool) ends.End {
	switch why {
	case "done":
		return ends.EndDone
	case "waiting":
		return ends.EndWaiting
	}
	if finishRequested {
		return ends.EndFinishRequested
	}
	return ends.EndClosed
}

// sessionEnv is the agent's environment: the person's, plus the session's variables
// and a PATH where strom is this binary.
func sessionEnv(getenv func(string) string, strom, id, task string, deadline time.Time, minutes int) []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "STROM_SESSION", "STROM_TASK", "STROM_DEADLINE", "STROM_MINUTES", "PATH":
			continue
		}
		out = append(out, kv)
	}
	path := getenv("PATH")
	if strom != "" {
		path = filepath.Dir(strom) + string(os.PathListSeparator) + path
	}
	return append(out,
		"PATH="+path,
		"STROM_SESSION="+id,
		"STROM_TASK="+task,
		"STROM_DEADLINE="+deadline.UTC().Format(time.RFC3339),
		fmt.Sprintf("STROM_MINUTES=%d", minutes),
	)
}

// abandon returns a task taken for a session that could not start, and says why.
func abandon(ctx context.Context, r *research.Research, id, task string, cause error) error {
	_, _ = r.Tree.UpdateTask(ctx, task, func(t *statefiles.Task) error {
		if t.State == statefiles.Started && t.Session == id {
			t.State, t.Session, t.Host = statefiles.Open, "", ""
		}
		return nil
	})
	_ = runfiles.UpdateRun(r, func(ri *runfiles.RunInfo) { ri.Session, ri.Task, ri.AgentPGID = "", "", 0 })
	os.Remove(queue.SnapshotFile(r, id))
	return cause
}

// forChat is how a chat's session ends: a person ended it, unless the agent hit
// its limit or is not logged in, which the person must act on.
func (st sessionStats) forChat() sessionStats {
	switch st.end {
	case ends.EndSubscriptionLimit, ends.EndNotLoggedIn:
		return st
	}
	st.end, st.detail = ends.EndClosedByPerson, ""
	return st
}
