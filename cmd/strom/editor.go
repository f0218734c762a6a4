package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// editFile is where `strom task edit ID` puts the text for the editor, like git's
// COMMIT_EDITMSG: under .strom/run/ (ignored by git), kept after the editor closes so
// that what a person wrote survives a refused save.
const editFile = "TASK_EDITMSG"

// editScissors ends the text strom reads back; what follows it is help. Lines that
// start with # above it are kept: a task's text may have Markdown headings.
const editScissors = "# ------------------------ >8 ------------------------"

// editTaskText is what the editor opens for t, its help in p's language.
func editTaskText(p *messages.Printer, t statefiles.Task) string {
	var b strings.Builder
	b.WriteString(t.Title + "\n\n")
	if body := normalizeBody(t.Body); body != "" {
		b.WriteString(body + "\n")
	}
	b.WriteString("\n" + editScissors + "\n")
	help := p.Say("task.edit_help", messages.Args{"Task": t.ID, "State": p.Say("state." + string(t.State))})
	for _, line := range strings.Split(help, "\n") {
		b.WriteString("# " + line + "\n")
	}
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
func editTask(ctx context.Context, s *sys, r *research.Research, id string) error {
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
	if err := statefiles.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	p := s.msg()
	if err := statefiles.WriteFile(path, []byte(editTaskText(p, was)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	kept := p.Say("task.edit_kept", messages.Args{"File": shown})
	// As git runs it: the editor setting is shell text, the file its argument. It
	// stays in strom's process group, the terminal's job, as git's editor does, and
	// is not run by procgroup: in a group of its own it could not read the terminal,
	// or, handed the terminal, would stop alone on Ctrl-Z with strom waiting for it;
	// and what it leaves running (a graphical editor's server) is the person's.
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$@"`, editor, path)
	cmd.Dir = r.Tree.Root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.stdin, s.rawStdout, s.rawStderr
	if s.rawStdout == nil {
		cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	}
	if err := cmd.Run(); err != nil {
		return errors.New(p.Say("task.edit_failed", messages.Args{"Editor": editor, "Problem": err.Error(), "Task": was.ID, "Kept": kept}))
	}
	b, err := readEdit(path, shown)
	if err != nil {
		return err
	}
	title, body := parseTaskEdit(string(b))
	switch {
	case title == "":
		return errors.New(p.Say("task.edit_empty", messages.Args{"Task": was.ID, "Kept": kept}))
	case title == was.Title && body == normalizeBody(was.Body):
		fmt.Fprintln(s.stdout, p.Say("task.unchanged", messages.Args{"Task": was.ID}))
		return nil
	}
	if err := statefiles.CheckInput(statefiles.TitleText, title, shown); err != nil {
		return err
	}
	if err := statefiles.CheckInput(statefiles.BodyText, body, shown); err != nil {
		return err
	}
	saved, err := queue.RewordTask(ctx, r, was.ID, was, title, body)
	if errors.Is(err, queue.ErrEditedMeanwhile) {
		return messages.Wrap(err, p.Say("task.edit_meanwhile", messages.Args{"Problem": p.Text(err), "Task": was.ID, "Kept": kept}))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(s.stdout, p.Say("task.edited", messages.Args{"Task": saved.ID}))
	return nil
}

// editMax is the most the editor's file is read of: a task's text at its bound,
// and room for its title and the help under the scissors.
const editMax = statefiles.BodyMax + 64<<10

// readEdit reads what the editor saved (shown names it), at most one byte past
// editMax: a file larger holds a text over its bound, however it ends.
func readEdit(path, shown string) ([]byte, error) {
	f, err := statefiles.OpenRead(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, editMax+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, err)
	}
	if len(b) > editMax {
		return nil, statefiles.CheckInput(statefiles.BodyText, string(b), shown)
	}
	return b, nil
}

// chooseEditor is the editor git would start: GIT_EDITOR, core.editor, VISUAL,
// EDITOR, then git's default. Without a terminal only an editor the person named
// is started, never git's default, which would wait for keys nobody types.
func chooseEditor(ctx context.Context, s *sys, root string) (string, error) {
	if s.terminal() == nil && s.getenv("GIT_EDITOR") == "" && s.getenv("VISUAL") == "" && s.getenv("EDITOR") == "" {
		cmd := exec.CommandContext(ctx, "git", "config", "core.editor")
		cmd.Dir = root
		if out, _ := cmd.Output(); strings.TrimSpace(string(out)) == "" {
			return "", s.usage("usage.task.edit.no_terminal")
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
		return "", errors.New(s.msg().Say("task.edit_no_editor", messages.Args{"Problem": fmt.Sprint(err)}))
	}
	return editor, nil
}
