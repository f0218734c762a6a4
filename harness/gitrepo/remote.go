package gitrepo

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Branch is the current branch's short name; "" on a detached HEAD.
func (r *Repo) Branch(ctx context.Context) (string, error) {
	// HEAD's file names the branch; git is asked only of what it does not say.
	if b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD")); err == nil {
		s := strings.TrimSpace(string(b))
		if name, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
			return name, nil
		}
		if isHash(s) {
			return "", nil
		}
	}
	out, err := r.git(ctx, []string{"symbolic-ref", "-q", "--short", "HEAD"}, nil, nil)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", nil
		}
		return "", fmt.Errorf("read the branch: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Upstream is the remote and branch the current branch tracks (branch.<b>.remote
// and branch.<b>.merge); both "" when it tracks none.
func (r *Repo) Upstream(ctx context.Context) (remote, branch string, err error) {
	b, err := r.Branch(ctx)
	if err != nil || b == "" {
		return "", "", err
	}
	remote, _ = r.anyConfig(ctx, "branch."+b+".remote")
	merge, _ := r.anyConfig(ctx, "branch."+b+".merge")
	return remote, strings.TrimPrefix(merge, "refs/heads/"), nil
}

// RemoteURL is the URL of a remote of this clone's git config; "" when there is
// no such remote.
func (r *Repo) RemoteURL(ctx context.Context, remote string) string {
	u, _ := r.anyConfig(ctx, "remote."+remote+".url")
	return u
}

func (r *Repo) anyConfig(ctx context.Context, key string) (string, error) {
	out, err := r.git(ctx, []string{"config", "--get", key}, nil, nil)
	return strings.TrimSpace(string(out)), err
}

// TrackingRef is the ref a fetch of remote's branch updates.
func TrackingRef(remote, branch string) string {
	return "refs/remotes/" + remote + "/" + branch
}

// Fetch brings remote's branch into TrackingRef(remote, branch). A remote that
// does not answer gives an error wrapping ErrRemoteAway.
//
// The fetch starts no `git maintenance run --auto` of its own: a synced run
// fetches before and after every session, and the commits it makes run git's
// automatic maintenance as always.
func (r *Repo) Fetch(ctx context.Context, remote, branch string) error {
	return r.FetchWith(ctx, remote, branch, "", "")
}

// FetchWith is Fetch that in the same git fetch also brings the remote's refs
// under prefix (a folder under refs/, ending in "/"; "" for none) to the same
// names under into, and removes those under into the remote no longer has.
func (r *Repo) FetchWith(ctx context.Context, remote, branch, prefix, into string) error {
	args := []string{"fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance"}
	if prefix != "" {
		args = append(args, "--prune")
	}
	args = append(args, remote, "+refs/heads/"+branch+":"+TrackingRef(remote, branch))
	if prefix != "" {
		args = append(args, "+"+prefix+"*:"+into+"*")
	}
	if _, err := r.git(ctx, args, nil, nil); err != nil {
		return fmt.Errorf("fetch %s from %s: %w: %w", branch, remote, ErrRemoteAway, err)
	}
	return nil
}

// FetchRefs brings the remote's refs under prefix (a folder under refs/, ending
// in "/") to the same names under into, and removes those under into the remote
// no longer has. Errors as Fetch's.
func (r *Repo) FetchRefs(ctx context.Context, remote, prefix, into string) error {
	spec := "+" + prefix + "*:" + into + "*"
	if _, err := r.git(ctx, []string{"fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--prune", remote, spec}, nil, nil); err != nil {
		return fmt.Errorf("fetch %s from %s: %w: %w", prefix, remote, ErrRemoteAway, err)
	}
	return nil
}

// RemoteTip asks the remote which commit its branch names ("" when it has no
// such branch), without fetching it. An error wraps ErrRemoteAway.
func (r *Repo) RemoteTip(ctx context.Context, remote, branch string) (string, error) {
	out, err := r.git(ctx, []string{"ls-remote", remote, "refs/heads/" + branch}, nil, nil)
	if err != nil {
		return "", fmt.Errorf("ask %s for %s: %w: %w", remote, branch, ErrRemoteAway, err)
	}
	hash, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
	return hash, nil
}

// RemoteRefs asks the remote for its refs under prefix (a folder under refs/,
// ending in "/"), by full name, with the objects they name, fetching nothing.
func (r *Repo) RemoteRefs(ctx context.Context, remote, prefix string) (map[string]string, error) {
	out, err := r.git(ctx, []string{"ls-remote", remote, prefix + "*"}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("ask %s for %s: %w: %w", remote, prefix, ErrRemoteAway, err)
	}
	refs := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if hash, ref, ok := strings.Cut(l, "\t"); ok && strings.HasPrefix(ref, prefix) {
			refs[ref] = hash
		}
	}
	return refs, nil
}

