package menu

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"charm.land/huh/v2"

	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// work is "Let the agent work on its own" (R7.1): each choice is a strom run.
func (m *menu) work() step {
	items := []item{
		{label: m.say("menu.work_in_order", messages.Args{"Min": statefiles.RunSessions.Min, "Max": statefiles.RunSessions.Max}), do: m.maxSessions},
		{label: m.say("menu.work_picked"), do: m.withQueue(m.pickTasks)},
	}
	gate := m.setting("run.gate")
	if gate != "" {
		items = append(items, item{label: m.say("menu.work_loop", messages.Args{"Gate": gate}), do: func() step {
			m.do("run", "--loop")
			return stepOK
		}})
	}
	// Esc in a question below goes back to this menu, one level.
	return m.below(m.say("menu.work_alone"), func() []item { return items })
}

// maxSessions is strom run --max with the number asked for.
func (m *menu) maxSessions() step {
	k := statefiles.RunSessions
	n, st := m.input(m.say("menu.how_many", messages.Args{"Min": k.Min, "Max": k.Max}), "1", m.maxValid)
	if st != stepOK {
		return st
	}
	m.do("run", "--max", strings.TrimSpace(n))
	return stepOK
}

// maxValid refuses what --max refuses, with its sentence.
func (m *menu) maxValid(s string) error {
	s = strings.TrimSpace(s)
	k := statefiles.RunSessions
	if n, err := strconv.Atoi(s); err != nil || n < k.Min || n > k.Max {
		return fmt.Errorf("%s", m.say("usage.max", messages.Args{"Value": asTyped(s), "Min": k.Min, "Max": k.Max}))
	}
	return nil
}

// asTyped shows a refused value as the flag's sentence does: a number as it is,
// other words quoted.
func asTyped(s string) string {
	if _, err := strconv.Atoi(s); err == nil {
		return s
	}
	return strconv.Quote(s)
}

// pickTasks is a multi-select of the open tasks; the tasks run in the order they
// were picked, as --task runs them.
func (m *menu) pickTasks(q *statefiles.Queue) step {
	open := inState(q, statefiles.Open)
	if len(open) == 0 {
		m.note(m.say("menu.no_open_tasks"))
		return stepOK
	}
	opts := make([]huh.Option[string], len(open))
	ids := make([]string, len(open))
	for i, t := range open {
		opts[i] = huh.NewOption(t.ID+"  "+t.Title, t.ID)
		ids[i] = t.ID
	}
	order := &pickOrder{}
	var typed bytes.Buffer
	if m.Accessible {
		// The accessible multi-select says only at its end which options are on;
		// the numbers typed, in turn, say in which order they were picked.
		m.in.tee = &typed
		defer func() { m.in.tee = nil }()
	}
	// The field's height counts its title and description: they and the options
	// fit, up to a dozen tasks at a time (more scroll).
	field := huh.NewMultiSelect[string]().
		Title(m.say("menu.pick_task")).
		Options(opts...).
		Accessor(order).
		Height(min(len(opts), 12) + 4)
	if !m.Accessible {
		// The drawn form's keys, which its hidden help line would say (the
		// accessible one says its own).
		field.Description(m.say("menu.pick_keys"))
	}
	st := m.run(field)
	if st != stepOK {
		return st
	}
	picked := order.picked
	if m.Accessible {
		picked = toggled(&typed, ids)
	}
	if len(picked) == 0 {
		return stepBack // nothing picked: back to the choices, as Esc
	}
	m.do("run", "--task", strings.Join(picked, ","))
	return stepOK
}

// pickOrder is the multi-select's value, kept in the order the options were
// turned on: the form sets the whole selection, in the options' order, at each
// toggle.
type pickOrder struct {
	picked []string
}

func (p *pickOrder) Get() []string { return slices.Clone(p.picked) }

func (p *pickOrder) Set(v []string) {
	kept := p.picked[:0:0]
	for _, id := range p.picked {
		if slices.Contains(v, id) {
			kept = append(kept, id)
		}
	}
	for _, id := range v {
		if !slices.Contains(kept, id) {
			kept = append(kept, id)
		}
	}
	p.picked = kept
}

// toggled replays the numbers typed into an accessible multi-select (each turns
// option N on or off, 0 or an empty line ends it) and returns the options on, in
// the order they were turned on.
func toggled(typed io.Reader, ids []string) []string {
	var on []string
	sc := bufio.NewScanner(typed)
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil || n < 1 || n > len(ids) {
			continue
		}
		if i := slices.Index(on, ids[n-1]); i >= 0 {
			on = slices.Delete(on, i, i+1)
		} else {
			on = append(on, ids[n-1])
		}
	}
	return on
}

func inState(q *statefiles.Queue, st statefiles.State) []statefiles.Task {
	var out []statefiles.Task
	for _, t := range q.Tasks {
		if t.State == st {
			out = append(out, t)
		}
	}
	return out
}
