package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/strom-research/strom/messages"
)

// menuDriver drives the real menu (strom menu, a separate process) under an outer
// pty, as a person at the terminal: it waits for words on the screen and types.
type menuDriver struct {
	t    *testing.T
	r    *ttyRun
	from int // the screen up to here has been read
}

func startMenu(t *testing.T, h *cliHarness, env ...string) *menuDriver {
	t.Helper()
	return startOnTerminal(t, h, []string{"menu"}, env...)
}

// startOnTerminal runs strom with args under an outer pty of 120×40.
func startOnTerminal(t *testing.T, h *cliHarness, args []string, env ...string) *menuDriver {
	t.Helper()
	return startSized(t, h, 120, args, env...)
}

// startSized runs strom with args under an outer pty of cols×40.
func startSized(t *testing.T, h *cliHarness, cols uint16, args []string, env ...string) *menuDriver {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	// A terminal of a person's size: a form draws nothing in a 0×0 one.
	if err := pty.Setsize(master, &pty.Winsize{Rows: 40, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(h.strom, args...)
	cmd.Dir, cmd.Env = h.repo, append(append([]string(nil), h.env...), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	// The pty is the process's controlling terminal, as a person's is (/dev/tty).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	r := &ttyRun{cmd: cmd, master: master, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
		}
	})
	return &menuDriver{t: t, r: r}
}

