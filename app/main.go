package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/internal/buildinfo"
	"github.com/strom-research/strom/internal/clock"
	"github.com/strom-research/strom/internal/notify/push"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Main is the program strom-app, which strom app runs in its place once it has
// read its flags and found them right: the overview's server on loopback, until
// Ctrl-C, SIGTERM or SIGHUP. It takes strom app's flags (--listen, --repo, --open)
// and says everything as strom does, "strom: " and a sentence on standard error,
// with strom's exit statuses (1 an error, 2 a usage mistake). A strom of another
// build than its own (buildinfo.Current) that ran it is named on standard error,
// since the overview reads each research with strom-app's own code.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	p := messages.For(research.Language(getenv))
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "strom: "+p.Text(err))
		return code
	}
	version := buildinfo.Current().String()
	if caller := buildinfo.OtherCaller(version); caller != "" {
		fmt.Fprintln(stderr, "strom: "+p.Say("face.other_version", messages.Args{"Program": "strom-app", "Version": version, "Strom": caller, "Release": buildinfo.Release(caller)}))
	}
	if len(args) > 0 && args[0] == "push" {
		// strom's call at notify.url: strom's own binary links no HTTP client.
		return pushMain(args[1:], os.Stdin, stderr, p)
	}
	fs := flag.NewFlagSet("strom app", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "", "")
	repo := fs.String("repo", "", "")
	open := fs.Bool("open", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "strom app [--listen 127.0.0.1:PORT] [--repo DIR] [--open]: strom app --help says more")
			return 0
		}
		return fail(2, err)
	}
	if id := getenv("STROM_SESSION"); id != "" {
		return fail(1, errors.New(p.Say("refuse.person_only", messages.Args{"What": "strom app", "Session": id})))
	}
	if fs.NArg() > 0 {
		return fail(2, errors.New(p.Say("usage.app.args", messages.Args{"Word": fs.Arg(0)})))
	}
	env := research.Env{Clock: clock.FromEnv(getenv), Getenv: getenv}
	o := Options{Env: env, Lang: research.Language(getenv)}
	if *repo != "" {
		r, err := research.Open(*repo, env)
		if err != nil {
			return fail(1, err)
		}
		roots := []string{r.Tree.Root}
		o.Roots = func() ([]string, error) { return roots, nil }
	} else {
		o.Roots = func() ([]string, error) {
			rs, err := statefiles.LoadResearches(getenv)
			if err != nil {
				return nil, err
			}
			var roots []string
			for _, e := range rs.List {
				roots = append(roots, e.Root)
			}
			return roots, nil
		}
		o.Forget = func(root string) { _ = statefiles.ForgetResearch(context.Background(), getenv, root) }
	}
	l, err := Listen(*listen)
	if err != nil {
		return fail(2, err)
	}
	srv, err := New(l.Addr().String(), o)
	if err != nil {
		l.Close()
		return fail(1, err)
	}
	fmt.Fprintln(stdout, "strom app: "+srv.URL())
	fmt.Fprintln(stdout, p.Say("app.open_hint"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if *open {
		if err := openBrowser(ctx, srv.URL()); err != nil {
			fmt.Fprintln(stderr, "strom: "+p.Say("app.no_browser", messages.Args{"Problem": err.Error()}))
		}
	}
	if err := srv.Serve(ctx, l); err != nil {
		return fail(1, err)
	}
	return 0
}

// openBrowser hands url to the desktop's opener.
func openBrowser(ctx context.Context, url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.CommandContext(ctx, name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// pushMain is `strom-app push --title TITLE URL`, the note's text on standard input
// (at most 64 KiB): the POST of notify.url, which strom runs. A failure is one line
// on standard error and exit 1.
func pushMain(args []string, stdin io.Reader, stderr io.Writer, p *messages.Printer) int {
	fs := flag.NewFlagSet("strom-app push", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	title := fs.String("title", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "strom: strom-app push takes --title TITLE and one URL, the note's text on standard input")
		return 2
	}
	text, err := io.ReadAll(io.LimitReader(stdin, 64<<10))
	if err != nil {
		fmt.Fprintln(stderr, "strom: "+p.Text(err))
		return 1
	}
	if err := push.Push(context.Background(), nil, fs.Arg(0), *title, string(text)); err != nil {
		fmt.Fprintln(stderr, "strom: "+p.Text(err))
		return 1
	}
	return 0
}
