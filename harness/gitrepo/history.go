package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// RootCommit is the first commit of rev's first-parent history (HEAD's when rev is
// ""): the commit a research began with, the same in every clone. Merging another
// history in does not change it; an unborn branch has none (an error).
func (r *Repo) RootCommit(ctx context.Context, rev string) (string, error) {
	if rev == "" {
		rev = "HEAD"
	}
	out, err := r.git(ctx, []string{"rev-list", "--first-parent", "--max-parents=0", rev, "--"}, nil, nil)
	if err != nil {
		return "", fmt.Errorf("find the root commit: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return "", fmt.Errorf("find the root commit: HEAD has no history")
	}
	// With --first-parent only one root is reachable; the last line is it.
	return lines[len(lines)-1], nil
}

// FirstParents is rev's first-parent line, newest first and rev itself first, at
// most n commits: one git process that reads n commits, however long the history.
func (r *Repo) FirstParents(ctx context.Context, rev string, n int) ([]string, error) {
	out, err := r.git(ctx, []string{"rev-list", "--first-parent", "--max-count=" + strconv.Itoa(n), rev, "--"}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("read the first parents of %s: %w", rev, err)
	}
	return strings.Fields(string(out)), nil
}

// FileVersion is a file as one commit left it.
type FileVersion struct {
	Commit Commit
	Data   []byte // nil when the commit deleted the file
}

// FileVersions lists the commits that changed path (relative to the work tree's
// top), newest first as git log lists them, each with the file as that commit left
// it. Two git processes read them all: git log for the commits, one
// git cat-file --batch for the contents.
func (r *Repo) FileVersions(ctx context.Context, path string) ([]FileVersion, error) {
	out, err := r.git(ctx, []string{"log", "-z", "--format=%H%x1f%an <%ae>%x1f%aI%x1f%s", "--", path}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", path, err)
	}
	var versions []FileVersion
	var specs bytes.Buffer
	for _, rec := range splitNUL(out) {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		when, _ := time.Parse(time.RFC3339, f[2])
		versions = append(versions, FileVersion{Commit: Commit{Hash: f[0], Author: f[1], When: when, Subject: f[3]}})
		fmt.Fprintf(&specs, "%s:%s\n", f[0], path)
	}
	if len(versions) == 0 {
		return nil, nil
	}
	blobs, err := r.git(ctx, []string{"cat-file", "--batch"}, &specs, nil)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", path, err)
	}
	rd := bufio.NewReader(bytes.NewReader(blobs))
	for i := range versions {
		head, err := rd.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read the history of %s: %w", path, err)
		}
		fields := strings.Fields(head)
		if len(fields) == 3 && fields[1] == "blob" {
			n, err := strconv.Atoi(fields[2])
			if err != nil {
				return nil, fmt.Errorf("read the history of %s: git cat-file said %q", path, head)
			}
			data := make([]byte, n+1) // the content and its newline
			if _, err := io.ReadFull(rd, data); err != nil {
				return nil, fmt.Errorf("read the history of %s: %w", path, err)
			}
			versions[i].Data = data[:n]
		}
		// "<spec> missing": the commit deleted the file; Data stays nil.
	}
	return versions, nil
}
