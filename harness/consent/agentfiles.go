package consent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strom-research/strom/internal/termsafe"
)

// AgentFile is a place in a research's work tree that an agent's program reads by
// itself when it starts there, and that can make it run programs: hooks, MCP
// servers, plugins. strom starts that program in the research, so such a file
// arriving with a clone, a pull or a session runs code on this computer unless a
// person allowed it, as a tree setting would.
type AgentFile struct {
	// Program is the agent's program: claude, codex, opencode, grok.
	Program string
	// Path is the file's place in the work tree, its parts joined by "/"; a
	// folder ("/" at the end) stands for every file inside it.
	Path string
	// Why says what the program does with it.
	Why string
	// part is what of the file's contents needs allowing, nil for all of it;
	// ok false when the part is absent and nothing needs allowing.
	part func(file string, data []byte) (kept []byte, ok bool)
	// skip names files inside a folder that are not read for programs to run.
	skip func(name string) bool
}

// AgentFiles is the one list of the agents' own project files: whoever teaches
// strom a new agent program adds its files here.
var AgentFiles = []AgentFile{
	{Program: "claude", Path: ".claude/settings.json", Why: "Claude Code's project settings: hooks and the status line are commands it runs"},
	{Program: "claude", Path: ".claude/settings.local.json", Why: "Claude Code's project settings: hooks and the status line are commands it runs"},
	{Program: "claude", Path: ".mcp.json", Why: "MCP servers Claude Code starts"},
	{Program: "codex", Path: ".codex/", Why: "Codex's project config: MCP servers, hooks and the commands it may run"},
	{Program: "opencode", Path: "opencode.json", Why: "OpenCode's project config: plugins and MCP servers it starts"},
	{Program: "opencode", Path: "opencode.jsonc", Why: "OpenCode's project config: plugins and MCP servers it starts"},
	{Program: "opencode", Path: ".opencode/", Why: "OpenCode's project folder: plugins and tools it loads, its config, the package it installs",
		skip: openCodeOwn, part: openCodePackage},
	{Program: "grok", Path: ".grok/settings.json", Why: "the MCP servers of Grok CLI's project settings", part: grokServers},
}

// AgentName is how a person knows the program: Claude Code for claude.
func AgentName(program string) string {
	switch program {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex"
	case "opencode":
		return "OpenCode"
	case "grok":
		return "Grok CLI"
	}
	return program
}

// FilesOf lists the agent files of program.
func FilesOf(program string) []AgentFile {
	var out []AgentFile
	for _, f := range AgentFiles {
		if f.Program == program {
			out = append(out, f)
		}
	}
	return out
}

// FileValues lists the agent files of program found in the work tree root, one
// Value each, named by its path (on one line, as termsafe.Line shows it); Text and SHA256 are the hash of what needs
// allowing of it. A file that cannot be read is named with its error rather than
// left out: it is not allowed either.
func FileValues(root, program string) ([]Value, error) {
	var out []Value
	for _, f := range FilesOf(program) {
		if dir, ok := strings.CutSuffix(f.Path, "/"); ok {
			vs, err := dirValues(root, dir, f)
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
			continue
		}
		v, ok, err := fileValue(root, f.Path, f)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// maxLinkDepth bounds how many linked folders inside one another a walk follows.
const maxLinkDepth = 8

func dirValues(root, dir string, f AgentFile) ([]Value, error) {
	if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir))); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	w := walk{root: root, dir: dir, f: f, seen: map[string]bool{}}
	if err := w.visit(dir, 0); err != nil {
		return nil, fmt.Errorf("read the agent's files: %w", err)
	}
	return w.out, nil
}

// walk lists the files of an agent's folder as the agent's program reads them:
// a linked folder that stays in the research is walked as if it were there, its
// files named by where the program finds them (.opencode/plugins/p.js for a
// .opencode that links to tools/oc).
type walk struct {
	root, dir string
	f         AgentFile
	seen      map[string]bool // the folders walked, by their real path
	out       []Value
}

func (w *walk) visit(rel string, depth int) error {
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	inside := strings.TrimPrefix(rel, w.dir+"/")
	isDir := info.IsDir()
	if info.Mode()&fs.ModeSymlink != 0 {
		real, ok := inResearch(w.root, p)
		if st, err := os.Stat(p); !ok || err != nil || !st.IsDir() || depth >= maxLinkDepth || w.seen[real] {
			return w.file(rel, inside)
		}
		isDir = true
	}
	if !isDir {
		return w.file(rel, inside)
	}
	if w.f.skip != nil && rel != w.dir && w.f.skip(inside+"/") {
		return nil
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		w.seen[real] = true
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		next := depth
		if e.Type()&fs.ModeSymlink != 0 {
			next++
		}
		if err := w.visit(rel+"/"+e.Name(), next); err != nil {
			return err
		}
	}
	return nil
}