// RefCommit is a ref and the commit it names.
type RefCommit struct {
	Ref     string // the full name
	Hash    string
	Message Message
}

// RefsUnder lists the refs under prefix (a folder under refs/, ending in "/")
// with their commits' messages, in the order of their names.
func (r *Repo) RefsUnder(ctx context.Context, prefix string) ([]RefCommit, error) {
	out, err := r.git(ctx, []string{"for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%00", prefix}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("list the refs under %s: %w", prefix, err)
	}
	f := strings.Split(string(out), "\x00")
	var refs []RefCommit
	for i := 0; i+2 < len(f); i += 3 {
		refs = append(refs, RefCommit{Ref: strings.TrimLeft(f[i], "\n"), Hash: f[i+1], Message: ParseMessage(f[i+2])})
	}
	return refs, nil
}

// RefUpdate is one ref a push sets: Dst to the commit Src ("" deletes Dst). With
// Lease, only while the remote's Dst is Expect ("" expects no such ref), whatever
// its history; without, only as a fast-forward.
type RefUpdate struct {
	Src, Dst string
	Lease    bool
	Expect   string
}

// PushRefs pushes the updates to remote in one git push, each under its lease
// (--force-with-lease=Dst:Expect): with atomic, all of them or none. A ref whose
// lease failed or that the remote refused gives ErrPushRejected, and rejected
// names those refs with git's summary of each (when not atomic, the others are
// set); a push that did not reach the remote gives an error wrapping ErrRemoteAway.
func (r *Repo) PushRefs(ctx context.Context, remote string, atomic bool, updates ...RefUpdate) (rejected map[string]string, err error) {
	args := []string{"push", "--porcelain", "--no-verify"}
	if atomic {
		args = append(args, "--atomic")
	}
	for _, u := range updates {
		if u.Lease {
			args = append(args, "--force-with-lease="+u.Dst+":"+u.Expect)
		}
	}
	args = append(args, remote)
	for _, u := range updates {
		args = append(args, u.Src+":"+u.Dst)
	}
	out, err := r.git(ctx, args, nil, nil)
	if err == nil {
		return nil, nil
	}
	// --porcelain: one line per ref, "<flag>\t<from>:<to>\t<summary>"; "!" is a
	// ref that was not set.
	sc := bufio.NewScanner(bytes.NewReader(out))
	var lines []string
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) >= 3 && f[0] == "!" {
			_, to, _ := strings.Cut(f[1], ":")
			if rejected == nil {
				rejected = map[string]string{}
			}
			rejected[to] = f[2]
			lines = append(lines, to+" "+f[2])
		}
	}
	if len(rejected) > 0 {
		return rejected, fmt.Errorf("push to %s: %s: %w", remote, strings.Join(lines, ", "), ErrPushRejected)
	}
	return nil, fmt.Errorf("push to %s: %w: %w", remote, ErrRemoteAway, err)
}

// LeaseFailed reports whether git's summary of a rejected ref says its lease
// failed: the remote's ref was not what the push expected. The summary's words
// are git's own, not translated.
func LeaseFailed(summary string) bool { return strings.Contains(summary, "stale info") }

// Merge merges ref into the current branch (a fast-forward when it can), with the
// clone's merge drivers, local changes stashed and put back (--autostash). A merge
// that leaves conflicts is aborted, so the branch and the work tree are as they
// were, and gives a *ConflictError naming the paths (Unmerged set).
func (r *Repo) Merge(ctx context.Context, ref, message string, fallbackName, fallbackEmail string) error {
	env, err := r.identityEnv(ctx, fallbackName, fallbackEmail)
	if err != nil {
		return fmt.Errorf("merge %s: %w", ref, err)
	}
	_, err = r.git(ctx, []string{"merge", "-q", "--no-edit", "--no-verify", "--autostash", "-m", message, ref}, nil, env)
	if err == nil {
		return nil
	}
	out, _ := r.git(ctx, []string{"ls-files", "-u", "-z"}, nil, nil)
	if paths := unmergedPaths(out); len(paths) > 0 {
		_, _ = r.git(context.WithoutCancel(ctx), []string{"merge", "--abort"}, nil, nil)
		return &ConflictError{Dir: r.Root, Paths: paths, Unmerged: true}
	}
	return fmt.Errorf("merge %s: %w", ref, err)
}

