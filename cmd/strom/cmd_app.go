package main

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// appCommand is strom app: once its flags are read and found right, the program
// strom-app serves the overview in strom's place (face.go).
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
				return s.usage("usage.app.args", messages.Args{"Word": termsafe.Excerpt(args[0])})
			}
			var words []string
			if *listen != "" {
				words = append(words, "--listen", *listen)
			}
			if *repo != "" {
				words = append(words, "--repo", *repo)
			}
			if *open {
				words = append(words, "--open")
			}
			return s.execFace("strom-app", words)
		}),
	}
}