// ansiRE matches the terminal's control sequences: colours and cursor moves.
var ansiRE = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])`)

// text is the screen so far without its control sequences.
func (d *menuDriver) text() string { return ansiRE.ReplaceAllString(d.r.text(), "") }

// expect waits until the screen shows s after what was read before.
func (d *menuDriver) expect(s string) {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		text := d.text()
		if i := strings.Index(text[d.from:], s); i >= 0 {
			d.from += i + len(s)
			return
		}
		select {
		case <-d.r.done:
			if !strings.Contains(d.text()[d.from:], s) {
				d.t.Fatalf("the menu ended without showing %q:\n%s", s, d.text()[d.from:])
			}
		default:
		}
		time.Sleep(20 * time.Millisecond)
	}
	if f := os.Getenv("STROM_TEST_SCREEN"); f != "" {
		_ = os.WriteFile(f, []byte(d.r.text()), 0o644)
	}
	d.t.Fatalf("the screen never showed %q:\n%s", s, d.text()[d.from:])
}

// answer waits for s, then types keys.
func (d *menuDriver) answer(s, keys string) {
	d.t.Helper()
	d.expect(s)
	time.Sleep(50 * time.Millisecond) // let the form finish drawing before the keys
	if _, err := d.r.master.Write([]byte(keys)); err != nil {
		d.t.Fatal(err)
	}
}

// leave waits for the menu process to end with exit status 0.
func (d *menuDriver) leave() {
	d.t.Helper()
	select {
	case <-d.r.done:
	case <-time.After(60 * time.Second):
		d.t.Fatalf("the menu did not end:\n%s", d.r.text())
	}
	if err := d.r.cmd.Wait(); err != nil {
		d.t.Fatalf("strom menu: %v\n%s", err, d.r.text())
	}
}

func (d *menuDriver) screen() string { return d.text() }

// menuWords are the words of one language the tests look for.
type menuWords struct {
	lang, env                                     string
	work, inOrder, howMany, end2                  string
	settings, alone, minutesAsk, badMinutes, back string
	minutesWhere                                  string
	minutesItem                                   string
	modeResearch, modeArchive, yes                string
	nowArchive, nowResearch                       string
}

var menuLanguages = []menuWords{
	{lang: "en", env: "LANG=en_US.UTF-8",
		work: "Let the agent work on its own", inOrder: "Work through the queue in this order", howMany: "How many tasks?",
		end2: "2 sessions · stopped: done", settings: "Settings: the agent, working alone", alone: "The agent working alone",
		minutesAsk: "Time for one task in minutes", minutesWhere: "Where should 30 min apply?", minutesItem: "Time for one task: 60 min", badMinutes: "--minutes takes a whole number 5–600, not 3, or 0 to go back", back: "← Back",
		modeResearch: "Mode: research — keep it only as a Strom archive", modeArchive: "Mode: Strom archive — switch research on", yes: "y",
		nowArchive: "the research is a Strom archive now: 3 tasks parked", nowResearch: "research is on: 3 tasks returned"},
	{lang: "de", env: "LANG=de_DE.UTF-8",
		work: "Den Agenten allein arbeiten lassen", inOrder: "Die Warteschlange in dieser Reihenfolge abarbeiten", howMany: "Wie viele Aufgaben?",
		end2: "Sitzungen: 2 · Ende: fertig", settings: "Einstellungen: Agent, allein arbeiten", alone: "Der Agent allein",
		minutesAsk: "Zeit für eine Aufgabe in Minuten", minutesWhere: "Wo sollen 30 Min. gelten?", minutesItem: "Zeit für eine Aufgabe: 60 Min.", badMinutes: "--minutes nimmt eine ganze Zahl 5–600, nicht 3, oder 0 für zurück", back: "← Zurück",
		modeResearch: "Modus: Forschung — nur als Strom-Archiv behalten", modeArchive: "Modus: Strom-Archiv — Forschung einschalten", yes: "j",
		nowArchive: "die Forschung ist jetzt ein Strom-Archiv: 3 Aufgaben zurückgestellt", nowResearch: "die Forschung ist eingeschaltet: 3 Aufgaben sind zurück"},
	{lang: "cs", env: "LANG=cs_CZ.UTF-8",
		work: "Nechat agenta pracovat samotného", inOrder: "Pracovat v pořadí fronty", howMany: "Kolik úkolů?",
		end2: "sezení: 2 · konec: hotovo", settings: "Nastavení: agent, samostatná práce", alone: "Samostatná práce agenta",
		minutesAsk: "Čas na jeden úkol v minutách", minutesWhere: "Kde má platit 30 min?", minutesItem: "Čas na jeden úkol: 60 min", badMinutes: "--minutes bere celé číslo 5–600, ne 3, nebo 0 pro návrat", back: "← Zpět",
		modeResearch: "Režim: výzkum — nechat jen jako Archiv Stromu", modeArchive: "Režim: Archiv Stromu — zapnout výzkum", yes: "a",
		nowArchive: "výzkum je teď Archiv Stromu: 3 úkoly odloženy", nowResearch: "výzkum je zapnutý: 3 úkoly se vrátily"},
}

func menuResearch(t *testing.T) *cliHarness {
	t.Helper()
	h := newCLIHarness(t)
	// The demo agent is started as the running strom binary.
	h.stromAsItself(t)
	h.env = append(h.env, "STROM_DEMO_STEP=5ms", "LC_ALL=", "LC_MESSAGES=", "TERM=xterm")
	h.git(t, "init", "-q")
	h.must(t, "init", "--agent", "demo")
	for _, title := range []string{"First task", "Second task", "Third task"} {
		h.must(t, "task", "add", title)
	}
	return h
}

func sessionCommits(t *testing.T, h *cliHarness) int {
	t.Helper()
	out := h.git(t, "log", "--format=%(trailers:key=Strom-Session,valueonly)")
	return len(strings.Fields(out))
}

// TestMenuWorkInOrder: "Let the agent work on its own" → "Work through the queue in
// this order" → 2 runs strom run --max 2: two session commits with the demo agent,
// in each language, in the accessible mode and drawn with arrow keys.
func TestMenuWorkInOrder(t *testing.T) {
	for _, w := range menuLanguages {
		t.Run(w.lang+"/accessible", func(t *testing.T) {
			t.Parallel()
			h := menuResearch(t)
			d := startMenu(t, h, w.env, "ACCESSIBLE=1")
			d.expect(w.modeResearch)
			d.answer(w.work, "2\r")
			d.answer(w.inOrder, "1\r")
			d.answer(w.howMany, "2\r")
			d.expect(w.end2)
			d.answer(w.work, "5\r") // the menu again: leave
			d.leave()
			if n := sessionCommits(t, h); n != 2 {
				t.Errorf("%d session commits, want 2:\n%s", n, d.screen())
			}
		})
	}
	t.Run("en/keys", func(t *testing.T) {
		t.Parallel()
		if raceEnabled {
			// The drawn form's input reader in bubbletea v2 is closed at the end of a
			// form while its own goroutine may still read it (charmbracelet/bubbletea
			// #1599): the race detector reports it inside the library and fails the
			// menu's process. make test runs this case again without -race.
			t.Skip("the drawn form's reader races inside bubbletea v2 under -race (bubbletea#1599); make test runs this case in its pass without -race")
		}
		w := menuLanguages[0]
		h := menuResearch(t)
		d := startMenu(t, h, w.env)
		// The cursor starts on the choice most often wanted while tasks are open.
		d.answer("> "+w.work, "\r")
		d.answer(w.inOrder, "\r")
		d.answer(w.howMany, "\x1b") // Esc: one level back, to the same menu
		d.answer(w.inOrder, "\r")
		d.answer(w.howMany, "2\r") // the offered 1 is no digit of what is typed
		d.expect(w.end2)
		d.answer(w.work, "\x1b") // Esc on the first level leaves
		d.leave()
		if n := sessionCommits(t, h); n != 2 {
			t.Errorf("%d session commits, want 2:\n%s", n, d.screen())
		}
	})
}

// TestMenuMinutes: "Time for one task" with 0 goes back and changes nothing; a
// value the flag refuses is refused with its sentence; 30 sets run.minutes.
func TestMenuMinutes(t *testing.T) {
	for _, w := range menuLanguages {
		t.Run(w.lang, func(t *testing.T) {
			t.Parallel()
			h := menuResearch(t)
			d := startMenu(t, h, w.env, "ACCESSIBLE=1")
			d.answer(w.settings, "4\r")
			d.answer(w.alone, "1\r")
			d.answer(w.minutesItem, "1\r")
			d.answer(w.minutesAsk, "0\r")
			d.answer(w.minutesItem, "4\r") // the same menu again, unchanged: back
			d.answer(w.back, "8\r")        // Settings: back to the first level
			d.answer(w.work, "5\r")
			d.leave()
			if out := h.must(t, "config", "get", "run.minutes"); !strings.Contains(out, "60") || !strings.Contains(out, "default") {
				t.Fatalf("0 changed run.minutes: %s", out)
			}

			d = startMenu(t, h, w.env, "ACCESSIBLE=1")
			d.answer(w.settings, "4\r")
			d.answer(w.alone, "1\r")
			d.answer(w.minutesItem, "1\r")
			d.answer(w.minutesAsk, "3\r")
			d.answer(w.badMinutes, "30\r")
			d.answer(w.minutesWhere, "2\r") // this computer
			d.answer(w.work, "5\r")
			d.leave()
			if out := h.must(t, "config", "get", "run.minutes"); !strings.Contains(out, "30") || !strings.Contains(out, "user") {
				t.Fatalf("run.minutes after 30: %s", out)
			}
		})
	}
}

// TestMenuModeSwitch: the first item parks the tasks as a Strom archive (strom mode
// archive, confirmed) and restores them when research is switched on again.
func TestMenuModeSwitch(t *testing.T) {
	for _, w := range menuLanguages {
		t.Run(w.lang, func(t *testing.T) {
			t.Parallel()
			h := menuResearch(t)
			d := startMenu(t, h, w.env, "ACCESSIBLE=1")
			d.answer(w.modeResearch, "1\r")
			d.answer("[", w.yes+"\r")
			d.expect(w.nowArchive)
			d.answer(w.modeArchive, "1\r")
			d.answer("[", w.yes+"\r")
			d.expect(w.nowResearch)
			d.answer(w.modeResearch, "5\r")
			d.leave()
			if out := h.must(t, "task", "list", "--state", "open"); strings.Count(out, "open") != 3 {
				t.Errorf("the tasks are not back in the queue:\n%s", out)
			}
			log := h.git(t, "log", "--format=%(trailers:key=Strom-Mode,valueonly)")
			if strings.Fields(log)[0] != "research" || strings.Fields(log)[1] != "archive" {
				t.Errorf("Strom-Mode trailers: %q", log)
			}
		})
	}
}

// TestMenuWithoutTerminal: strom alone without a terminal prints the list of
// commands, as before.
func TestMenuWithoutTerminal(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	cmd := exec.Command(h.strom)
	cmd.Dir, cmd.Env = h.repo, h.env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "strom menu ") || !strings.Contains(string(out), "strom task add") {
		t.Fatalf("strom without a terminal: %v\n%s", err, out)
	}
}

// TestSetupOnTerminal: strom setup asks what a new research should be, in the
// person's language; the answer is init.mode.
func TestSetupOnTerminal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ env, question string }{
		{"LANG=en_US.UTF-8", "What should a new research on this computer be?"},
		{"LANG=de_DE.UTF-8", "Was soll eine neue Forschung auf diesem Computer sein?"},
		{"LANG=cs_CZ.UTF-8", "Čím má být nový výzkum na tomto počítači?"},
	} {
		h := newCLIHarness(t)
		d := startOnTerminal(t, h, []string{"setup"}, tt.env, "ACCESSIBLE=1", "LC_ALL=", "LC_MESSAGES=")
		d.answer(tt.question, "2\r")
		d.leave()
		if out := h.must(t, "config", "get", "init.mode"); !strings.Contains(out, "archive") {
			t.Errorf("%s: init.mode after the answer: %s", tt.env, out)
		}
	}
}

// TestMenuEveryScreenInGermanAndCzech walks every menu and submenu in the
// accessible mode, in German and Czech: each shows its own words and none of the
// English menu's.
func TestMenuEveryScreenInGermanAndCzech(t *testing.T) {
	ids := []string{"menu.work_alone", "menu.queue", "menu.add_task", "menu.answer", "menu.unpark", "menu.settings",
		"menu.alone", "menu.gate_test", "menu.agent_choose", "menu.language_choose", "menu.accessible_choose", "menu.accessible_choice_on", "menu.maintenance", "menu.install_hooks",
		"menu.check_files", "menu.files_ok", "menu.archives_title", "menu.archive_add", "menu.setup_question", "menu.new_archive", "menu.back",
		"menu.leave", "menu.work_picked", "menu.pick_task", "menu.nothing_waiting", "menu.nothing_parked", "menu.task_title", "menu.task_body", "menu.mode_research"}
	for _, tt := range []struct{ lang, env string }{{"de", "LANG=de_DE.UTF-8"}, {"cs", "LANG=cs_CZ.UTF-8"}} {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			p, en := messages.For(tt.lang), messages.For(messages.English)
			say := func(id string) string { return p.Say(id) }
			h := menuResearch(t)
			d := startMenu(t, h, tt.env, "ACCESSIBLE=1")
			main := func(keys string) { d.answer(say("menu.leave"), keys) }
			// The tasks picked from the list; nothing picked goes back.
			main("2\r")
			d.answer(say("menu.work_picked"), "2\r")
			d.answer(say("menu.pick_task"), "0\r")
			d.answer(say("menu.work_picked"), "3\r")
			// The daily queue work.
			main("3\r")
			d.answer(say("menu.unpark"), "1\r")
			d.answer(say("menu.task_title"), "Neue Aufgabe\r")
			d.answer(say("menu.task_body"), "\r")
			main("3\r")
			d.answer(say("menu.unpark"), "2\r")
			d.expect(say("menu.nothing_waiting"))
			main("3\r")
			d.answer(say("menu.unpark"), "3\r")
			d.expect(say("menu.nothing_parked"))
			// Settings and each of its menus.
			main("4\r")
			d.answer(say("menu.maintenance"), "1\r")
			d.answer(say("menu.gate_test"), "4\r")
			d.answer(say("menu.maintenance"), "2\r")
			d.answer(say("menu.agent_choose"), "4\r") // demo, as it is
			main("4\r")
			d.answer(say("menu.maintenance"), "3\r")
			d.answer(say("menu.language_choose"), "4\r") // as the system says
			main("4\r")
			d.answer(say("menu.maintenance"), "4\r")
			d.answer(say("menu.accessible_choose"), "1\r") // on, as it is
			main("4\r")
			d.answer(say("menu.maintenance"), "5\r")
			d.answer(say("menu.archive_add"), "2\r") // back to Settings
			d.answer(say("menu.maintenance"), "8\r") // back to the first level
			main("4\r")
			d.answer(say("menu.maintenance"), "6\r")
			d.answer(say("menu.check_files"), "2\r")
			d.expect(say("menu.files_ok"))
			main("4\r")
			d.answer(say("menu.maintenance"), "7\r")
			d.answer(say("menu.setup_question"), "3\r")
			d.answer(say("menu.maintenance"), "8\r")
			main("5\r")
			d.leave()
			screen := d.screen()
			for _, id := range ids {
				if english := en.Say(id); strings.Contains(screen, english) {
					t.Errorf("the %s menu shows the English %q", tt.lang, english)
				}
				if word := say(id); !strings.Contains(screen, word) {
					t.Errorf("the %s menu never showed %s %q", tt.lang, id, word)
				}
			}
			if out := h.must(t, "task", "list"); !strings.Contains(out, "Neue Aufgabe") {
				t.Errorf("the task added in the menu is not in the queue:\n%s", out)
			}
		})
	}
}

// TestMenuOutsideAResearch: strom alone on a terminal in a folder that is no
// research speaks the language of the environment, and its first item runs strom
// init there as a command of its own; the menu then is the new research's.
func TestMenuOutsideAResearch(t *testing.T) {
	t.Parallel()
	h := newCLIHarness(t)
	h.env = append(h.env, "STROM_DEMO_STEP=5ms", "LC_ALL=", "LC_MESSAGES=", "TERM=xterm")
	h.git(t, "init", "-q")
	w := menuLanguages[1]
	d := startOnTerminal(t, h, nil, w.env, "ACCESSIBLE=1")
	d.answer("Diesen Ordner zu einer Forschung machen (strom init)", "1\r")
	d.answer(w.work, "5\r") // the new research's menu: leave
	d.leave()
	if _, err := os.Stat(filepath.Join(h.repo, ".strom", "queue.json")); err != nil {
		t.Errorf("strom init from the menu made no research: %v\n%s", err, d.screen())
	}
}

// TestMenuRemembersTheResearch: the menu opened in a research puts it on this
// computer's list (strom app), as every strom command in it does.
func TestMenuRemembersTheResearch(t *testing.T) {
	t.Parallel()
	h := menuResearch(t)
	list := filepath.Join(h.dir, "home", ".config", "strom", "researches.json")
	if err := os.Remove(list); err != nil {
		t.Fatal(err)
	}
	d := startMenu(t, h, menuLanguages[0].env, "ACCESSIBLE=1")
	d.answer(menuLanguages[0].work, "5\r")
	d.leave()
	b, err := os.ReadFile(list)
	if err != nil || !strings.Contains(string(b), h.repo) {
		t.Errorf("researches.json after the menu: %q, %v; want it to name %s", b, err, h.repo)
	}
}
