package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/statefiles"
)

func allowCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom allow")
	list := fs.Bool("list", false, "list what a person allowed on this computer, for every research")
	revoke := fs.Bool("revoke", false, "forget what was allowed for this research (the settings named, or all)")
	asJSON := fs.Bool("json", false, "print JSON (with --list)")
	return &ffcli.Command{
		Name:       "allow",
		ShortUsage: "strom allow [--list [--json] | --revoke [SETTING…]]",
		ShortHelp:  "help.allow.short",
		LongHelp: withHelp(`A research's committed settings (.strom/config.json) can name programs that
strom runs on this computer: check.command, agent.command, an agent profile's
command, an archive's probe. strom run and strom chat start none of them until
a person here allowed that exact value for this research.

strom allow shows each such setting with its value and the commit that last
changed it, and asks once on the terminal; yes records the values (a hash of
each, with the research's root commit and folder) in allowed.json beside the user
config. A value changed later — pulled, edited, written by an agent — needs
allowing again. There is no way to allow without a terminal, and none inside a
session.`, "  0  done, or nothing to allow\n  1  error, not confirmed, or no terminal (the message says what to do)\n  2  bad usage"),
		FlagSet: fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if err := s.personOnly("strom allow"); err != nil {
				return err
			}
			switch {
			case *list && *revoke:
				return usagef("choose one of --list and --revoke")
			case *list:
				if len(args) > 0 {
					return usagef("strom allow --list takes no arguments")
				}
				return s.allowList()
			case *asJSON:
				return usagef("--json goes with --list: strom allow --list --json")
			case *revoke:
				return s.allowRevoke(ctx, args)
			case len(args) > 0:
				return usagef("strom allow takes no arguments: it shows every setting to allow")
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
	rv, err := r.Consent(ctx)
	if err != nil {
		return err
	}
	if len(rv.Values) == 0 {
		fmt.Fprintf(s.stdout, "nothing to allow: no setting in %s starts a program\n", rv.File)
		return nil
	}
	origins, err := r.ConsentOrigins(ctx, rv)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "Settings in %s that start programs on this computer:\n", rv.File)
	for _, v := range rv.Values {
		state := "not allowed"
		if rv.Allowed(v) {
			state = "allowed"
		}
		fmt.Fprintf(s.stdout, "  %s = %s\n", v.Setting, v.Shown())
		fmt.Fprintf(s.stdout, "    %s · %s · %s\n", state, originText(origins[v.Setting]), v.Why)
	}
	if rv.OK() {
		fmt.Fprintln(s.stdout, "all allowed: strom run and strom chat may start them")
		return nil
	}
	if s.terminal() == nil {
		return fmt.Errorf("%w, and there is none here — run strom allow in a terminal; nothing was allowed", consent.ErrNeedsTerminal)
	}
	what, it := "this setting", "it"
	if n := len(rv.NotAllowed); n > 1 {
		what, it = fmt.Sprintf("these %d settings", n), "them"
	}
	if err := s.confirm(fmt.Sprintf("Allow %s for the research in %s on this computer?", what, rv.Research.Path)); err != nil {
		return err
	}
	if err := r.Allow(ctx, rv); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "allowed %s: strom run and strom chat may start %s now\n", what, it)
	return nil
}

func originText(o consent.Origin) string {
	switch {
	case o.Commit != nil:
		c := o.Commit
		short := c.Hash
		if len(short) > 7 {
			short = short[:7]
		}
		return fmt.Sprintf("set by %s %q (%s, %s)", short, c.Subject, c.Author, c.When.Format("2006-01-02"))
	case o.Uncommitted:
		return "not committed: changed in the work tree"
	}
	return "origin unknown"
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
		fmt.Fprintf(s.stdout, "nothing is allowed on this computer (%s)\n", statefiles.AllowedFile(s.getenv).Shown)
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
	gone, err := r.Revoke(ctx, settings)
	if err != nil {
		return err
	}
	if len(gone) == 0 {
		fmt.Fprintln(s.stdout, "nothing was allowed for this research: nothing changed")
		return nil
	}
	for _, e := range gone {
		fmt.Fprintf(s.stdout, "revoked %s\n", e.Setting)
	}
	fmt.Fprintln(s.stdout, "strom run and strom chat refuse these settings until a person runs strom allow again")
	return nil
}
