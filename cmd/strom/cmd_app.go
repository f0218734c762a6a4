package main

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/app"
	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/statefiles"
)

func appCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom app")
	listen := fs.String("listen", "", "serve on this loopback address, 127.0.0.1:PORT (default: a free port)")
	repo := fs.String("repo", "", "show only the research repo in this folder")
	open := fs.Bool("open", false, "also open the overview in the browser")
	return &ffcli.Command{
		Name:       "app",
		ShortUsage: "strom app [--listen 127.0.0.1:PORT] [--repo DIR] [--open]",
		ShortHelp:  "help.app.short",
		LongHelp: withHelp(`Serves the research overview on this computer's loopback address and prints
its address, with a secret token, on its first line; it runs until Ctrl-C. The
overview shows every research repo on this computer (strom init and the first strom
command in a research put it on the list), or only the one --repo names: its mode,
the run (the working session with its time left, or Paused and when it resumes),
the queue, the last sessions and the condition's last answers. At a working agent
"Finish and stop" asks the run to finish the session; the run's terminal confirms it.
Only this computer reaches it: from elsewhere, use your own SSH tunnel.`, ""),
		FlagSet: fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom app"); err != nil {
				return err
			}
			if len(args) > 0 {
				return usagef("strom app takes no arguments, not %q: strom app --help shows the options", args[0])
			}
			o := app.Options{Env: s.env(), Lang: harness.Language(s.getenv)}
			if *repo != "" {
				r, err := harness.Open(*repo, s.env())
				if err != nil {
					return err
				}
				roots := []string{r.Tree.Root}
				o.Roots = func() ([]string, error) { return roots, nil }
			} else {
				o.Roots = func() ([]string, error) {
					rs, err := statefiles.LoadResearches(s.getenv)
					if err != nil {
						return nil, err
					}
					var roots []string
					for _, e := range rs.List {
						roots = append(roots, e.Root)
					}
					return roots, nil
				}
				o.Forget = func(root string) { _ = statefiles.ForgetResearch(context.Background(), s.getenv, root) }
			}
			l, err := app.Listen(*listen)
			if err != nil {
				return usageError{msg: err.Error()}
			}
			srv, err := app.New(l.Addr().String(), o)
			if err != nil {
				l.Close()
				return err
			}
			fmt.Fprintln(s.stdout, "strom app: "+srv.URL())
			fmt.Fprintln(s.stdout, "Open it in a browser on this computer; Ctrl-C stops the app.")
			if *open {
				if err := openBrowser(ctx, srv.URL()); err != nil {
					fmt.Fprintf(s.stderr, "strom: could not open a browser (%v): open the address above yourself\n", err)
				}
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				select {
				case <-s.interrupts:
					cancel()
				case <-ctx.Done():
				}
			}()
			return srv.Serve(ctx, l)
		}),
	}
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
