package menu

import (
	"fmt"
	"strings"

	"github.com/strom-research/strom/harness/mode"
	"github.com/strom-research/strom/harness/queue"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// main is the first level. The mode comes first (R7.8, R7.8.1); the title
// counts the open tasks, the questions that wait for an answer and the tasks
// parked. The cursor starts on what a person most often wants now: the agent's
// install while the research waits for it, the agent's work while tasks are open,
// else the queue's work.
func (m *menu) main() step {
	r := m.Research
	if r == nil {
		return m.outside()
	}
	title := m.say("menu.title", messages.Args{"Root": r.Tree.Root})
	var open, waiting, parked int
	if q, err := r.Tree.LoadQueue(); err == nil {
		open, waiting, parked = len(inState(q, statefiles.Open)), len(inState(q, statefiles.Waiting)), len(inState(q, statefiles.Parked))
		title += " · " + m.say("menu.open_tasks", messages.Args{"Count": open})
		if waiting > 0 {
			title += " · " + m.say("menu.waiting_tasks", messages.Args{"Count": waiting})
		}
		if parked > 0 {
			title += " · " + m.say("menu.parked_tasks", messages.Args{"Count": parked})
		}
	}
	var items []item
	shown := statefiles.ModeResearch
	if ms, err := mode.Mode(m.ctx, r); err == nil {
		shown = ms.Shown
		label := m.say("menu.mode_research")
		switch ms.Shown {
		case statefiles.ModeArchive:
			label = m.say("menu.mode_archive")
		case mode.ModeWaiting:
			label = m.say("menu.mode_waiting", messages.Args{"Agent": ms.Agent})
		}
		items = append(items, item{label: label, do: m.mode, cursor: ms.Shown == mode.ModeWaiting})
	}
	work := shown == statefiles.ModeResearch && open > 0
	items = append(items,
		item{label: m.say("menu.work_alone"), do: m.work, cursor: work},
		item{label: m.say("menu.queue"), do: m.queue, cursor: !work && shown != mode.ModeWaiting},
		item{label: m.say("menu.settings"), do: m.settings},
		m.leaveItem())
	return m.first(title, items...)
}

// outside is the menu where no research repo is: make one, or the computer's settings.
func (m *menu) outside() step {
	return m.first(m.say("menu.title_outside"),
		item{label: m.say("menu.init"), do: m.initHere},
		item{label: m.languageLabel(), do: m.language},
		item{label: m.newLabel(), do: m.newResearches},
		m.leaveItem())
}

// initHere is strom init in the working folder; the menu then is the new research's.
func (m *menu) initHere() step {
	m.do("init")
	if r, err := research.Open(m.Dir, research.Env{Getenv: m.Getenv}); err == nil {
		m.Research = r
	}
	return stepOK
}

// mode switches between research and a Strom archive; strom mode asks to confirm.
func (m *menu) mode() step {
	ms, err := mode.Mode(m.ctx, m.Research)
	if err != nil {
		m.note(m.Msg.Text(err))
		return stepOK
	}
	switch ms.Shown {
	case statefiles.ModeArchive:
		m.do("mode", statefiles.ModeResearch)
	case mode.ModeWaiting:
		return m.once(m.say("menu.mode_waiting", messages.Args{"Agent": ms.Agent}),
			item{label: m.say("menu.keep_archive"), do: func() step {
				m.do("mode", statefiles.ModeArchive)
				return stepOK
			}},
			item{label: m.say("menu.install_agent", messages.Args{"Advice": installLine(ms, m.Msg)}), do: func() step {
				m.installAgent(ms)
				return stepOK
			}, cursor: true})
	default:
		m.do("mode", statefiles.ModeArchive)
	}
	return stepOK
}

// installLine is what Install the agent runs, or how to install it when strom
// does not know the line.
func installLine(ms mode.State, p *messages.Printer) string {
	if ms.Install != "" {
		return ms.Install
	}
	return ms.SayAdvice(p)
}

// installAgent runs the research's agent's install line (the item named it, and
// choosing it is the person's yes, as strom mode research asks for one); the
// research then goes on by itself with the tasks it had (R7.8.1).
func (m *menu) installAgent(ms mode.State) {
	if ms.Install == "" {
		m.note(m.say("menu.agent_how", messages.Args{"Agent": ms.Binary, "Advice": ms.SayAdvice(m.Msg)}))
		return
	}
	fmt.Fprintf(m.Out, "$ %s\n", ms.Install)
	if err := mode.RunInstall(m.ctx, m.Research, ms.Install, m.Terminal, m.Out, m.Out); err != nil {
		m.note(m.say("menu.install_failed", messages.Args{"Error": m.Msg.Text(err), "Advice": ms.SayAdvice(m.Msg)}))
		return
	}
	if now, err := mode.Mode(m.ctx, m.Research); err == nil && now.Shown != mode.ModeWaiting {
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

// queue is the daily work on the queue a person does; the cursor starts on
// answering while a question waits, on unparking while only parked tasks are
// left, else on adding a task.
func (m *menu) queue() step {
	var waiting, open, parked int
	if q, err := m.Research.Tree.LoadQueue(); err == nil {
		waiting, open, parked = len(inState(q, statefiles.Waiting)), len(inState(q, statefiles.Open)), len(inState(q, statefiles.Parked))
	}
	unpark := waiting == 0 && open == 0 && parked > 0
	return m.once(m.say("menu.queue"),
		item{label: m.say("menu.add_task"), do: m.withQueue(m.addTask), cursor: waiting == 0 && !unpark},
		item{label: m.say("menu.answer"), do: m.withQueue(m.answerTask), cursor: waiting > 0},
		item{label: m.say("menu.unpark"), do: m.withQueue(m.unparkTask), cursor: unpark})
}

// withQueue is an item that reads the queue first: one that cannot be read is
// said, and the item does nothing.
func (m *menu) withQueue(do func(q *statefiles.Queue) step) func() step {
	return func() step {
		q, err := m.Research.Tree.LoadQueue()
		if err != nil {
			m.note(m.Msg.Text(err))
			return stepOK
		}
		return do(q)
	}
}

// notEmpty refuses an empty line with the sentence bad.
func (m *menu) notEmpty(bad string) func(string) error {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s", m.say(bad))
		}
		return nil
	}
}

// addTask is strom task add with a title and, when given, a body.
func (m *menu) addTask(*statefiles.Queue) step {
	title, st := m.input(m.say("menu.task_title"), "", m.notEmpty("menu.bad_title"))
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
	return stepOK
}

// answerTask is strom task answer for a waiting task, its last question shown;
// the answer's field repeats the task and its question above it.
func (m *menu) answerTask(q *statefiles.Queue) step {
	var items []choice
	asked := map[string]string{}
	for _, t := range inState(q, statefiles.Waiting) {
		label := t.ID + "  " + termsafe.Line(t.Title)
		if n := len(t.Questions); n > 0 {
			label += " — " + termsafe.Line(t.Questions[n-1].Question)
			asked[t.ID] = m.say("menu.answer_to", messages.Args{"Task": t.ID, "Title": termsafe.Line(t.Title), "Question": termsafe.Line(t.Questions[n-1].Question)})
		}
		items = append(items, choice{label: label, value: t.ID})
	}
	id, st := m.whichTask("menu.answer_which", "menu.nothing_waiting", items)
	if st != stepOK || id == "" {
		return st
	}
	title := m.say("menu.answer_text")
	if a := asked[id]; a != "" {
		title = a + "\n" + title
	}
	text, st := m.input(title, "", m.notEmpty("menu.bad_answer"))
	if st != stepOK {
		return st
	}
	m.do("task", "answer", id, strings.TrimSpace(text))
	return stepOK
}

// unparkTask is strom task unpark for a parked task, its reason shown.
func (m *menu) unparkTask(q *statefiles.Queue) step {
	var items []choice
	for _, t := range inState(q, statefiles.Parked) {
		items = append(items, choice{label: t.ID + "  " + termsafe.Line(t.Title) + " — " + termsafe.Line(queue.SayParkReason(m.Msg, t.Reason)), value: t.ID})
	}
	id, st := m.whichTask("menu.unpark_which", "menu.nothing_parked", items)
	if st != stepOK || id == "" {
		return st
	}
	m.do("task", "unpark", id)
	return stepOK
}

// whichTask asks which of the tasks listed (title), or says none when the list
// is empty and chooses none ("").
func (m *menu) whichTask(title, none string, tasks []choice) (string, step) {
	if len(tasks) == 0 {
		m.note(m.say(none))
		return "", stepOK
	}
	return m.choose(m.say(title), true, tasks...)
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
		choice{label: m.say("menu.new_research"), value: statefiles.ModeResearch},
		choice{label: m.say("menu.new_archive"), value: statefiles.ModeArchive})
	if st != stepOK {
		return st
	}
	m.do("config", "set", "init.mode", v)
	return stepOK
}
