// Package menu is the research's menu in the terminal: `strom` alone on a terminal
// and `strom menu`. It is a face like cmd/strom and holds no logic of its own: it
// reads what to offer from harness, and every choice ends in the strom command
// line that does the same (Env.Do), so a menu run is a `strom run` with those
// options and a setting is set as `strom config set` sets it. Its forms are
// charmbracelet/huh (v2, whose terminal library asks the terminal nothing before
// a form runs, so an agent's strom command never waits on it): selects,
// multi-selects and inputs that validate as the flags do, and an accessible mode
// (ACCESSIBLE=1) that reads numbered answers and plain lines. Esc goes back one
// level; Ctrl-C leaves the menu at once and changes nothing.
package menu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"golang.org/x/term"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/messages"
)

// Env is what the menu gets from the command line's process.
type Env struct {
	Terminal   *os.File           // the person's terminal: the forms read and draw here
	Out        io.Writer          // where the menu's own sentences go (the commands write their own)
	Accessible bool               // numbered options and plain lines instead of a drawn form
	Research   *research.Research // nil outside a research repo
	Dir        string             // the working folder, where strom init makes one
	Getenv     func(string) string
	Msg        *messages.Printer
	// Interrupts are the process's Ctrl-C signals: one while a form asks leaves the
	// menu (a drawn form reads Ctrl-C as a key; an accessible one reads lines, and
	// the terminal sends the signal). Nil: none come.
	Interrupts <-chan os.Signal
	// Do runs a strom command line exactly as typed in this terminal; the menu goes
	// on whatever its exit status.
	Do func(ctx context.Context, args ...string) int
}

// step is where the person went from a form.
type step int

const (
	stepOK    step = iota // answered
	stepBack              // Esc, or the Back item: one level up
	stepLeave             // Ctrl-C, or the input ended: leave the menu
)

type menu struct {
	Env
	ctx context.Context
	in  *eofReader
}

// eofReader notes when the terminal's input ends, so an accessible menu whose
// input ran out leaves instead of asking again.
type eofReader struct {
	r   io.Reader
	eof bool
	tee io.Writer // when set, gets a copy of what was read
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if e.tee != nil && n > 0 {
		_, _ = e.tee.Write(p[:n])
	}
	if err != nil {
		e.eof = true
	}
	return n, err
}

// newMenu is the menu of e: English and the terminal where e names no printer
// or writer of its own.
func newMenu(ctx context.Context, e Env) *menu {
	if e.Msg == nil {
		e.Msg = messages.For(messages.English)
	}
	if e.Out == nil {
		e.Out = e.Terminal
	}
	return &menu{Env: e, ctx: ctx, in: &eofReader{r: e.Terminal}}
}

