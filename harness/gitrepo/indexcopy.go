package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// indexEntry is one path of the index: its mode and object, as git ls-files -s
// names them.
type indexEntry struct {
	mode, oid, path string
}

// CopyIndex writes the files the index holds into dir, as they are stored: no
// filter, no line-ending conversion, a symbolic link as a file holding its target
// (git's way with core.symlinks false), a submodule as an empty folder. Nothing of
// the work tree is read or written. It returns false, writing nothing, when the
// files hold more than maxBytes together.
func (r *Repo) CopyIndex(ctx context.Context, dir string, maxBytes int64) (bool, error) {
	out, err := r.git(ctx, []string{"ls-files", "-s", "-z"}, nil, nil)
	if err != nil {
		return false, fmt.Errorf("list the index: %w", err)
	}
	var entries []indexEntry
	var oids bytes.Buffer
	seen := map[string]bool{}
	for _, rec := range splitNUL(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[2] != "0" {
			continue // an unmerged path's stages: a commit cannot be made of them
		}
		e := indexEntry{mode: f[0], oid: f[1], path: path}
		entries = append(entries, e)
		if e.mode != "160000" && !seen[e.oid] {
			seen[e.oid] = true
			fmt.Fprintln(&oids, e.oid)
		}
	}
	sizes, err := r.git(ctx, []string{"cat-file", "--batch-check=%(objectsize)"}, bytes.NewReader(oids.Bytes()), nil)
	if err != nil {
		return false, fmt.Errorf("size the index: %w", err)
	}
	var total int64
	for _, line := range strings.Fields(string(sizes)) {
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return false, fmt.Errorf("size the index: git cat-file said %q", line)
		}
		if total += n; total > maxBytes {
			return false, nil
		}
	}
	blobs, err := r.git(ctx, []string{"cat-file", "--batch"}, bytes.NewReader(oids.Bytes()), nil)
	if err != nil {
		return false, fmt.Errorf("read the index: %w", err)
	}
	content := map[string][]byte{}
	rd := bufio.NewReader(bytes.NewReader(blobs))
	for range seen {
		head, err := rd.ReadString('\n')
		if err != nil {
			return false, fmt.Errorf("read the index: %w", err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return false, fmt.Errorf("read the index: git cat-file said %q", strings.TrimSpace(head))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return false, fmt.Errorf("read the index: git cat-file said %q", strings.TrimSpace(head))
		}
		data := make([]byte, n+1) // the content and its newline
		if _, err := io.ReadFull(rd, data); err != nil {
			return false, fmt.Errorf("read the index: %w", err)
		}
		content[f[0]] = data[:n]
	}
	top := filepath.Clean(dir) + string(filepath.Separator)
	for _, e := range entries {
		name := filepath.Join(dir, filepath.FromSlash(e.path))
		if !strings.HasPrefix(name, top) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return false, fmt.Errorf("copy the index: %w", err)
		}
		switch e.mode {
		case "160000":
			err = os.MkdirAll(name, 0o755)
		case "100755":
			err = os.WriteFile(name, content[e.oid], 0o755)
		default:
			err = os.WriteFile(name, content[e.oid], 0o644)
		}
		if err != nil {
			return false, fmt.Errorf("copy the index: %w", err)
		}
	}
	return true, nil
}