func (w *walk) file(rel, inside string) error {
	if w.f.skip != nil && w.f.skip(inside) {
		return nil
	}
	v, ok, err := fileValue(w.root, rel, w.f)
	if ok {
		w.out = append(w.out, v)
	}
	return err
}

// inResearch is the real path of p with every link resolved, and whether it lies
// in the research's work tree root: what the research's commits can change.
func inResearch(root, p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	top, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return real, true
}

// fileValue is the value of the file at rel; ok false when it does not exist or
// holds nothing that needs allowing. A symbolic link is its target's name, and
// when it leads to a file of the research, that file's contents too: the program
// reads them through it, and a commit can change them. A link that leaves the
// research leads to the person's own files.
func fileValue(root, rel string, f AgentFile) (Value, bool, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Value{}, false, nil
	}
	if err != nil {
		return Value{}, false, fmt.Errorf("read the agent's files: %w", err)
	}
	var data []byte
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return Value{}, false, fmt.Errorf("read the agent's files: %w", err)
		}
		data = []byte("symlink " + target)
		if real, ok := inResearch(root, p); ok {
			if st, err := os.Stat(real); err == nil && st.Mode().IsRegular() {
				content, err := os.ReadFile(real)
				if err != nil {
					return Value{}, false, fmt.Errorf("read the agent's files: %w", err)
				}
				if f.part != nil {
					kept, ok := f.part(rel, content)
					if !ok {
						return Value{}, false, nil
					}
					content = kept
				}
				data = append(append(data, '\n'), content...)
			}
		}
	case info.Mode().IsRegular():
		if data, err = os.ReadFile(p); err != nil {
			return Value{}, false, fmt.Errorf("read the agent's files: %w", err)
		}
		if f.part != nil {
			kept, ok := f.part(rel, data)
			if !ok {
				return Value{}, false, nil
			}
			data = kept
		}
	case info.IsDir():
		return Value{}, false, nil
	default:
		data = []byte("special " + info.Mode().String())
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	return Value{Setting: termsafe.Line(rel), Text: hash, SHA256: hash, Why: f.Why, File: rel, Program: f.Program, json: true}, true, nil
}

// openCodeOwn names what OpenCode writes into its project folder itself, as its
// own .gitignore there says: the packages it installs and their lock. They are
// read by plugins, which need allowing themselves.
func openCodeOwn(name string) bool {
	return name == "node_modules/" || name == "bun.lock" || name == ".gitignore"
}

// openCodePackage keeps of .opencode/package.json what can run programs: all but
// its dependencies, which OpenCode itself writes there (a plugin, allowed itself,
// is what loads them). Its scripts run when OpenCode installs the package.
func openCodePackage(file string, data []byte) ([]byte, bool) {
	if file != ".opencode/package.json" {
		return data, true
	}
	return withoutKeys(data, func(k string) bool { return k == "dependencies" })
}

// grokServers keeps of Grok CLI's project settings its MCP servers: the rest is
// the model, which Grok CLI writes there itself on its first start.
func grokServers(_ string, data []byte) ([]byte, bool) {
	return withoutKeys(data, func(k string) bool { return k != "mcpServers" })
}

// withoutKeys is a JSON object without the keys drop names, as canonical JSON; ok
// false when nothing is left. Data that is not a JSON object is kept whole: what
// a program makes of it is not known.
func withoutKeys(data []byte, drop func(string) bool) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return data, true
	}
	for _, k := range slices.Collect(maps.Keys(doc)) {
		if drop(k) {
			delete(doc, k)
		}
	}
	if len(doc) == 0 {
		return nil, false
	}
	text, err := canonical(doc)
	if err != nil {
		return data, true
	}
	return []byte(text), true
}

// fileRule is the entry of AgentFiles that covers file, the path of a file of
// program.
func fileRule(program, file string) (AgentFile, bool) {
	for _, f := range FilesOf(program) {
		if f.Path == file || strings.HasSuffix(f.Path, "/") && (strings.HasPrefix(file, f.Path) || file+"/" == f.Path) {
			return f, true
		}
	}
	return AgentFile{}, false
}

// FileWhyID is the catalog id of an agent file's Why: .mcp.json is
// allow.why.file_mcp_json, a file in .opencode/ allow.why.file_opencode.
func FileWhyID(program, file string) string {
	f, _ := fileRule(program, file)
	k := strings.Trim(strings.NewReplacer(".", "_", "/", "_").Replace(strings.TrimSuffix(f.Path, "/")), "_")
	return "allow.why.file_" + strings.ToLower(k)
}

// fileHash is the hash an agent file's value v has when the file holds data, as
// a commit left it.
func fileHash(v Value, data []byte) (string, bool) {
	f, ok := fileRule(v.Program, v.File)
	if !ok {
		return "", false
	}
	if f.part != nil {
		kept, ok := f.part(v.File, data)
		if !ok {
			return "", false
		}
		data = kept
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), true
}
