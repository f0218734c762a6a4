package menu

import (
	"fmt"
	"os/exec"
	"sort"
	"strconv"
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
		m.note(err.Error())
		return stepOK
	}
	switch ms.Shown {
	case statefiles.ModeArchive:
		m.do("mode", statefiles.ModeResearch)
	case harness.ModeWaiting:
		v, st := m.choose(m.say("menu.mode_waiting", messages.Args{"Agent": ms.Agent}), true,
			choice{m.say("menu.keep_archive"), "archive"},
			choice{m.say("menu.install_agent", messages.Args{"Advice": ms.SayAdvice(m.Msg)}), "install"})
		if st != stepOK {
			return st
		}
		if v == "archive" {
			m.do("mode", statefiles.ModeArchive)
		} else {
			m.note(m.say("menu.agent_how", messages.Args{"Agent": ms.Binary, "Advice": ms.SayAdvice(m.Msg)}))
		}
	default:
		m.do("mode", statefiles.ModeArchive)
	}
	return stepOK
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

// work is "Let the agent work on its own" (R7.1): each choice is a strom run.
func (m *menu) work() step {
	items := []choice{
		{m.say("menu.work_in_order"), "max"},
		{m.say("menu.work_picked"), "task"},
	}
	gate := m.setting("run.gate")
	if gate != "" {
		items = append(items, choice{m.say("menu.work_loop", messages.Args{"Gate": gate}), "loop"})
	}
	for {
		v, st := m.choose(m.say("menu.work_alone"), true, items...)
		if st != stepOK {
			return st
		}
		// Esc in a question below goes back to this menu, one level.
		if st := m.workChoice(v); st != stepBack {
			return st
		}
	}
}

func (m *menu) workChoice(v string) step {
	switch v {
	case "max":
		n, st := m.input(m.say("menu.how_many"), "1", func(s string) error {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err != nil || n < 1 || n > 100 {
				return fmt.Errorf("%s", m.say("menu.bad_how_many"))
			}
			return nil
		})
		if st != stepOK {
			return st
		}
		m.do("run", "--max", strings.TrimSpace(n))
	case "task":
		return m.pickTasks()
	case "loop":
		m.do("run", "--loop")
	}
	return stepOK
}

// pickTasks builds --task's list in the order the person picks.
func (m *menu) pickTasks() step {
	var picked []string
	for {
		q, err := m.Research.Tree.LoadQueue()
		if err != nil {
			m.note(err.Error())
			return stepOK
		}
		var items []choice
		if len(picked) > 0 {
			items = append(items, choice{m.say("menu.pick_start", messages.Args{"Picked": strings.Join(picked, ", ")}), "start"})
		}
		for _, t := range inState(q, statefiles.Open) {
			if !contains(picked, t.ID) {
				items = append(items, choice{t.ID + "  " + t.Title, t.ID})
			}
		}
		if len(items) == 0 {
			m.note(m.say("menu.no_open_tasks"))
			return stepOK
		}
		shown := m.say("menu.pick_none")
		if len(picked) > 0 {
			shown = strings.Join(picked, ", ")
		}
		v, st := m.choose(m.say("menu.pick_task", messages.Args{"Picked": shown}), true, items...)
		if st != stepOK {
			return st
		}
		if v == "start" {
			m.do("run", "--task", strings.Join(picked, ","))
			return stepOK
		}
		picked = append(picked, v)
	}
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
		m.note(err.Error())
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

// settings: the agent, working alone, messages, archives, maintenance, new researches.
func (m *menu) settings() step {
	for {
		agent := m.setting("agent.name")
		v, st := m.choose(m.say("menu.settings"), true,
			choice{m.say("menu.alone"), "alone"},
			choice{m.say("menu.agent", messages.Args{"Agent": agent}), "agent"},
			choice{m.languageLabel(), "language"},
			choice{m.say("menu.archives", messages.Args{"Archives": m.archives()}), "archives"},
			choice{m.say("menu.maintenance"), "maintenance"},
			choice{m.newLabel(), "new"})
		if st != stepOK {
			return st
		}
		switch v {
		case "alone":
			st = m.alone()
		case "agent":
			st = m.agent()
		case "language":
			st = m.language()
		case "archives":
			m.note(m.say("menu.archives_how"))
		case "maintenance":
			st = m.maintenance()
		case "new":
			st = m.newResearches()
		}
		if st == stepLeave {
			return st
		}
		if st == stepOK {
			return stepOK
		}
	}
}

// alone is "The agent working alone" (R7.2, R7.4, R7.4.3).
func (m *menu) alone() step {
	gate := m.setting("run.gate")
	if gate == "" {
		gate = m.say("menu.gate_none")
	}
	for {
		v, st := m.choose(m.say("menu.alone"), true,
			choice{m.say("menu.minutes", messages.Args{"Minutes": m.setting("run.minutes")}), "minutes"},
			choice{m.say("menu.gate", messages.Args{"Gate": gate}), "gate"},
			choice{m.say("menu.gate_test"), "test"})
		if st != stepOK {
			return st
		}
		if st := m.aloneChoice(v); st != stepBack {
			return st
		}
	}
}

func (m *menu) aloneChoice(v string) step {
	switch v {
	case "minutes":
		key, _ := statefiles.LookupKey("run.minutes")
		n, st := m.input(m.say("menu.minutes_ask"), "", func(s string) error {
			if strings.TrimSpace(s) == "0" {
				return nil
			}
			if _, err := key.Parse(s); err != nil {
				return fmt.Errorf("%s", m.say("menu.bad_minutes"))
			}
			return nil
		})
		if st != stepOK || strings.TrimSpace(n) == "0" {
			return stepBack // 0 goes back without a change (R7.2), as Esc does
		}
		m.do("config", "set", "run.minutes", strings.TrimSpace(n))
	case "gate":
		return m.gate()
	case "test":
		m.do("gate", "test")
	}
	return stepOK
}

// gate chooses the condition; strom config set run.gate asks the person to confirm.
func (m *menu) gate() step {
	items := []choice{{m.say("menu.gate_none"), "none"}}
	if _, err := exec.LookPath("claude"); err == nil {
		items = append(items, choice{m.say("menu.gate_claude"), "claude-usage"})
	}
	for _, g := range harness.InstalledGates(m.Getenv) {
		if g != "claude-usage" {
			items = append(items, choice{m.say("menu.gate_own", messages.Args{"Name": g}), g})
		}
	}
	v, st := m.choose(m.say("menu.gate_choose"), true, items...)
	if st != stepOK {
		return st
	}
	switch v {
	case "none":
		m.do("config", "unset", "run.gate")
	case "claude-usage":
		n, st := m.input(m.say("menu.gate_n"), "10", wholeIn(0, 99, m.say("menu.bad_gate_n"), false))
		if st != stepOK {
			return st
		}
		cp, st := m.input(m.say("menu.gate_cap"), "", wholeIn(1, 100, m.say("menu.bad_gate_cap"), true))
		if st != stepOK {
			return st
		}
		words := "claude-usage " + strings.TrimSpace(n)
		if c := strings.TrimSpace(cp); c != "" {
			words += " --cap " + c
		}
		m.do("config", "set", "run.gate", words)
	default:
		m.do("config", "set", "run.gate", v)
	}
	return stepOK
}

// wholeIn validates a whole number lo–hi (research 1.26.0: no decimals).
func wholeIn(lo, hi int, bad string, empty bool) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" && empty {
			return nil
		}
		if n, err := strconv.Atoi(s); err != nil || n < lo || n > hi {
			return fmt.Errorf("%s", bad)
		}
		return nil
	}
}

