package gitrepo

import (
	"bufio"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
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

	rev string // where the walk starts; HEAD when empty (the CLI path only)
}

// Log lists the commits reachable from HEAD, newest first in git log's default order
// (by commit date; on equal dates, the first one reached first). An unborn branch
// has no commits. Every way of reading gives the same result. A bounded read (Max
// above 0: `strom log`, recovery) reads the object files itself (logObjects): the
// few commits it needs, looked up in the pack indexes without loading them, so it
// costs neither a git process nor go-git's load of the whole pack index (every
// object of the repository); a layout it does not read goes through one `git log`
// process, which also stops after Max commits. The whole history goes through
// go-git and, when go-git cannot open or read the repository, through `git log`.
func (r *Repo) Log(ctx context.Context, opts LogOptions) ([]Commit, error) {
	if opts.Max > 0 {
		return r.logBounded(ctx, opts)
	}
	commits, err := r.logGoGit(ctx, opts)
	if err == nil {
		return commits, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read log: %w", ctx.Err())
	}
	return r.logCLI(ctx, opts)
}

// LogFrom is Log with Max above 0 from the commit rev instead of HEAD: for a caller
// that keeps the answer for the commit it read HEAD as, so that a commit made
// meanwhile is not kept under the older name.
func (r *Repo) LogFrom(ctx context.Context, rev string, opts LogOptions) ([]Commit, error) {
	if opts.Max <= 0 || rev == "" {
		return nil, fmt.Errorf("read log: a bounded read from a commit needs both")
	}
	opts.rev = rev
	return r.logBounded(ctx, opts)
}

// logBounded reads at most opts.Max commits: from the object files when strom reads
// their layout and the commits asked for are near HEAD, else through one git log.
// Either way the result is git log's.
func (r *Repo) logBounded(ctx context.Context, opts LogOptions) ([]Commit, error) {
	cs, err := r.logObjects(ctx, opts)
	if err == nil {
		return cs, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read log: %w", ctx.Err())
	}
	return r.logCLI(ctx, opts)
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

// openGoGit opens the repository's object and ref storage with go-git, from the git
// dirs git itself named in Open (so linked worktrees need no detection of go-git's
// own). It refuses what go-git's own Open refuses — a repository format above 1 and
// any extension but noop (worktreeConfig, SHA-256 object format, split index, …) —
// which is the signal to use the CLI. Only the storage layer is used: go-git's
// top-level package would also link every network transport into strom, and each
// strom command would pay their set-up at start. Pack files stay open until close is
// called: go-git otherwise reopens the pack for every object it reads.
func (r *Repo) openGoGit() (st *filesystem.Storage, close func(), err error) {
	var fs billy.Filesystem = osfs.New(r.GitDir)
	if r.CommonDir != r.GitDir {
		fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(r.CommonDir))
	}
	st = filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	if err := goGitCanRead(st); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

// errGoGitUnsupported says go-git cannot be trusted to read this repository.
var errGoGitUnsupported = errors.New("repository format not read by go-git")

// goGitCanRead applies the rule of go-git's Open, a little stricter:
// core.repositoryformatversion 0 or 1, and no extension beyond noop and noop-v1.
func goGitCanRead(st *filesystem.Storage) error {
	cfg, err := st.Config()
	if err != nil {
		return err
	}
	if cfg.Raw == nil {
		return nil
	}
	// The raw value: go-git's parsed field reads any value but 1 as unset.
	switch v := strings.TrimSpace(cfg.Raw.Section("core").Options.Get("repositoryformatversion")); v {
	case "", "0", "1":
	default:
		return fmt.Errorf("%w: core.repositoryformatversion %s", errGoGitUnsupported, v)
	}
	if !cfg.Raw.HasSection("extensions") {
		return nil
	}
	for _, o := range cfg.Raw.Section("extensions").Options {
		switch strings.ToLower(o.Key) {
		case "noop", "noop-v1":
		default:
			return fmt.Errorf("%w: extensions.%s", errGoGitUnsupported, o.Key)
		}
	}
	return nil
}

func (r *Repo) logGoGit(ctx context.Context, opts LogOptions) ([]Commit, error) {
	st, closeRepo, err := r.openGoGit()
	if err != nil {
		return nil, fmt.Errorf("open repo with go-git: %w", err)
	}
	defer closeRepo()
	ref, err := storer.ResolveReference(st, plumbing.HEAD)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	get := func(h plumbing.Hash) (*commitInfo, error) {
		obj, err := st.EncodedObject(plumbing.CommitObject, h)
		if err != nil {
			return nil, err
		}
		rd, err := obj.Reader()
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		data, err := io.ReadAll(rd)
		if err != nil {
			return nil, err
		}
		return parseCommit(h, data)
	}
	return walkLog(ctx, opts, ref.Hash(), get, 0)
}

// errWalkLimit says a walk read as many commits as it was allowed to.
var errWalkLimit = errors.New("walk limit reached")

// walkLog is git log's default walk from start: a queue ordered by commit date,
// newest first, ties in the order commits entered the queue; parents enter in
// their order. It reads at most limit commits (0: no limit), else errWalkLimit.
func walkLog(ctx context.Context, opts LogOptions, start plumbing.Hash, get func(plumbing.Hash) (*commitInfo, error), limit int) ([]Commit, error) {
	first, err := get(start)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", start, err)
	}
	q := &commitQueue{}
	seen := map[plumbing.Hash]bool{first.hash: true}
	heap.Push(q, queued{first, 0})
	seq := 1
	sink := &logSink{opts: opts}
	for q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := heap.Pop(q).(queued).c
		if !sink.add(c.hash.String(), c.author, c.when, c.message) {
			break
		}
		for _, ph := range c.parents {
			if seen[ph] {
				continue
			}
			if limit > 0 && seq >= limit {
				return nil, errWalkLimit
			}
			seen[ph] = true
			p, err := get(ph)
			if err != nil {
				return nil, fmt.Errorf("read commit %s: %w", ph, err)
			}
			heap.Push(q, queued{p, seq})
			seq++
		}
	}
	return sink.out, nil
}