// Push pushes HEAD to remote's branch. A push the remote refused because its
// branch moved on gives ErrPushRejected; one that did not reach the remote gives
// an error wrapping ErrRemoteAway. A push that got through also moves
// TrackingRef(remote, branch).
func (r *Repo) Push(ctx context.Context, remote, branch string) error {
	out, err := r.git(ctx, []string{"push", "--porcelain", "--no-verify", remote, "HEAD:refs/heads/" + branch}, nil, nil)
	if err == nil {
		return nil
	}
	// --porcelain: one line per ref, "<flag>\t<from>:<to>\t<summary>"; "!" is a
	// ref the remote refused. git's own words are translated, the flags are not.
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "!\t") {
			// [rejected] (fetch first, non-fast-forward), or [remote rejected] when
			// another push held the ref's lock at that moment.
			return fmt.Errorf("push to %s: %s: %w", remote, strings.TrimSpace(l), ErrPushRejected)
		}
	}
	return fmt.Errorf("push to %s: %w: %w", remote, ErrRemoteAway, err)
}

// CountAhead counts the commits of HEAD that ref does not have and whose message
// has the trailer key; every such commit of HEAD when ref does not exist.
func (r *Repo) CountAhead(ctx context.Context, ref, key string) (int, error) {
	rng := "HEAD"
	if tip, _ := r.Tip(ctx, ref); tip != "" {
		rng = ref + "..HEAD"
	}
	out, err := r.git(ctx, []string{"log", "--format=%(trailers:key=" + key + ",valueonly,separator=%x2C)%x00", rng}, nil, nil)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "does not have any commits") {
			return 0, nil
		}
		return 0, fmt.Errorf("count the commits not pushed: %w", err)
	}
	n := 0
	for _, f := range splitNUL(out) {
		if strings.TrimSpace(f) != "" {
			n++
		}
	}
	return n, nil
}

