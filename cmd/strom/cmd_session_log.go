package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
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
	offset := fs.Int("offset", -1, "help.session.log.flag.offset")
	limit := fs.Int("limit", 0, "help.session.log.flag.limit")
	wait := fs.Int("wait", 0, "help.session.log.flag.wait")
	return &ffcli.Command{
		Name:       "log",
		ShortUsage: "strom session log [N|ID] [--offset L] [--limit K] [--wait MS]",
		ShortHelp:  "help.session.log.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.session.log.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			// --offset counts from 0 and --limit is at least one line: a value
			// that cannot mean a page is refused, not read as "no flag".
			switch {
			case given(fs, "offset") && *offset < 0:
				return s.usage("usage.session.log.offset", messages.Args{"Value": *offset})
			case given(fs, "limit") && *limit < 1:
				return s.usage("usage.session.log.limit", messages.Args{"Value": *limit})
			case *wait < 0:
				return s.usage("usage.session.log.wait", messages.Args{"Value": *wait})
			}
			if len(args) > 1 {
				return s.usage("usage.session.log.args")
			}
			if err := s.namedSessions(args); err != nil {
				return err
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			p := s.msg()
			id := ""
			if len(args) > 0 {
				id = args[0]
			}
			_, live, _ := s.liveSessions()
			running := false
			var cur liveSession
			if l, err := s.pickSession(live, id); err == nil {
				id, running, cur = l.Session, true, l
			}
			if id == "" {
				logs, _ := filepath.Glob(r.Tree.Path(statefiles.SessionsDir, "*.log"))
				if len(logs) == 0 {
					return errors.New(p.Say("session.no_transcripts"))
				}
				id = strings.TrimSuffix(filepath.Base(logs[len(logs)-1]), ".log")
			}
			if !research.ValidSessionID(id) {
				return errors.New(p.Say("session.no_session", messages.Args{"Session": termsafe.Excerpt(id)}))
			}
			path := r.Tree.Path(statefiles.SessionsDir, id+".log")
			if running && *wait > 0 {
				waitForOutput(ctx, path, min(time.Duration(*wait)*time.Millisecond, logMaxWait))
			}
			lines, err := readLines(path)
			if err != nil {
				return errors.New(p.Say("session.no_transcript", messages.Args{"Session": id}))
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
				if l, err := s.pickSession(live, id); err == nil {
					cur = l
				}
			}
			if running && cur.WaitingForInput {
				fmt.Fprintln(s.stderr, "("+p.Say("session.log_input", messages.Args{"N": cur.N})+")")
			}
			if from == 0 && to == n {
				return nil
			}
			hint := p.Say("session.log_lines", messages.Args{"From": from, "To": max(from, to-1), "Total": n})
			if from == to {
				hint = p.Say("session.log_past", messages.Args{"From": from, "Lines": n})
			}
			if from > 0 {
				page := min(from, logDefaultLines)
				hint += "; " + p.Say("session.log_earlier", messages.Args{"Session": id, "Offset": from - page, "Limit": page})
			}
			if to < n {
				hint += "; " + p.Say("session.log_later", messages.Args{"Session": id, "Offset": to})
			}
			fmt.Fprintln(s.stderr, "("+hint+")")
			return nil
		}),
	}
}

// readLines reads a transcript's lines, each without its line break.
func readLines(path string) ([]string, error) {
	f, err := statefiles.OpenRead(path)
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
