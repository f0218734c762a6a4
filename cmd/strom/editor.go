package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/statefiles"
)

// editFile is where `strom task edit ID` puts the text for the editor, like git's
// COMMIT_EDITMSG: under .strom/run/ (ignored by git), kept after the editor closes so
// that what a person wrote survives a refused save.
const editFile = "TASK_EDITMSG"

// editScissors ends the text strom reads back; what follows it is help. Lines that
// start with # above it are kept: a task's text may have Markdown headings.
const editScissors = "# ------------------------ >8 ------------------------"

// editTaskText is what the editor opens for t.
func editTaskText(t statefiles.Task) string {
	var b strings.Builder
	b.WriteString(t.Title + "\n\n")
	if body := normalizeBody(t.Body); body != "" {
		b.WriteString(body + "\n")
	}
	b.WriteString("\n" + editScissors + "\n")
	b.WriteString("# Do not change or remove the line above: everything below it is ignored.\n")
	fmt.Fprintf(&b, "# %s (%s). The first line is the title; the task's text follows after an\n", t.ID, t.State)
	b.WriteString("# empty line. Save and quit to keep the change; an empty title changes nothing.\n")
	return b.String()
}

// parseTaskEdit reads the title and text back from what the editor saved.
func parseTaskEdit(text string) (title, body string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.HasPrefix(text, editScissors+"\n") {
		return "", ""
	}
	if i := strings.Index(text, "\n"+editScissors+"\n"); i >= 0 {
		text = text[:i+1]
	}
	// The first line is the title, even when empty: a person who blanked it did not
	// mean the text's first line.
	title, rest, _ := strings.Cut(text, "\n")
	return strings.TrimSpace(title), normalizeBody(rest)
}

// normalizeBody drops the empty lines around a text and the spaces at its end.
func normalizeBody(s string) string {
	return strings.TrimRight(strings.TrimLeft(s, "\n"), " \t\n")
}

// editTask opens the person's editor on a task's title and text, as git does for a
// commit message, and saves what they wrote — unless the title is empty, the editor
// failed, or someone changed the task meanwhile; then the task stays as it is and
// the text stays in .strom/run/TASK_EDITMSG.
func editTask(ctx context.Context, s *sys, r *harness.Research, id string) error {
	q, err := r.Tree.LoadQueue()
	if err != nil {
		return err
	}
	t, err := q.Find(id)
	if err != nil {
		return err
	}
	was := *t
	editor, err := chooseEditor(ctx, s, r.Tree.Root)
	if err != nil {
		return err
	}
	path := r.Tree.Path(statefiles.RunDir, editFile)
	shown := filepath.ToSlash(filepath.Join(statefiles.DirName, statefiles.RunDir, editFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	if err := os.WriteFile(path, []byte(editTaskText(was)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	kept := fmt.Sprintf("what you wrote is kept in %s", shown)
	// As git runs it: the editor setting is shell text, the file its argument.
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$@"`, editor, path)
	cmd.Dir = r.Tree.Root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.stdin, s.rawStdout, s.rawStderr
	if s.rawStdout == nil {
		cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor (%s) failed: %v, so %s is unchanged; %s", editor, err, was.ID, kept)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", shown, err)
	}
	title, body := parseTaskEdit(string(b))
	switch {
	case title == "":
		return fmt.Errorf("the title is empty, so %s is unchanged; %s", was.ID, kept)
	case title == was.Title && body == normalizeBody(was.Body):
		fmt.Fprintf(s.stdout, "%s unchanged.\n", was.ID)
		return nil
	}
	saved, err := r.RewordTask(ctx, was.ID, was, title, body)
	if errors.Is(err, harness.ErrEditedMeanwhile) {
		return fmt.Errorf("%v, so %s keeps that; %s — run strom task edit %s again", err, was.ID, kept, was.ID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "%s edited.\n", saved.ID)
	return nil
}

// chooseEditor is the editor git would start: GIT_EDITOR, core.editor, VISUAL,
// EDITOR, then git's default. Without a terminal only an editor the person named
// is started, never git's default, which would wait for keys nobody types.
func chooseEditor(ctx context.Context, s *sys, root string) (string, error) {
	if s.terminal() == nil && s.getenv("GIT_EDITOR") == "" && s.getenv("VISUAL") == "" && s.getenv("EDITOR") == "" {
		cmd := exec.CommandContext(ctx, "git", "config", "core.editor")
		cmd.Dir = root
		if out, _ := cmd.Output(); strings.TrimSpace(string(out)) == "" {
			return "", usagef("there is no terminal here for an editor: say what to change with --title, --body or --body-file")
		}
	}
	cmd := exec.CommandContext(ctx, "git", "var", "GIT_EDITOR")
	cmd.Dir = root
	// An empty variable names no editor (git would take it for an empty one).
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); v != "" || (k != "GIT_EDITOR" && k != "VISUAL" && k != "EDITOR") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	editor := strings.TrimSpace(string(out))
	if err != nil || editor == "" {
		return "", fmt.Errorf("git names no editor (%v): set EDITOR, or say what to change with --title, --body or --body-file", err)
	}
	return editor, nil
}