// Run shows the menu until the person leaves it.
func Run(ctx context.Context, e Env) error {
	m := newMenu(ctx, e)
	for {
		if st := m.main(); st != stepOK {
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

func (m *menu) say(id string, args ...messages.Args) string { return m.Msg.Say(id, args...) }

// note prints one of the menu's own sentences.
func (m *menu) note(text string) { fmt.Fprintln(m.Out, text) }

// do runs a strom command line.
func (m *menu) do(args ...string) { m.Do(m.ctx, args...) }

// run shows one form and says where the person went.
func (m *menu) run(fields ...huh.Field) step {
	esc := false
	km := huh.NewDefaultKeyMap()
	km.Quit = key.NewBinding(key.WithKeys("ctrl+c", "esc"))
	// The accessible form reads lines through m.in, which notes their end. The drawn
	// one reads the terminal in raw mode through a file of its own, closed when the
	// form ends: the form's reader may still be waiting on it then, and would take
	// the next key from the next form.
	var in io.Reader = m.Terminal
	if m.Accessible {
		in = m.in
	} else if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		defer tty.Close()
		in = tty
	}
	// An accessible form's own sentences are said in the person's language.
	var out io.Writer = m.Terminal
	if m.Accessible {
		out = libraryWords{w: m.Terminal, p: m.Msg}
	}
	// WithProgramOptions replaces the program's options: it comes before the input
	// and the output, which add theirs.
	f := huh.NewForm(huh.NewGroup(fields...)).
		WithProgramOptions(tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "esc" {
				esc = true
			}
			return msg
		})).
		WithInput(in).
		WithOutput(out).
		WithAccessible(m.Accessible).
		WithKeyMap(km).
		WithShowHelp(false)
	ctx, cancel := context.WithCancel(m.ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.RunWithContext(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-m.Interrupts:
		// Ctrl-C leaves the menu at once, changing nothing. A drawn form ends with
		// its context and gives the terminal back; an accessible one waits on a line
		// the process leaving abandons.
		cancel()
		if !m.Accessible {
			<-done
		}
		return stepLeave
	}
	switch {
	case errors.Is(err, huh.ErrUserAborted) && esc:
		return stepBack
	case err != nil, m.in.eof, m.ctx.Err() != nil:
		return stepLeave
	}
	return stepOK
}

// choice is one item of a select; the select's cursor starts on the one marked
// cursor (on the first where none is).
type choice struct {
	label, value string
	cursor       bool
}

// choose shows a select; back adds the Back item. It returns the value chosen.
func (m *menu) choose(title string, back bool, items ...choice) (string, step) {
	if back {
		items = append(items, choice{label: m.say("menu.back"), value: "back"})
	}
	opts := make([]huh.Option[string], len(items))
	value := items[0].value
	for i, it := range items {
		opts[i] = huh.NewOption(m.fit(it.label, selectFrame), it.value)
		if it.cursor {
			value = it.value
		}
	}
	st := m.run(huh.NewSelect[string]().Title(m.fit(title, titleFrame)).Options(opts...).Value(&value))
	if st != stepOK {
		return "", st
	}
	if value == "back" {
		return "", stepBack
	}
	return value, stepOK
}

// item is one row of a menu level: what it says and what choosing it does. A
// level is a table of items, so an item added is one row. The level's cursor
// starts on the item marked cursor, the one a person most often wants there.
type item struct {
	label  string
	do     func() step
	cursor bool
}

// pick shows the items as a select (back adds the Back item) and returns what
// the one chosen does, not yet done: Esc on the select and Esc in the item's own
// questions lead to different places.
func (m *menu) pick(title string, back bool, items ...item) (func() step, step) {
	choices := make([]choice, len(items))
	for i, it := range items {
		choices[i] = choice{label: it.label, value: strconv.Itoa(i), cursor: it.cursor}
	}
	v, st := m.choose(title, back, choices...)
	if st != stepOK {
		return nil, st
	}
	i, _ := strconv.Atoi(v)
	return items[i].do, stepOK
}

// first shows a first level: Esc on it, or an item that leaves, leaves the menu;
// anything else comes back to the first level.
func (m *menu) first(title string, items ...item) step {
	do, st := m.pick(title, false, items...)
	if st != stepOK || do() == stepLeave {
		return stepLeave
	}
	return stepOK
}

// below shows a level below the first, its items as items() says them each
// time, until an item is done: Esc on it goes one level up, Esc in an item's own
// questions comes back to it.
func (m *menu) below(title string, items func() []item) step {
	for {
		do, st := m.pick(title, true, items()...)
		if st != stepOK {
			return st
		}
		if st := do(); st != stepBack {
			return st
		}
	}
}

// once shows a level below the first a single time: Esc on it or in an item's
// own questions goes one level up.
func (m *menu) once(title string, items ...item) step {
	do, st := m.pick(title, true, items...)
	if st != stepOK {
		return st
	}
	return do()
}

// leaveItem is the first level's Leave the menu.
func (m *menu) leaveItem() item {
	return item{label: m.say("menu.leave"), do: func() step { return stepLeave }}
}

// input asks for one line that valid accepts; offered is taken when the line is
// empty. A drawn form shows it greyed in the empty field, where the first key
// typed replaces it (a number typed is the number, not the offered one with a
// digit added); the accessible one says it in brackets.
func (m *menu) input(title, offered string, valid func(string) error) (string, step) {
	check := valid
	if offered != "" {
		check = func(s string) error {
			if strings.TrimSpace(s) == "" {
				s = offered
			}
			return valid(s)
		}
	}
	field := huh.NewInput().Validate(check)
	if m.Accessible && offered != "" {
		title += " [" + offered + "]"
	} else if offered != "" {
		field.Placeholder(offered)
	}
	var value string
	st := m.run(field.Title(m.fit(title, titleFrame)).Value(&value))
	if st != stepOK {
		// The form may still be reading value: a Ctrl-C leaves an accessible
		// form waiting on its line.
		return "", st
	}
	if strings.TrimSpace(value) == "" {
		value = offered
	}
	return value, st
}

// The columns a drawn field takes from the terminal's width before its text: the
// focus bar and its padding, and for an option the cursor too ("> ").
const (
	titleFrame  = 2
	selectFrame = 4
)

// fit wraps text for a drawn form at the terminal's width less frame, breaking
// lines only between words. The form would also break a line at a hyphen, and
// so split a flag such as --max across two lines; lines that fit are left as
// they are. The accessible form's lines are the terminal's to wrap.
func (m *menu) fit(text string, frame int) string {
	if m.Accessible || m.Terminal == nil {
		return text
	}
	w, _, err := term.GetSize(int(m.Terminal.Fd()))
	if err != nil || w <= frame+10 {
		return text
	}
	return wrapWords(text, w-frame)
}

// wrapWords breaks the lines of text between words so that each holds at most
// limit columns; a word longer than that stands alone on its line.
func wrapWords(text string, limit int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		cur := ""
		for _, word := range strings.Fields(line) {
			switch {
			case cur == "":
				cur = word
			case lipgloss.Width(cur)+1+lipgloss.Width(word) <= limit:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// Setup asks what a new research on this computer should be (R7.8, strom setup)
// and sets init.mode as strom config set does.
func Setup(ctx context.Context, e Env) error {
	newMenu(ctx, e).newResearches()
	return nil
}
