package main

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/messages"

	"github.com/strom-research/strom/app"
	"github.com/strom-research/strom/harness"
	"github.com/strom-research/strom/statefiles"
)

func appCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom app")
	listen := fs.String("listen", "", "help.app.flag.listen")
	repo := fs.String("repo", "", "help.app.flag.repo")
	open := fs.Bool("open", false, "help.app.flag.open")
	return &ffcli.Command{
		Name:       "app",
		ShortUsage: "strom app [--listen 127.0.0.1:PORT] [--repo DIR] [--open]",
		ShortHelp:  "help.app.short",
		LongHelp:   withHelp("help.app.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom app"); err != nil {
				return err
			}
			if len(args) > 0 {
				return s.usage("usage.app.args", messages.Args{"Word": args[0]})
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
				return badUsage(err)
			}
			srv, err := app.New(l.Addr().String(), o)
			if err != nil {
				l.Close()
				return err
			}
			fmt.Fprintln(s.stdout, "strom app: "+srv.URL())
			fmt.Fprintln(s.stdout, s.msg().Say("app.open_hint"))
			if *open {
				if err := openBrowser(ctx, srv.URL()); err != nil {
					fmt.Fprintln(s.stderr, "strom: "+s.msg().Say("app.no_browser", messages.Args{"Problem": err.Error()}))
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