// logObjects is a bounded log read from the object files themselves (objectFiles),
// without a git process: the read of `strom log`, `strom status` after HEAD moved
// and recovery, whose cost is then the few commits it reads, not git's start. It
// reads at most objectWalkLimit(opts.Max) commits; a history where the commits
// asked for are sparser than that, and every layout objectFiles does not read,
// give an error, and the caller asks git.
func (r *Repo) logObjects(ctx context.Context, opts LogOptions) ([]Commit, error) {
	head := opts.rev
	if head == "" {
		h, err := r.headFromFiles()
		if errors.Is(err, ErrNoCommits) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		head = h
	}
	if len(head) != 40 || !isHash(head) {
		return nil, fmt.Errorf("%w: start %q", errObjectLayout, head)
	}
	o, err := openObjectFiles(r.CommonDir)
	if err != nil {
		return nil, err
	}
	defer o.close()
	get := func(h plumbing.Hash) (*commitInfo, error) {
		data, err := o.commit(h.String())
		if err != nil {
			return nil, err
		}
		if objectName("commit", data) != h {
			return nil, fmt.Errorf("%w: the content of %s hashes to another name", errObjectLayout, h)
		}
		return parseCommit(h, data)
	}
	limit := 0
	if opts.Max > 0 {
		limit = objectWalkLimit(opts.Max)
	}
	return walkLog(ctx, opts, plumbing.NewHash(head), get, limit)
}

// sinceLimit is the most commits LogSince reads.
const sinceLimit = 100

// LogSince reads the commits from rev back to the commit since, newest first, when
// they are a line of commits of one parent each and since is reached within
// sinceLimit commits: then git log from rev is those commits followed by git log
// from since, so a caller that kept the log read from since needs only these. It
// returns those that pass opts (at most opts.Max: the line ends there once they
// are enough) and whether it could; a merge, a root, a longer line, a layout the
// object files reader does not read or an error gives false, and the caller reads
// the log from rev.
func (r *Repo) LogSince(ctx context.Context, rev, since string, opts LogOptions) ([]Commit, bool) {
	if len(rev) != 40 || !isHash(rev) || len(since) != 40 || !isHash(since) {
		return nil, false
	}
	o, err := openObjectFiles(r.CommonDir)
	if err != nil {
		return nil, false
	}
	defer o.close()
	sink := &logSink{opts: opts}
	h := plumbing.NewHash(rev)
	stop := plumbing.NewHash(since)
	for range sinceLimit {
		if h == stop {
			return sink.out, true
		}
		if ctx.Err() != nil {
			return nil, false
		}
		data, err := o.commit(h.String())
		if err != nil || objectName("commit", data) != h {
			return nil, false
		}
		c, err := parseCommit(h, data)
		if err != nil || len(c.parents) != 1 {
			return nil, false
		}
		if !sink.add(c.hash.String(), c.author, c.when, c.message) {
			return sink.out, true
		}
		h = c.parents[0]
	}
	return nil, false
}

// objectWalkLimit is the most commits logObjects reads for max commits: a session
// commit among every few of the agent's own, and a little more.
func objectWalkLimit(max int) int { return 50 + 10*max }

type queued struct {
	c   *commitInfo
	seq int
}

type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	a, b := q[i].c.committed, q[j].c.committed
	if a != b {
		return a > b
	}
	return q[i].seq < q[j].seq
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// logFields is the number of NUL-terminated fields `git log` writes per commit.
const logFields = 5

// logCLI reads the log with one `git log` process; only when that fails does it
// start a second, to tell an unborn branch (no commits: no error) from a failure.
func (r *Repo) logCLI(ctx context.Context, opts LogOptions) ([]Commit, error) {
	if opts.Max > 0 {
		// git stops after Max commits that pass --grep. Almost always each of them
		// carries the trailer; when one only mentions the key, read on unbounded.
		cs, read, err := r.logCLIOnce(ctx, opts, opts.Max)
		if err != nil || len(cs) == opts.Max || read < opts.Max {
			return cs, err
		}
	}
	cs, _, err := r.logCLIOnce(ctx, opts, 0)
	return cs, err
}

// logCLIOnce is one `git log` process, of at most limit commits (0: all); it also
// returns how many commits git gave.
func (r *Repo) logCLIOnce(ctx context.Context, opts LogOptions, limit int) ([]Commit, int, error) {
	// Replace refs and re-encoding are off because go-git knows neither; the
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
	rev := opts.rev
	if rev == "" {
		rev = "HEAD"
	}
	args = append(args, rev, "--")
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

// parseRawDate reads git's --date=raw ("1700000000 +0100") into the same time
// go-git builds from a signature.
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
