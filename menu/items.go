package menu

import (
	"fmt"
	"strings"

	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// main is the first level. The mode comes first (R7.8, R7.8.1).
func (m *menu) main() step {
	r := m.Research
	if r == nil {
		return m.outside()
	}
	title := m.say("menu.title", messages.Args{"Root": r.Tree.Root})
	if q, err := r.Tree.LoadQueue(); err == nil {
		title += " · " + m.say("menu.open_tasks", messages.Args{"Count": len(inState(q, statefiles.Open))})
	}
	var items []choice
	if ms, err := r.Mode(m.ctx); err == nil {
		switch ms.Shown {
		case statefiles.ModeArchive:
			items = append(items, choice{m.say("menu.mode_archive"), "mode"})
		case harness.ModeWaiting:
			items = append(items, choice{m.say("menu.mode_waiting", messages.Args{"Agent": ms.Agent}), "mode"})
		default:
			items = append(items, choice{m.say("menu.mode_research"), "mode"})
		}
	}
	items = append(items,
		choice{m.say("menu.work_alone"), "work"},
		choice{m.say("menu.queue"), "queue"},
		choice{m.say("menu.settings"), "settings"},
		choice{m.say("menu.leave"), "leave"})
	v, st := m.choose(title, false, items...)
	if st != stepOK || v == "leave" {
		return stepLeave
	}
	switch v {
	case "mode":
		st = m.mode()
	case "work":
		st = m.work()
	case "queue":
		st = m.queue()
	case "settings":
		st = m.settings()
	}
	if st == stepLeave {
		return stepLeave
	}
	return stepOK
}

// outside is the menu where no research repo is: make one, or the computer's settings.
func (m *menu) outside() step {
	v, st := m.choose(m.say("menu.title_outside"), false,
		choice{m.say("menu.init"), "init"},
		choice{m.languageLabel(), "language"},
		choice{m.newLabel(), "new"},
		choice{m.say("menu.leave"), "leave"})
	if st != stepOK || v == "leave" {
		return stepLeave
	}
	switch v {
	case "init":
		m.do("init")
		if r, err := harness.Open(m.Dir, harness.Env{Getenv: m.Getenv}); err == nil {
			m.Research = r
		}
	case "language":
		st = m.language()
	case "new":
		st = m.newResearches()
	}
	if st == stepLeave {
		return stepLeave
	}
	return stepOK
}

// mode switches between research and a Strom archive; strom mode asks to confirm.
func (m *menu) mode() step {
	ms, err := m.Research.Mode(m.ctx)
	if err != nil {
		m.note(m.Msg.Text(err))
		return stepOK
	}
	switch ms.Shown {
	case statefiles.ModeArchive:
		m.do("mode", statefiles.ModeResearch)
	case harness.ModeWaiting:
		v, st := m.choose(m.say("menu.mode_waiting", messages.Args{"Agent": ms.Agent}), true,
			choice{m.say("menu.keep_archive"), "archive"},
			choice{m.say("menu.install_agent", messages.Args{"Advice": installLine(ms, m.Msg)}), "install"})
		if st != stepOK {
			return st
		}
		if v == "archive" {
			m.do("mode", statefiles.ModeArchive)
			return stepOK
		}
		m.installAgent(ms)
	default:
		m.do("mode", statefiles.ModeArchive)
	}
	return stepOK
}

// installLine is what Install the agent runs, or how to install it when strom
// does not know the line.
func installLine(ms harness.ModeState, p *messages.Printer) string {
	if ms.Install != "" {
		return ms.Install
	}
	return ms.SayAdvice(p)
}

// installAgent runs the research's agent's install line (the item named it, and
// choosing it is the person's yes, as strom mode research asks for one); the
// research then goes on by itself with the tasks it had (R7.8.1).
func (m *menu) installAgent(ms harness.ModeState) {
	if ms.Install == "" {
		m.note(m.say("menu.agent_how", messages.Args{"Agent": ms.Binary, "Advice": ms.SayAdvice(m.Msg)}))
		return
	}
	fmt.Fprintf(m.Out, "$ %s\n", ms.Install)
	if err := m.Research.RunInstall(m.ctx, ms.Install, m.Terminal, m.Out, m.Out); err != nil {
		m.note(m.say("menu.install_failed", messages.Args{"Error": m.Msg.Text(err), "Advice": ms.SayAdvice(m.Msg)}))
		return
	}
	if now, err := m.Research.Mode(m.ctx); err == nil && now.Shown != harness.ModeWaiting {
		m.note(m.say("menu.installed", messages.Args{"Agent": ms.Binary}))
		return
	}
	m.note(m.say("menu.agent_how", messages.Args{"Agent": ms.Binary, "Advice": ms.SayAdvice(m.Msg)}))
}

func (m *menu) settingsNow() statefiles.Settings {
	var tree *statefiles.Tree
	if m.Research != nil {
		tree = m.Research.Tree
	}
	s, _ := statefiles.LoadSettings(m.Getenv, tree)
	return s
}

func (m *menu) setting(name string) string {
	v, err := m.settingsNow().Resolve(name, "")
	if err != nil {
		return ""
	}
	return v.Value
}

// queue is the daily work on the queue a person does.
func (m *menu) queue() step {
	v, st := m.choose(m.say("menu.queue"), true,
		choice{m.say("menu.add_task"), "add"},
		choice{m.say("menu.answer"), "answer"},
		choice{m.say("menu.unpark"), "unpark"})
	if st != stepOK {
		return st
	}
	q, err := m.Research.Tree.LoadQueue()
	if err != nil {
		m.note(m.Msg.Text(err))
		return stepOK
	}
	notEmpty := func(bad string) func(string) error {
		return func(s string) error {
			if strings.TrimSpace(s) == "" {
				return fmt.Errorf("%s", m.say(bad))
			}
			return nil
		}
	}
	switch v {
	case "add":
		title, st := m.input(m.say("menu.task_title"), "", notEmpty("menu.bad_title"))
		if st != stepOK {
			return st
		}
		body, st := m.input(m.say("menu.task_body"), "", func(string) error { return nil })
		if st != stepOK {
			return st
		}
		args := []string{"task", "add", strings.TrimSpace(title)}
		if strings.TrimSpace(body) != "" {
			args = append(args, "--body", body)
		}
		m.do(args...)
	case "answer":
		var items []choice
		for _, t := range inState(q, statefiles.Waiting) {
			label := t.ID + "  " + t.Title
			if n := len(t.Questions); n > 0 {
				label += " — " + t.Questions[n-1].Question
			}
			items = append(items, choice{label, t.ID})
		}
		if len(items) == 0 {
			m.note(m.say("menu.nothing_waiting"))
			return stepOK
		}
		id, st := m.choose(m.say("menu.answer_which"), true, items...)
		if st != stepOK {
			return st
		}
		text, st := m.input(m.say("menu.answer_text"), "", notEmpty("menu.bad_answer"))
		if st != stepOK {
			return st
		}
		m.do("task", "answer", id, strings.TrimSpace(text))
	case "unpark":
		var items []choice
		for _, t := range inState(q, statefiles.Parked) {
			items = append(items, choice{t.ID + "  " + t.Title + " — " + t.Reason, t.ID})
		}
		if len(items) == 0 {
			m.note(m.say("menu.nothing_parked"))
			return stepOK
		}
		id, st := m.choose(m.say("menu.unpark_which"), true, items...)
		if st != stepOK {
			return st
		}
		m.do("task", "unpark", id)
	}
	return stepOK
}

func (m *menu) newLabel() string {
	word := "menu.new_research"
	if m.setting("init.mode") == statefiles.ModeArchive {
		word = "menu.new_archive"
	}
	return m.say("menu.new_researches", messages.Args{"Mode": m.say(word)})
}

// newResearches is what strom setup asks (R7.8); strom init follows it.
func (m *menu) newResearches() step {
	v, st := m.choose(m.say("menu.setup_question"), true,
		choice{m.say("menu.new_research"), statefiles.ModeResearch},
		choice{m.say("menu.new_archive"), statefiles.ModeArchive})
	if st != stepOK {
		return st
	}
	m.do("config", "set", "init.mode", v)
	return stepOK
}