// agent chooses the research's agent, marking the installed ones.
func (m *menu) agent() step {
	s := m.settingsNow()
	var items []choice
	advice := map[string]string{}
	for _, name := range harness.AgentNames(s) {
		p, err := harness.LookupAgent(s, name)
		if err != nil {
			continue
		}
		if p.Installed(exec.LookPath) {
			items = append(items, choice{m.say("menu.agent_installed", messages.Args{"Agent": name}), name})
			continue
		}
		how := p.Install
		if how == "" {
			how = p.Binary
		}
		advice[name] = how
		items = append(items, choice{m.say("menu.agent_missing", messages.Args{"Agent": name, "Advice": how}), name})
	}
	v, st := m.choose(m.say("menu.agent_choose"), true, items...)
	if st != stepOK {
		return st
	}
	if how, missing := advice[v]; missing {
		m.note(m.say("menu.agent_how", messages.Args{"Agent": v, "Advice": how}))
		return stepOK
	}
	if m.Research != nil {
		m.do("config", "set", "agent.name", v, "--for-tree")
	} else {
		m.do("config", "set", "agent.name", v)
	}
	return stepOK
}

func (m *menu) languageLabel() string {
	return m.say("menu.language", messages.Args{"Language": m.languageName(m.setting("messages.language"))})
}

func (m *menu) languageName(setting string) string {
	if setting == messages.System || setting == "" {
		return m.say("menu.language_system", messages.Args{"Language": m.say("lang." + messages.Resolve("", m.Getenv))})
	}
	return m.say("lang." + setting)
}

// language sets messages.language; the menu speaks it from the next form on.
func (m *menu) language() step {
	var items []choice
	for _, l := range messages.Languages {
		items = append(items, choice{m.say("lang." + l), l})
	}
	items = append(items, choice{m.languageName(messages.System), messages.System})
	v, st := m.choose(m.say("menu.language_choose"), true, items...)
	if st != stepOK {
		return st
	}
	m.do("config", "set", "messages.language", v)
	m.Msg = messages.For(harness.Language(m.Getenv))
	return stepOK
}

// archives lists the archives set for this research (archives.NAME.probe).
func (m *menu) archives() string {
	s := m.settingsNow()
	set := map[string]bool{}
	for _, c := range []*statefiles.Config{s.User, s.Tree} {
		if c == nil {
			continue
		}
		for k := range c.Settings {
			if name, ok := strings.CutPrefix(k, "archives."); ok {
				set[strings.TrimSuffix(name, ".probe")] = true
			}
		}
	}
	if len(set) == 0 {
		return m.say("menu.archives_none")
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// maintenance: the hooks, and every state file checked.
func (m *menu) maintenance() step {
	v, st := m.choose(m.say("menu.maintenance"), true,
		choice{m.say("menu.install_hooks"), "hooks"},
		choice{m.say("menu.check_files"), "check"})
	if st != stepOK {
		return st
	}
	if v == "hooks" {
		m.do("hooks", "install")
		return stepOK
	}
	errs := m.Research.CheckStateFiles()
	if len(errs) == 0 {
		m.note(m.say("menu.files_ok"))
	}
	for _, err := range errs {
		m.note(err.Error())
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
