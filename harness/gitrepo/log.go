package gitrepo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Commit is one commit of the history.
type Commit struct {
	Hash    string
	When    time.Time // author date, in the author's time zone
	Subject string    // the first paragraph on one line, as git's %s
	Message Message
	Author  string // "Name <email>"
}

// LogOptions select commits for Log.
type LogOptions struct {
	// Max is the most commits returned; 0 means all.
	Max int
	// TrailerKey keeps only commits whose trailers include this key (compared
	// ignoring case, as git does), such as "Strom-Session".
	TrailerKey string
	// Since keeps only commits made at or after it (git's --since: by commit
	// date, and git stops reading soon after it passes it); zero means all.
	Since time.Time
}

// Log lists the commits reachable from HEAD, newest first in git log's default order
// (by commit date; on equal dates, the first one reached first). An unborn branch
// has no commits. The history is read by the git CLI, bounded or not: one `git log`
// costs less than go-git's load of the pack index (every object of the
// repository) as soon as a research has a few thousand commits (BENCHMARKS.md,
// "The last session commit"), and git reads every repository layout git writes.
func (r *Repo) Log(ctx context.Context, opts LogOptions) ([]Commit, error) {
	if opts.Max > 0 {
		// git stops after Max commits that pass --grep. Almost always each of them
		// carries the trailer; when one only mentions the key, read on unbounded.
		cs, read, err := r.logOnce(ctx, opts, opts.Max)
		if err != nil || len(cs) == opts.Max || read < opts.Max {
			return cs, err
		}
	}
	cs, _, err := r.logOnce(ctx, opts, 0)
	return cs, err
}

// logSink collects commits and says when to stop.
type logSink struct {
	opts LogOptions
	out  []Commit
}

// add keeps c if it passes the filter and reports whether more are wanted.
func (s *logSink) add(hash, author string, when time.Time, raw string) bool {
	msg := ParseMessage(raw)
	if s.opts.TrailerKey != "" {
		if _, ok := msg.Trailer(s.opts.TrailerKey); !ok {
			return true
		}
	}
	s.out = append(s.out, Commit{Hash: hash, When: when, Subject: msg.Subject, Message: msg, Author: author})
	return s.opts.Max <= 0 || len(s.out) < s.opts.Max
}

// logFields is the number of NUL-terminated fields `git log` writes per commit.
const logFields = 5

// logOnce is one `git log` process, of at most limit commits (0: all); it also
// returns how many commits git gave.
func (r *Repo) logOnce(ctx context.Context, opts LogOptions, limit int) ([]Commit, int, error) {
	// Replace refs and re-encoding are off: a commit reads as its object says. The
	// format's last field is the raw message, so any byte but NUL may appear in it.
	args := []string{
		"--no-replace-objects", "log", "--no-show-signature", "--no-color", "--encoding=none",
		"-z", "--date=raw", "--format=%H%x00%an%x00%ae%x00%ad%x00%B",
	}
	if isTrailerKey(opts.TrailerKey) {
		// A cheap pre-filter: git skips the commits whose message does not contain
		// the key at all (ignoring case, as the trailer match does). Every commit
		// with the trailer contains it; logSink.add still parses the trailers of
		// the commits that pass, so a key mentioned in a body changes nothing.
		args = append(args, "--regexp-ignore-case", "--fixed-strings", "--grep="+opts.TrailerKey)
	}
	if limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(limit))
	}
	if !opts.Since.IsZero() {
		args = append(args, "--since="+opts.Since.UTC().Format("2006-01-02 15:04:05 +0000"))
	}
	args = append(args, "HEAD", "--")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := command(cctx, r.Root, args, nil)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, fmt.Errorf("read log: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("read log: %w", &GitError{Args: args, Err: err})
	}
	sink := &logSink{opts: opts}
	read := 0
	br := bufio.NewReaderSize(stdout, 64<<10)
	var perr error
	stopped := false
	for !stopped {
		var f [logFields]string
		n := 0
		for ; n < logFields; n++ {
			s, err := br.ReadString(0)
			if err != nil {
				if !errors.Is(err, io.EOF) || n > 0 || s != "" {
					perr = fmt.Errorf("parse git log output: %w", io.ErrUnexpectedEOF)
				}
				break
			}
			f[n] = s[:len(s)-1]
		}
		if n < logFields {
			break
		}
		read++
		if !sink.add(f[0], f[1]+" <"+f[2]+">", parseRawDate(f[3]), f[4]) {
			stopped = true
		}
	}
	if stopped {
		cancel() // we have enough; git may still be writing
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, 0, fmt.Errorf("read log: %w", ctx.Err())
	}
	if werr != nil && !stopped {
		if _, err := r.Head(ctx); errors.Is(err, ErrNoCommits) {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("read log: %w", &GitError{Args: args, Stderr: stderr.String(), Err: werr})
	}
	if perr != nil {
		return nil, 0, fmt.Errorf("read log: %w", perr)
	}
	return sink.out, read, nil
}

// parseRawDate reads git's --date=raw ("1700000000 +0100") into the time in the
// author's zone.
func parseRawDate(s string) time.Time {
	secs, tz, _ := strings.Cut(s, " ")
	ts, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}
	}
	t := time.Unix(ts, 0).In(time.UTC)
	if len(tz) != 5 {
		return t
	}
	h, err1 := strconv.ParseInt(tz[0:3], 10, 64)
	m, err2 := strconv.ParseInt(tz[3:], 10, 64)
	if err1 != nil || err2 != nil {
		return t
	}
	if h < 0 {
		m = -m
	}
	return t.In(time.FixedZone("", int(h*3600+m*60)))
}
