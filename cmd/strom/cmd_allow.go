package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

func allowCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom allow")
	list := fs.Bool("list", false, "help.allow.flag.list")
	revoke := fs.Bool("revoke", false, "help.allow.flag.revoke")
	asJSON := fs.Bool("json", false, "help.allow.flag.json")
	return &ffcli.Command{
		Name:       "allow",
		ShortUsage: "strom allow [--list [--json] | --revoke [SETTING…]]",
		ShortHelp:  "help.allow.short",
		LongHelp:   withHelp("help.allow.long", "help.allow.exits"),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if err := s.personOnly("strom allow"); err != nil {
				return err
			}
			switch {
			case *list && *revoke:
				return s.usage("usage.allow.list_or_revoke")
			case *list:
				if len(args) > 0 {
					return s.usage("usage.allow.list")
				}
				return s.allowList()
			case *asJSON:
				return s.usage("usage.allow.json")
			case *revoke:
				return s.allowRevoke(ctx, args)
			case len(args) > 0:
				return s.usage("usage.allow.args")
			}
			return s.allow(ctx)
		}),
	}
}

// allow shows the tree settings that start programs and, on a terminal, asks to
// allow those not yet allowed.
func (s *sys) allow(ctx context.Context) error {
	r, err := s.research()
	if err != nil {
		return err
	}
	rv, err := allow.Consent(ctx, r)
	if err != nil {
		return err
	}
	if len(rv.Values) == 0 {
		fmt.Fprintln(s.stdout, s.say("allow.nothing", messages.Args{"File": rv.File}))
		return nil
	}
	origins, err := allow.ConsentOrigins(ctx, r, rv)
	if err != nil {
		return err
	}
	// The settings first, then the agent's own files, each under its heading.
	heading := ""
	for _, v := range rv.Values {
		h := s.say("allow.heading", messages.Args{"File": rv.File})
		if v.File != "" {
			h = s.say("allow.files_heading", messages.Args{"Agent": consent.AgentName(v.Program)})
		}
		if h != heading {
			fmt.Fprintln(s.stdout, h)
			heading = h
		}
		state := s.say("allow.state_not_allowed")
		if rv.Allowed(v) {
			state = s.say("allow.state_allowed")
		}
		fmt.Fprintf(s.stdout, "  %s = %s\n", termsafe.Line(v.Setting), v.Shown())
		fmt.Fprintf(s.stdout, "    %s · %s · %s\n", state, s.originText(origins[v.Setting]), s.say(v.WhyID()))
	}
	if rv.OK() {
		fmt.Fprintln(s.stdout, s.say("allow.all"))
		return nil
	}
	if s.terminal() == nil {
		return messages.Errorf(consent.ErrNeedsTerminal, "allow.no_terminal", nil)
	}
	n := len(rv.NotAllowed)
	if err := s.confirm(s.say("allow.ask", messages.Args{"Count": n, "Path": rv.Research.Path})); err != nil {
		return err
	}
	if err := allow.Allow(ctx, r, rv); err != nil {
		return err
	}
	fmt.Fprintln(s.stdout, s.say("allow.done", messages.Args{"Count": n}))
	return nil
}

func (s *sys) originText(o consent.Origin) string {
	switch {
	case o.Commit != nil:
		c := o.Commit
		short := c.Hash
		if len(short) > 7 {
			short = short[:7]
		}
		return s.say("allow.origin_commit", messages.Args{"Commit": short, "Subject": c.Subject, "Author": c.Author, "Date": c.When.Format("2006-01-02")})
	case o.Uncommitted:
		return s.say("allow.origin_uncommitted")
	}
	return s.say("allow.origin_unknown")
}

type allowedJSON struct {
	Root    string `json:"root"`
	Path    string `json:"path"`
	Setting string `json:"setting"`
	SHA256  string `json:"sha256"`
	At      string `json:"at"`
}

// allowList lists every value allowed on this computer.
func (s *sys) allowList() error {
	a, err := consent.NewStore(s.getenv).Load()
	if err != nil {
		return err
	}
	out := []allowedJSON{}
	for _, e := range a.Entries {
		out = append(out, allowedJSON{Root: e.Root, Path: e.Path, Setting: e.Setting, SHA256: e.SHA256, At: e.At.Format("2006-01-02T15:04:05Z07:00")})
	}
	if s.json {
		return s.printJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(s.stdout, s.say("allow.none_here", messages.Args{"File": statefiles.AllowedFile(s.getenv).Shown}))
		return nil
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	for _, e := range out {
		fmt.Fprintf(tw, "%s\t%s\tsha256 %s\troot %s\t%s\n", e.Path, e.Setting, e.SHA256[:12], e.Root[:7], e.At)
	}
	return tw.Flush()
}

// allowRevoke forgets what was allowed for this research.
func (s *sys) allowRevoke(ctx context.Context, settings []string) error {
	r, err := s.research()
	if err != nil {
		return err
	}
	gone, err := allow.Revoke(ctx, r, settings)
	if err != nil {
		return err
	}
	if len(gone) == 0 {
		fmt.Fprintln(s.stdout, s.say("allow.revoke_nothing"))
		return nil
	}
	for _, e := range gone {
		fmt.Fprintln(s.stdout, s.say("allow.revoked", messages.Args{"Setting": e.Setting}))
	}
	fmt.Fprintln(s.stdout, s.say("allow.revoked_after"))
	return nil
}