// UndoCommit takes back commit, HEAD's last commit that nobody has yet: the
// branch moves to its parent, the index of paths is reset to it, and the work
// tree stays as it is.
func (r *Repo) UndoCommit(ctx context.Context, commit string, paths ...string) error {
	head, err := r.Head(ctx)
	if err != nil {
		return fmt.Errorf("undo commit: %w", err)
	}
	if head != commit {
		return fmt.Errorf("undo commit %s: HEAD is %s now", short(commit), short(head))
	}
	if _, err := r.git(ctx, []string{"reset", "-q", "--soft", commit + "^"}, nil, nil); err != nil {
		return fmt.Errorf("undo commit: %w", err)
	}
	if len(paths) > 0 {
		args := append([]string{"reset", "-q", "--"}, paths...)
		if _, err := r.git(ctx, args, nil, []string{"GIT_LITERAL_PATHSPECS=1"}); err != nil {
			return fmt.Errorf("undo commit: %w", err)
		}
	}
	return nil
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// RemoteHasBranch asks the remote whether it has branch. An error wraps
// ErrRemoteAway.
func (r *Repo) RemoteHasBranch(ctx context.Context, remote, branch string) (bool, error) {
	out, err := r.git(ctx, []string{"ls-remote", "--heads", remote, "refs/heads/" + branch}, nil, nil)
	if err != nil {
		return false, fmt.Errorf("ask %s for %s: %w: %w", remote, branch, ErrRemoteAway, err)
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// Ahead lists the commits of HEAD that ref does not have and whose message has
// the trailer key, newest first; every such commit of HEAD when ref does not
// exist.
func (r *Repo) Ahead(ctx context.Context, ref, key string) ([]Commit, error) {
	rng := "HEAD"
	if _, err := r.git(ctx, []string{"rev-parse", "-q", "--verify", ref + "^{commit}"}, nil, nil); err == nil {
		rng = ref + "..HEAD"
	}
	out, err := r.git(ctx, []string{"log", "-z", "--format=%H%n%B", rng}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("list the commits not pushed: %w", err)
	}
	var commits []Commit
	for _, rec := range splitNUL(out) {
		hash, raw, _ := strings.Cut(rec, "\n")
		m := ParseMessage(raw)
		if _, ok := m.Trailer(key); ok {
			commits = append(commits, Commit{Hash: hash, Subject: m.Subject, Message: m})
		}
	}
	return commits, nil
}

// PushTo pushes commit to remote's branch; a branch that exists there already
// with other commits is refused (ErrPushRejected). Errors as Push's.
func (r *Repo) PushTo(ctx context.Context, remote, commit, branch string) error {
	out, err := r.git(ctx, []string{"push", "--porcelain", "--no-verify", remote, commit + ":refs/heads/" + branch}, nil, nil)
	if err == nil {
		return nil
	}
	if strings.Contains(string(out), "!\t") {
		return fmt.Errorf("push to %s: %s: %w", remote, branch, ErrPushRejected)
	}
	return fmt.Errorf("push to %s: %w: %w", remote, ErrRemoteAway, err)
}

// SetBranch makes (or moves) the local branch name to commit.
func (r *Repo) SetBranch(ctx context.Context, name, commit string) error {
	if _, err := r.git(ctx, []string{"branch", "-f", name, commit}, nil, nil); err != nil {
		return fmt.Errorf("make branch %s: %w", name, err)
	}
	return nil
}

// ResetKeep moves the current branch to ref, and the work tree with it, as git
// reset --keep does: a file changed in the work tree that the move would touch
// makes it refuse, so nothing not committed is lost.
func (r *Repo) ResetKeep(ctx context.Context, ref string) error {
	if _, err := r.git(ctx, []string{"reset", "-q", "--keep", ref}, nil, nil); err != nil {
		return fmt.Errorf("reset the branch to %s: %w", ref, err)
	}
	return nil
}

// MergeBase is the best common ancestor of HEAD and rev; "" when they have none.
func (r *Repo) MergeBase(ctx context.Context, rev string) (string, error) {
	out, err := r.git(ctx, []string{"merge-base", "HEAD", rev}, nil, nil)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", nil // no common ancestor
		}
		return "", fmt.Errorf("find the merge base of %s: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Changed reports whether any of paths differs between the commits from and to.
func (r *Repo) Changed(ctx context.Context, from, to string, paths ...string) (bool, error) {
	args := append([]string{"diff", "--quiet", from, to, "--"}, paths...)
	_, err := r.git(ctx, args, nil, []string{"GIT_LITERAL_PATHSPECS=1"})
	if err == nil {
		return false, nil
	}
	var ge *GitError
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
		return true, nil // exit status 1: they differ
	}
	return false, fmt.Errorf("compare %s with %s: %w", short(from), short(to), err)
}

// Extract writes the files of rev under paths (files or folders, relative to the
// top; those rev lacks are skipped) into dir, as they are in rev.
func (r *Repo) Extract(ctx context.Context, rev, dir string, paths ...string) error {
	args := append([]string{"ls-tree", "--name-only", rev, "--"}, paths...)
	out, err := r.git(ctx, args, nil, []string{"GIT_LITERAL_PATHSPECS=1"})
	if err != nil {
		return fmt.Errorf("list %s of %s: %w", strings.Join(paths, ", "), short(rev), err)
	}
	have := strings.Fields(string(out))
	if len(have) == 0 {
		return nil
	}
	tarball, err := r.git(ctx, append([]string{"archive", "--format=tar", rev, "--"}, have...), nil, []string{"GIT_LITERAL_PATHSPECS=1"})
	if err != nil {
		return fmt.Errorf("read %s of %s: %w", strings.Join(have, ", "), short(rev), err)
	}
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s of %s: %w", strings.Join(have, ", "), short(rev), err)
		}
		name := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(name, filepath.Clean(dir)+string(filepath.Separator)) {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(name, 0o755)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(name), 0o755); err == nil {
				var data []byte
				if data, err = io.ReadAll(tr); err == nil {
					err = os.WriteFile(name, data, 0o644)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("write %s of %s: %w", h.Name, short(rev), err)
		}
	}
}

// Tip returns the commit ref (a full name under refs/) names, "" when there is
// none. It reads the ref files and asks git only of a layout it does not know.
func (r *Repo) Tip(ctx context.Context, ref string) (string, error) {
	if strings.HasPrefix(ref, "refs/") {
		h, err := r.refFromFiles(ref)
		if errors.Is(err, ErrNoCommits) {
			return "", nil
		}
		if err == nil {
			return h, nil
		}
	}
	out, err := r.git(ctx, []string{"rev-parse", "-q", "--verify", ref + "^{commit}"}, nil, nil)
	if err != nil {
		return "", nil
	}
	return strings.TrimSpace(string(out)), nil
}
