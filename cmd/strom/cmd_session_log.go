package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/statefiles"
)

// Paging of strom session log (seed exec-process-tool).
const (
	logDefaultLines = 200
	logMaxWait      = 30 * time.Second
	logWaitPoll     = 50 * time.Millisecond
)

func sessionLogCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom session log")
	offset := fs.Int("offset", -1, "first line, counted from 0")
	limit := fs.Int("limit", 0, "at most K lines")
	wait := fs.Int("wait", 0, "wait up to MS milliseconds (at most 30000) for new output of a running session")
	return &ffcli.Command{
		Name:       "log",
		ShortUsage: "strom session log [N|ID] [--offset L] [--limit K] [--wait MS]",
		ShortHelp:  "a session's transcript by lines (the last 200 by default)",
		FlagSet:    fs,
		LongHelp: withHelp(`Without a session: the running one, or the newest transcript. Lines are
counted from 0. Without --offset and --limit: the last 200 lines, and a hint how
to page; --offset alone: from that line to the end; --limit alone: the last K
lines; both: K lines from L. --wait MS first waits up to MS milliseconds (at most
30000) for the running session to write something new.`, ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if *offset < -1 || *limit < 0 || *wait < 0 {
				return usagef("--offset, --limit and --wait take whole numbers 0 or more")
			}
			if len(args) > 1 {
				return usagef("strom session log takes one session at most (N or its id)")
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			id := ""
			if len(args) > 0 {
				id = args[0]
			}
			_, live, _ := s.liveSessions()
			running := false
			var cur liveSession
			if l, err := pickSession(live, id); err == nil {
				id, running, cur = l.Session, true, l
			}
			if id == "" {
				logs, _ := filepath.Glob(r.Tree.Path(statefiles.SessionsDir, "*.log"))
				if len(logs) == 0 {
					return fmt.Errorf("no session transcripts yet: strom run makes them")
				}
				id = strings.TrimSuffix(filepath.Base(logs[len(logs)-1]), ".log")
			}
			if !validSessionID(id) {
				return fmt.Errorf("no session %q: strom log lists the sessions", id)
			}
			path := r.Tree.Path(statefiles.SessionsDir, id+".log")
			if running && *wait > 0 {
				waitForOutput(ctx, path, min(time.Duration(*wait)*time.Millisecond, logMaxWait))
			}
			lines, err := readLines(path)
			if err != nil {
				return fmt.Errorf("no transcript for session %s: strom log lists the sessions", id)
			}
			n := len(lines)
			from, to := 0, n
			switch {
			case *offset >= 0:
				from = min(*offset, n)
				if *limit > 0 {
					to = min(from+*limit, n)
				}
			case *limit > 0:
				from = max(0, n-*limit)
			default:
				from = max(0, n-logDefaultLines)
			}
			for _, l := range lines[from:to] {
				fmt.Fprintln(s.stdout, l)
			}
			// The transcript and the stdin state together, before a person types in.
			if running && *wait > 0 {
				// The wait itself was quiet time: look again.
				_, live, _ = s.liveSessions()
				if l, err := pickSession(live, id); err == nil {
					cur = l
				}
			}
			if running && cur.WaitingForInput {
				fmt.Fprintf(s.stderr, "(the agent of session %d waits for input: strom session send %d TEXT, or --keys)\n", cur.N, cur.N)
			}
			if from == 0 && to == n {
				return nil
			}
			hint := fmt.Sprintf("(lines %d–%d of %d", from, max(from, to-1), n)
			if from == to {
				hint = fmt.Sprintf("(no lines from %d: the transcript has %d", from, n)
			}
			if from > 0 {
				page := min(from, logDefaultLines)
				hint += fmt.Sprintf("; earlier: strom session log %s --offset %d --limit %d", id, from-page, page)
			}
			if to < n {
				hint += fmt.Sprintf("; later: strom session log %s --offset %d", id, to)
			}
			fmt.Fprintln(s.stderr, hint+")")
			return nil
		}),
	}
}

// readLines reads a transcript's lines, each without its line break.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	return lines, sc.Err()
}

// waitForOutput waits up to d for the transcript at path to grow. The transcript
// is written by another process: its size is looked at on the real clock.
func waitForOutput(ctx context.Context, path string, d time.Duration) {
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	real := clock.Real{}
	was, end := size(), real.Now().Add(d)
	for real.Now().Before(end) && size() == was {
		select {
		case <-ctx.Done():
			return
		case <-real.After(min(logWaitPoll, end.Sub(real.Now()))):
		}
	}
}
