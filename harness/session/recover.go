package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/ends"
	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// RecoverCrash commits what a crashed run left: the agent's processes are stopped,
// everything in the work tree is committed with Strom-End: crashed, and the task
// returns to the queue. Tasks left started by sessions that are gone return too.
// The caller holds the run lock, so no live run is touched. check is the run's
// check command, allowed before anything started.
func RecoverCrash(ctx context.Context, r *research.Research, out func(string), check string) error {
	ri, err := runfiles.LoadRun(r)
	if err != nil {
		return err
	}
	if ri != nil && ri.Session != "" {
		stopSessionProcesses(ri.AgentPGID, ri.Session)
		committed, err := sessionCommitted(ctx, r, ri.Session)
		if err != nil {
			return err
		}
		if committed {
			// strom died after the session's commit, before tidying up.
			runfiles.ClearRequests(r, ri.Session)
			os.Remove(queue.SnapshotFile(r, ri.Session))
		} else {
			out(r.Messages().Say("run.recovered", messages.Args{"Session": ri.Session, "Task": ri.Task, "PID": ri.PID}))
			title := ri.Task
			if t, err := r.Tree.FindTask(ctx, ri.Task); err == nil {
				title = t.Title
			} else if !errors.Is(err, statefiles.ErrUnknownTask) {
				return err
			}
			task := statefiles.Task{ID: ri.Task, Title: title}
			res := SessionResult{ID: ri.Session, Task: ri.Task, End: ends.EndCrashed}
			if _, err := closeSession(ctx, r, res, task, agents.SessionPlan{Profile: agents.Profile{Name: ri.Agent}, Check: check}); err != nil {
				return err
			}
		}
	}
	// A task held by a session that no longer runs returns to the queue. In a
	// research synced with a remote, a started task may be another machine's
	// claim: only one made before sync (no host) returns here, and one this
	// clone's last run claimed for a session that never began (run.json says
	// which); another machine's claim of a session that never began returns when
	// it grows stale (machines.StaleGrace).
	synced := r.Synced()
	claimed := ""
	if ri != nil && ri.Claimed != ri.Session {
		claimed = ri.Claimed
	}
	returns := func(t statefiles.Task) bool {
		return t.State == statefiles.Started && (!synced || t.Host == "" || claimed != "" && t.Session == claimed)
	}
	var started []string
	var released []statefiles.Task
	if err := r.Tree.EachTask(ctx, statefiles.Started, func(t statefiles.Task) bool {
		if returns(t) {
			started = append(started, t.ID)
		}
		return true
	}); err != nil {
		return err
	}
	if len(started) == 0 {
		return nil
	}
	err = r.Tree.Locked(ctx, func() error {
		for _, id := range started {
			if _, err := r.Tree.UpdateTaskLocked(id, func(t *statefiles.Task) error {
				if returns(*t) {
					if synced && t.Host != "" {
						released = append(released, *t)
					}
					t.State, t.Session, t.Host = statefiles.Open, "", ""
				}
				return nil
			}); err != nil && !errors.Is(err, statefiles.ErrUnknownTask) {
				return err
			}
		}
		return nil
	})
	if err != nil || len(released) == 0 {
		return err
	}
	return releaseClaims(ctx, r, released, out)
}

// releaseClaims commits the return to the queue of tasks this clone claimed for
// sessions that never began, and says each: the commit goes to the remote with
// the next push, which deletes their claims there (ownEnded).
func releaseClaims(ctx context.Context, r *research.Research, released []statefiles.Task, out func(string)) error {
	var ids []string
	for _, t := range released {
		ids = append(ids, t.ID)
		out(r.Messages().Say("sync.released", messages.Args{"Task": t.ID, "Session": t.Session}))
	}
	host := r.Host()
	return r.Tree.Locked(ctx, func() error {
		msg := gitrepo.Message{
			Subject:  r.Messages().Say("sync.released_subject", messages.Args{"Tasks": strings.Join(ids, ", "), "Host": host}),
			Trailers: []gitrepo.Trailer{{Key: research.TrailerHost, Value: host}},
		}
		if _, err := r.CommitPaths(ctx, msg, r.QueuePaths()); err != nil && !errors.Is(err, gitrepo.ErrNothingToCommit) {
			return fmt.Errorf("commit the tasks returned: %w", err)
		}
		return nil
	})
}

// sessionCommitted reports whether a recent commit already carries the session.
func sessionCommitted(ctx context.Context, r *research.Research, session string) (bool, error) {
	g, err := r.Git(ctx)
	if err != nil {
		return false, err
	}
	commits, err := g.Log(ctx, gitrepo.LogOptions{Max: 20, TrailerKey: research.TrailerSession})
	if err != nil {
		return false, nil // an unborn branch has no sessions yet
	}
	for _, c := range commits {
		if v, _ := c.Message.Trailer(research.TrailerSession); v == session {
			return true, nil
		}
	}
	return false, nil
}

// stopSessionProcesses stops what a crashed session left running: its process group
// when it was recorded, and any process whose environment names the session (the
// agent may have been started just before its group was written down, or a child
// may have left the group).
func stopSessionProcesses(pgid int, session string) {
	pids := sessionPIDs(session)
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		alive := pgid > 0 && groupAlive(pgid)
		for _, p := range pids {
			if syscall.Kill(p, 0) == nil && !runfiles.Zombie(p) {
				alive = true
			}
		}
		if !alive {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// sessionPIDs finds processes whose environment holds STROM_SESSION=session. Where
// /proc does not exist it finds none.
func sessionPIDs(session string) []int {
	want := []byte("STROM_SESSION=" + session + "\x00")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// groupAlive reports whether a process group has a member that still runs. An
// exited member that nobody reaped (its parent, strom, is gone) does not count.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

// MendAfterKill undoes what git processes of a killed strom left (a merge begun,
// a lock file, a merge driver's temporary file) and says each in one line on out.
func MendAfterKill(ctx context.Context, r *research.Research, g *gitrepo.Repo, out io.Writer) error {
	mended, err := g.MendAfterKill(ctx)
	for _, m := range mended {
		fmt.Fprintln(out, r.Messages().Say("run.mended_"+m.What, messages.Args{"File": m.Path, "Count": m.Count}))
	}
	return err
}
