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
			{label: m.say("menu.alone"), do: m.alone},
			{label: m.say("menu.agent", messages.Args{"Agent": m.setting("agent.name")}), do: m.agent},
			{label: m.languageLabel(), do: m.language},
			{label: m.accessibleLabel(), do: m.accessible},
			{label: m.say("menu.archives", messages.Args{"Archives": m.archives()}), do: m.archivesMenu},
			{label: m.say("menu.maintenance"), do: m.maintenance},
			{label: m.newLabel(), do: m.newResearches},
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
			{label: m.say("menu.minutes", messages.Args{"Minutes": m.setting("run.minutes")}), do: m.minutes},
			{label: m.say("menu.gate", messages.Args{"Gate": gate}), do: m.gate},
			{label: m.say("menu.gate_test"), do: m.gateTest},
		}
	})
}

// minutes is the time for one task, refused as --minutes refuses it.
func (m *menu) minutes() step {
	key, _ := statefiles.LookupKey("run.minutes")
	rng := messages.Args{"Min": key.Min, "Max": key.Max}
	n, st := m.input(m.say("menu.minutes_ask", rng), "", func(s string) error {
		s = strings.TrimSpace(s)
		if s == "0" {
			return nil
		}
		if _, err := key.Parse(s); err != nil {
			// The sentence --minutes refuses with, and the way back.
			return fmt.Errorf("%s", m.say("menu.bad_minutes", messages.Args{
				"Refusal": m.say("usage.minutes", messages.Args{"Value": asTyped(s), "Min": key.Min, "Max": key.Max})}))
		}
		return nil
	})
	if st != stepOK {
		return st
	}
	v := strings.TrimSpace(n)
	if v == "0" {
		return stepBack // 0 goes back without a change (R7.2), as Esc does
	}
	// Where the time is set: the research's own setting wins over the computer's,
	// and the environment's over both, so the person chooses knowing which applies.
	now, err := m.settingsNow().Resolve("run.minutes", "")
	if err != nil {
		m.note(m.Msg.Text(err))
		return stepOK
	}
	title := m.say("menu.minutes_where", messages.Args{"Minutes": v})
	if now.Source == statefiles.FromEnv {
		title += " " + m.say("menu.minutes_env", messages.Args{"Env": now.Where, "Minutes": now.Value})
	}
	where, st := m.choose(title, true,
		choice{label: m.say("menu.minutes_tree", messages.Args{"File": m.Research.Tree.TreeConfig().Shown}), value: "tree", cursor: now.Source == statefiles.FromTree},
		choice{label: m.say("menu.minutes_user", messages.Args{"File": statefiles.UserConfig(m.Getenv).Shown}), value: "user", cursor: now.Source != statefiles.FromTree})
	if st != stepOK {
		return st
	}
	args := []string{"config", "set", "run.minutes", v}
	if where == "tree" {
		args = append(args, "--for-tree")
	}
	m.do(args...)
	return stepOK
}

// gateTest is "What would the condition say now?": strom gate test.
func (m *menu) gateTest() step {
	m.do("gate", "test")
	return stepOK
}

// gate chooses the condition; strom config set run.gate asks the person to confirm.
func (m *menu) gate() step {
	items := []choice{{label: m.say("menu.gate_none"), value: "none"}}
	if _, err := exec.LookPath("claude"); err == nil {
		items = append(items, choice{label: m.say("menu.gate_claude"), value: "claude-usage"})
	}
	for _, g := range views.InstalledGates(m.Getenv) {
		if g != "claude-usage" {
			items = append(items, choice{label: m.say("menu.gate_own", messages.Args{"Name": g}), value: g})
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
			items = append(items, choice{label: m.say("menu.agent_installed", messages.Args{"Agent": name}), value: name})
			continue
		}
		how := p.Install
		if how == "" {
			how = p.Binary
		}
		advice[name] = how
		items = append(items, choice{label: m.say("menu.agent_missing", messages.Args{"Agent": name, "Advice": how}), value: name})
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
		items = append(items, choice{label: m.say("lang." + l), value: l})
	}
	items = append(items, choice{label: m.languageName(messages.System), value: messages.System})
	v, st := m.choose(m.say("menu.language_choose"), true, items...)
	if st != stepOK {
		return st
	}
	m.do("config", "set", "messages.language", v)
	m.Msg = messages.For(research.Language(m.Getenv))
	return stepOK
}

func (m *menu) accessibleLabel() string {
	return m.say("menu.accessible", messages.Args{"Value": m.say("menu.accessible_" + m.setting("menu.accessible"))})
}

// accessible sets menu.accessible, remembered for this computer; the menu asks
// that way from the next form on. ACCESSIBLE in the environment asks that way
// whatever the setting says.
func (m *menu) accessible() step {
	now := m.setting("menu.accessible")
	v, st := m.choose(m.say("menu.accessible_choose"), true,
		choice{label: m.say("menu.accessible_choice_on"), value: "on", cursor: now == "on"},
		choice{label: m.say("menu.accessible_choice_off"), value: "off", cursor: now != "on"})
	if st != stepOK {
		return st
	}
	m.do("config", "set", "menu.accessible", v)
	m.Accessible = accessibleMode(m.Getenv, m.settingsNow())
	return stepOK
}

// accessibleMode is whether the menu asks with numbered choices and plain lines:
// ACCESSIBLE set in the environment, or menu.accessible on.
func accessibleMode(getenv func(string) string, s statefiles.Settings) bool {
	if getenv("ACCESSIBLE") != "" {
		return true
	}
	r, err := s.Resolve("menu.accessible", "")
	return err == nil && r.Value == "on"
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
	items := []choice{{label: m.say("menu.archive_add"), value: "+add"}}
	for _, name := range s.ArchiveNames() {
		probe := ""
		if r, err := s.Resolve(statefiles.ArchiveSetting(name), ""); err == nil {
			probe = r.Value
		}
		items = append(items, choice{label: m.say("menu.archive_item", messages.Args{"Name": name, "Probe": probe}), value: name})
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
		choice{label: m.say("menu.archive_remove", messages.Args{"Name": v}), value: "remove"})
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
		item{label: m.say("menu.install_hooks"), do: func() step {
			m.do("hooks", "install")
			return stepOK
		}},
		item{label: m.say("menu.check_files"), do: m.checkFiles})
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
