package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// watchfulAgent looks at its task again and again, saying so, until it is asked to
// finish; then it records and closes.
const watchfulAgent = `#!/bin/sh
n=0
while [ $n -lt 3000 ]; do
	n=$((n+1))
	echo "looking at the register, page $n"
	if strom task | grep -q '⏹'; then
		strom record "asked to finish after $n pages" >/dev/null
		strom session close >/dev/null
		exit 0
	fi
	sleep 0.1
done
`

// chromium finds the browser the app tests drive: Debian's chromium, which .ci/run
// installs. Without CI a missing browser skips the test, saying why.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium for the app's browser tests")
	}
	t.Skip("no chromium on PATH: apt-get install chromium runs the app's browser tests")
	return ""
}

// browser starts a headless Chromium for the test. The browser lives as long as the
// context of its first action, so that one has no time limit; later steps get
// theirs from within (see within).
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // tests run as root in CI
		chromedp.WindowSize(1100, 1400),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// within is ctx with a limit for the steps of a test.
func within(t *testing.T, ctx context.Context) context.Context {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startApp runs strom app in h's home and returns the address it printed.
func startApp(t *testing.T, h *cliHarness, args ...string) string {
	t.Helper()
	cmd := exec.Command(h.strom, append([]string{"app"}, args...)...)
	cmd.Dir, cmd.Env = h.repo, h.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("strom app printed no address: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "strom app: ")
	if !ok || !strings.Contains(url, "?token=") {
		t.Fatalf("strom app's first line is %q, want its address with the token", line)
	}
	go func() { _, _ = bufio.NewReader(out).WriteTo(devNull{}) }()
	return url
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// TestAppFinishAndStop: the overview shows the working session with its time left
// and Finish and stop; pressing it makes the run's terminal ask, and after yes the
// page shows the session ended finish-requested. An archive beside it shows as
// Archive. With STROM_SCREENSHOT set, the overview of the working session is saved
// there (make screenshot).
func TestAppFinishAndStop(t *testing.T) {
	t.Parallel()
	h := withAgent(t, watchfulAgent, "Find the baptism of Anna Novak", "Find Jan Novak's marriage")
	archive := filepath.Join(h.dir, "letters")
	if err := os.MkdirAll(archive, 0o755); err != nil {
		t.Fatal(err)
	}
	initIn(t, h, archive)
	if err := os.WriteFile(filepath.Join(archive, ".strom", "mode.json"), []byte(`{"version": 1, "mode": "archive"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	run := startTTYRun(t, h, "run", "--loop")
	run.waitFor(t, "▶ session")
	url := startApp(t, h)
	bctx := browser(t)
	ctx := within(t, bctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`[data-state="working"]`))); err != nil {
		t.Fatalf("the overview does not show the working session: %v\n%s", err, run.text())
	}
	left, err := chromedp.Run(ctx, textOf(`[data-state="working"] .left`))
	if err != nil || !strings.Contains(left, "min") {
		t.Errorf("time left %q (%v)", left, err)
	}
	modes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("section.research .mode")).map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(modes, ","); got != "Research,Archive" && got != "Archive,Research" {
		t.Errorf("modes shown: %v, want the research and the archive", modes)
	}
	if shot := os.Getenv("STROM_SCREENSHOT"); shot != "" {
		// Let the transcript fill a little for the picture.
		time.Sleep(1500 * time.Millisecond)
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-state="working"]`))); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The page replaces its overview whenever it changes (here: every new line of
	// the transcript), so the button found may be gone when the click is sent: press
	// again until the click lands.
	err = nil
	for try := 0; try < 20; try++ {
		if err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form.finish button`))); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("pressing Finish and stop: %v", err)
	}
	if err := chromedp.Do(within(t, bctx), chromedp.WaitVisible(chromedp.CSS(`[data-finish="asked"]`))); err != nil {
		page, _ := chromedp.Run(within(t, bctx), chromedp.OuterHTML(chromedp.CSS("main")))
		t.Fatalf("pressing Finish and stop: %v\n%s\n%s", err, page, run.text())
	}
	run.waitFor(t, "The app asks this session to finish — finish it? [Y/n]")
	if _, err := run.master.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`tr.session-row[data-end="finish-requested"]`))); err != nil {
		t.Fatalf("the page does not show the session's end: %v\n%s", err, run.text())
	}
	ended, err := chromedp.Run(ctx, textOf(`tr.session-row[data-end="finish-requested"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ended, "finished on request") {
		t.Errorf("session row %q", ended)
	}
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, run.text())
	}
	if !strings.Contains(run.text(), "1 session · stopped: by hand") {
		t.Errorf("the run went on after the app's finish:\n%s", run.text())
	}
	if got := h.git(t, "log", "-1", "--format=%(trailers:key=Strom-End,valueonly)"); strings.TrimSpace(got) != "finish-requested" {
		t.Errorf("Strom-End = %q", got)
	}
	// Since you left: the run's end line as the run printed it, what to do next,
	// and what its session found, the record itself.
	if err := chromedp.Do(within(t, bctx), chromedp.WaitVisible(chromedp.CSS(`.since-left .end-line[data-stop="by hand"]`))); err != nil {
		page, _ := chromedp.Run(within(t, bctx), chromedp.OuterHTML(chromedp.CSS("main")))
		t.Fatalf("the page does not show how the run ended: %v\n%s", err, page)
	}
	since, err := chromedp.Run(within(t, bctx), textOf(`.since-left`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 session · stopped: by hand", "next: strom run goes on with the queue.", "asked to finish after "} {
		if !strings.Contains(since, want) {
			t.Errorf("Since you left lacks %q:\n%s", want, since)
		}
	}
}

// TestAppPaused: while the run waits for the condition the overview says "Paused,
// resumes at …" with the condition's reason, and has no Finish and stop.
func TestAppPaused(t *testing.T) {
	t.Parallel()
	h := withAgent(t, watchfulAgent, "Find the baptism of Anna Novak")
	gate := filepath.Join(h.dir, "home", ".config", "strom", "plugins", "gates", "later", "gate")
	if err := os.MkdirAll(filepath.Dir(gate), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, []byte("#!/bin/sh\necho '{\"verdict\":\"wait\",\"reason\":\"the register opens at nine\",\"retry_after_s\":3600}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "home", ".config", "strom", "config.json"), []byte(`{"version": 1, "settings": {"run.gate": "later"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := startTTYRun(t, h, "run", "--loop")
	run.waitFor(t, "⏸")
	url := startApp(t, h)
	ctx := within(t, browser(t))
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`[data-state="paused"]`))); err != nil {
		t.Fatalf("the overview does not show the pause: %v\n%s", err, run.text())
	}
	state, err := chromedp.Run(ctx, textOf(`[data-state="paused"]`))
	if err != nil {
		t.Fatal(err)
	}
	buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("form.finish").length`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(state, "Paused, resumes at ") || !strings.Contains(state, "the register opens at nine") {
		t.Errorf("paused state %q", state)
	}
	if buttons != 0 {
		t.Errorf("%d Finish and stop buttons while the run waits for the condition", buttons)
	}
	run.cmd.Process.Signal(os.Interrupt)
	run.wait(t)
}

// textOf reads an element's text in one step: the page replaces its overview when it
// changes, so a query and a later read could meet two different nodes.
func textOf(css string) chromedp.Action[string] {
	return chromedp.Evaluate[string](`(document.querySelector(` + strconv.Quote(css) + `) || {}).textContent || ""`)
}

// initIn makes dir a research repo in h's home, so strom app lists it.
func initIn(t *testing.T, h *cliHarness, dir string) {
	t.Helper()
	cmd := exec.Command(h.strom, "init", "--agent", "demo")
	cmd.Dir, cmd.Env = dir, h.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strom init in %s: %v\n%s", dir, err, out)
	}
}

// TestAppAtPhoneWidth: at a phone's width (390 px) the overview is no wider than the
// screen, and every column of the last sessions, the commit too, is on it. With
// STROM_SCREENSHOT_PHONE set, the page is saved there (docs/overview-phone.png).
func TestAppAtPhoneWidth(t *testing.T) {
	t.Parallel()
	h := withAgent(t, `#!/bin/sh
strom record "the baptism of Anna Novak is in the register of Kostelec nad Orlicí, 1850, page 12" >/dev/null
strom done >/dev/null
`, "Find the baptism of Anna Novak in the parish registers of Kostelec nad Orlicí", "Find Jan Novak's marriage")
	h.must(t, "run", "--max", "1")
	url := startApp(t, h)
	ctx := within(t, browser(t))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`table.sessions td.commit`))); err != nil {
		t.Fatalf("the overview does not show the last sessions: %v", err)
	}
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if width > 390 {
		t.Errorf("the page is %d px wide at a width of 390 px", width)
	}
	right, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.max(...Array.from(document.querySelectorAll("td, th, p, dd, h2, h3")).filter(e => e.offsetParent).map(e => e.getBoundingClientRect().right))`))
	if err != nil {
		t.Fatal(err)
	}
	if right > 390 {
		t.Errorf("a cell or line reaches %.0f px at a width of 390 px", right)
	}
	commit, err := chromedp.Run(ctx, textOf(`table.sessions td.commit`))
	if err != nil || len(strings.TrimSpace(commit)) < 7 {
		t.Errorf("the commit column reads %q (%v)", commit, err)
	}
	if shot := os.Getenv("STROM_SCREENSHOT_PHONE"); shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppAnswersAndUnparks: in the real browser the overview answers the question a
// session left and returns a parked task to the queue; strom sees both at once.
func TestAppAnswersAndUnparks(t *testing.T) {
	t.Parallel()
	h := withAgent(t, `#!/bin/sh
strom ask "Which Anna: the one born 1850 or 1852?" >/dev/null
`, "Find the baptism of Anna Novak", "Find Jan Novak's marriage")
	h.must(t, "run", "--max", "1")
	h.must(t, "task", "park", "T-2", "--why", "the register is away")
	url := startApp(t, h)
	ctx := within(t, browser(t))
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`form.answer textarea`))); err != nil {
		t.Fatalf("the overview offers no answer: %v", err)
	}
	// The page replaces its overview when it changes: type and press until the
	// answer lands, as a person would press again.
	state := func(id string) string {
		out := h.must(t, "task", "show", id)
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "state:"); ok {
				return strings.TrimSpace(v)
			}
		}
		return out
	}
	for try := 0; state("T-1") != "open"; try++ {
		if try == 20 {
			t.Fatalf("the answer did not land: T-1 is %s", state("T-1"))
		}
		_ = chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`form.answer textarea`), "the one born 1850"), chromedp.Click(chromedp.CSS(`form.answer button`)))
		_ = chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`body`)))
	}
	if out := h.must(t, "task", "show", "T-1"); !strings.Contains(out, "the one born 1850") {
		t.Errorf("the answer is not in the task:\n%s", out)
	}
	for try := 0; state("T-2") != "open"; try++ {
		if try == 20 {
			t.Fatalf("unpark did not land: T-2 is %s", state("T-2"))
		}
		_ = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`form.unpark button`)), chromedp.Click(chromedp.CSS(`form.unpark button`)))
		_ = chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`body`)))
	}
}
