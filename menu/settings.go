package menu

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/views"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// settings: the agent, working alone, messages, archives, maintenance, new researches.
func (m *menu) settings() step {
	return m.below(m.say("menu.settings"), func() []item {
		return []item{
			{m.say("menu.alone"), m.alone},
			{m.say("menu.agent", messages.Args{"Agent": m.setting("agent.name")}), m.agent},
			{m.languageLabel(), m.language},
			{m.say("menu.archives", messages.Args{"Archives": m.archives()}), m.archivesMenu},
			{m.say("menu.maintenance"), m.maintenance},
			{m.newLabel(), m.newResearches},
		}
	})
}

// alone is "The agent working alone" (R7.2, R7.4, R7.4.3).
func (m *menu) alone() step {
	gate := m.setting("run.gate")
	if gate == "" {
		gate = m.say("menu.gate_none")
	}
	return m.below(m.say("menu.alone"), func() []item {
		return []item{
			{m.say("menu.minutes", messages.Args{"Minutes": m.setting("run.minutes")}), m.minutes},
			{m.say("menu.gate", messages.Args{"Gate": gate}), m.gate},
			{m.say("menu.gate_test"), m.gateTest},
		}
	})
}

// minutes is the time for one task, refused as --minutes refuses it.
func (m *menu) minutes() step {
	key, _ := statefiles.LookupKey("run.minutes")
	n, st := m.input(m.say("menu.minutes_ask"), "", func(s string) error {
		s = strings.TrimSpace(s)
		if s == "0" {
			return nil
		}
		if _, err := key.Parse(s); err != nil {
			// The sentence --minutes refuses with, and the way back.
			return fmt.Errorf("%s", m.say("menu.bad_minutes", messages.Args{
				"Refusal": m.say("usage.minutes", messages.Args{"Value": asTyped(s)})}))
		}
		return nil
	})
	if st != stepOK {
		return st
	}
	if strings.TrimSpace(n) == "0" {
		return stepBack // 0 goes back without a change (R7.2), as Esc does
	}
	m.do(m.setWhereSet("run.minutes", strings.TrimSpace(n))...)
	return stepOK
}

// gateTest is "What would the condition say now?": strom gate test.
func (m *menu) gateTest() step {
	m.do("gate", "test")
	return stepOK
}

// setWhereSet is the strom config set line that changes what applies: the
// research's own setting when it has one (a tree setting wins over the computer's),
// else the computer's.
func (m *menu) setWhereSet(name, value string) []string {
	args := []string{"config", "set", name, value}
	if r, err := m.settingsNow().Resolve(name, ""); err == nil && r.Source == statefiles.FromTree {
		args = append(args, "--for-tree")
	}
	return args
}

// gate chooses the condition; strom config set run.gate asks the person to confirm.
func (m *menu) gate() step {
	items := []choice{{m.say("menu.gate_none"), "none"}}
	if _, err := exec.LookPath("claude"); err == nil {
		items = append(items, choice{m.say("menu.gate_claude"), "claude-usage"})
	}
	for _, g := range views.InstalledGates(m.Getenv) {
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
	for _, name := range views.AgentNames(s) {
		p, err := agents.LookupAgent(s, name)
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
	m.Msg = messages.For(research.Language(m.Getenv))
	return stepOK
}

// archives names the archives set for this research, for the Settings item.
func (m *menu) archives() string {
	names := m.settingsNow().ArchiveNames()
	if len(names) == 0 {
		return m.say("menu.archives_none")
	}
	return strings.Join(names, ", ")
}

// archivesMenu lists the archives tasks can need with their probes, adds one and
// removes one, as strom config set|unset archives.NAME.probe do.
func (m *menu) archivesMenu() step {
	s := m.settingsNow()
	items := []choice{{m.say("menu.archive_add"), "+add"}}
	for _, name := range s.ArchiveNames() {
		probe := ""
		if r, err := s.Resolve(statefiles.ArchiveSetting(name), ""); err == nil {
			probe = r.Value
		}
		items = append(items, choice{m.say("menu.archive_item", messages.Args{"Name": name, "Probe": probe}), name})
	}
	v, st := m.choose(m.say("menu.archives_title"), true, items...)
	if st != stepOK {
		return st
	}
	if v == "+add" {
		return m.archiveAdd()
	}
	r, err := s.Resolve(statefiles.ArchiveSetting(v), "")
	if err != nil {
		m.note(m.Msg.Text(err))
		return stepOK
	}
	w, st := m.choose(m.say("menu.archive_item", messages.Args{"Name": v, "Probe": r.Value}), true,
		choice{m.say("menu.archive_remove", messages.Args{"Name": v}), "remove"})
	if st != stepOK || w != "remove" {
		return st
	}
	args := []string{"config", "unset", statefiles.ArchiveSetting(v)}
	if r.Source == statefiles.FromTree {
		args = append(args, "--for-tree")
	}
	m.do(args...)
	return stepOK
}

// archiveAdd asks for a name and a probe; the probe is the research's, set with
// --for-tree and allowed as strom config set allows it on a terminal.
func (m *menu) archiveAdd() step {
	name, st := m.input(m.say("menu.archive_name"), "", func(s string) error {
		s = strings.TrimSpace(s)
		if statefiles.CheckArchiveName(s) != nil {
			return fmt.Errorf("%s", m.say("menu.bad_archive_name", messages.Args{"Name": s, "Max": statefiles.MaxArchiveName}))
		}
		return nil
	})
	if st != stepOK {
		return st
	}
	name = strings.TrimSpace(name)
	probe, st := m.input(m.say("menu.archive_probe", messages.Args{"Name": name}), "", func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s", m.say("menu.bad_archive_probe"))
		}
		return nil
	})
	if st != stepOK {
		return st
	}
	m.do("config", "set", statefiles.ArchiveSetting(name), strings.TrimSpace(probe), "--for-tree")
	return stepOK
}

// maintenance: the hooks, and every state file checked.
func (m *menu) maintenance() step {
	return m.once(m.say("menu.maintenance"),
		item{m.say("menu.install_hooks"), func() step {
			m.do("hooks", "install")
			return stepOK
		}},
		item{m.say("menu.check_files"), m.checkFiles})
}

// checkFiles says every state file that does not hold, or that all do.
func (m *menu) checkFiles() step {
	errs := views.CheckStateFiles(m.Research)
	if len(errs) == 0 {
		m.note(m.say("menu.files_ok"))
	}
	for _, err := range errs {
		m.note(m.Msg.Text(err))
	}
	return stepOK
}
