package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/consent"
	"github.com/strom-research/strom/harness/gates"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

func configCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom config")
	asJSON := fs.Bool("json", false, "help.flag.json")
	var cfg *ffcli.Command
	cfg = &ffcli.Command{
		Name:        "config",
		ShortUsage:  "strom config [get KEY | set KEY VALUE | unset KEY] [--for-tree] [--json]",
		ShortHelp:   "help.config.short",
		LongHelp:    withHelp("help.config.long", ""),
		FlagSet:     fs,
		Subcommands: []*ffcli.Command{configGetCommand(s), configSetCommand(s), configUnsetCommand(s)},
		Exec: func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 0 {
				return s.usage(s.noSuchCommand(cfg, args[0]))
			}
			settings, err := s.settings()
			if err != nil {
				return err
			}
			var all []resolvedJSON
			names := make([]string, 0, len(statefiles.Keys))
			for _, k := range statefiles.Keys {
				names = append(names, k.Name)
			}
			for _, a := range settings.ArchiveNames() {
				names = append(names, statefiles.ArchiveSetting(a))
			}
			for _, name := range names {
				r, err := settings.Resolve(name, "")
				if err != nil {
					return err
				}
				all = append(all, toJSON(r))
			}
			if *asJSON {
				return s.printJSON(all)
			}
			tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
			for _, r := range all {
				v := fmt.Sprint(r.Value)
				if v == "" {
					v = s.say("config.not_set")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Key, v, s.say("config.source."+r.Source))
			}
			return tw.Flush()
		},
	}
	return cfg
}

type resolvedJSON struct {
	Key    string `json:"key"`
	Value  any    `json:"value"` // a number for a whole-number setting, else a string
	Source string `json:"source"`
	Where  string `json:"where"`
}

func toJSON(r statefiles.Resolved) resolvedJSON {
	var v any = r.Value
	if r.Key.Kind == statefiles.KindInt {
		if n, err := strconv.Atoi(r.Value); err == nil {
			v = n
		}
	}
	return resolvedJSON{Key: r.Key.Name, Value: v, Source: string(r.Source), Where: r.Where}
}

// settings reads the user's settings and, inside a research repo, the tree's.
func (s *sys) settings() (statefiles.Settings, error) {
	tree, err := statefiles.Find(s.cwd())
	if err != nil {
		tree = nil // outside a research repo: the user's settings alone
	}
	return statefiles.LoadSettings(s.getenv, tree)
}

func configGetCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom config get")
	asJSON := fs.Bool("json", false, "help.flag.json")
	return &ffcli.Command{
		Name:       "get",
		ShortUsage: "strom config get KEY [--json]",
		ShortHelp:  "help.config.get.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.config.get.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) != 1 {
				return s.usage("usage.config.get")
			}
			settings, err := s.settings()
			if err != nil {
				return err
			}
			r, err := settings.Resolve(args[0], "")
			if err != nil {
				return badUsage(err)
			}
			if *asJSON {
				return s.printJSON(toJSON(r))
			}
			v := r.Value
			if v == "" {
				v = s.say("config.not_set")
			}
			from := s.say("config.from", messages.Args{"Source": s.say("config.source." + string(r.Source)), "Where": r.Where})
			if r.Source == statefiles.FromDefault {
				from = s.say("config.from_default")
			}
			fmt.Fprintf(s.stdout, "%s\t%s\n", v, from)
			return nil
		}),
	}
}

// sayWins says when the value just set does not apply: the environment's
// variable wins over both files, the research's own setting over the computer's.
func (s *sys) sayWins(k statefiles.Key, forTree bool) {
	settings, err := s.settings()
	if err != nil {
		return
	}
	r, err := settings.Resolve(k.Name, "")
	if err != nil {
		return
	}
	switch {
	case r.Source == statefiles.FromEnv:
		fmt.Fprintln(s.stdout, s.msg().Say("config.wins_env", messages.Args{"Key": k.Name, "Env": r.Where, "Value": r.Value}))
	case r.Source == statefiles.FromTree && !forTree:
		fmt.Fprintln(s.stdout, s.msg().Say("config.wins_tree", messages.Args{"Key": k.Name, "File": r.Where, "Value": r.Value}))
	}
}

// settingsFile picks the file a set or unset changes.
func (s *sys) settingsFile(k statefiles.Key, forTree bool) (statefiles.SettingsFile, error) {
	if forTree {
		if k.UserOnly {
			return statefiles.SettingsFile{}, s.usage("usage.config.user_only", messages.Args{"Key": k.Name})
		}
		tree, err := statefiles.Find(s.cwd())
		if err != nil {
			return statefiles.SettingsFile{}, err
		}
		return tree.TreeConfig(), nil
	}
	return statefiles.UserConfig(s.getenv), nil
}

func configSetCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom config set")
	forTree := fs.Bool("for-tree", false, "help.config.set.flag.for-tree")
	return &ffcli.Command{
		Name:       "set",
		ShortUsage: "strom config set KEY VALUE [--for-tree]",
		ShortHelp:  "help.config.set.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.config.set.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom config set"); err != nil {
				return err
			}
			if len(args) != 2 {
				return s.usage("usage.config.set")
			}
			k, err := statefiles.LookupKey(args[0])
			if err != nil {
				return badUsage(err)
			}
			v, err := k.Parse(args[1])
			if err != nil {
				return badUsage(err)
			}
			if err := checkSetting(k, args[1]); err != nil {
				return err
			}
			f, err := s.settingsFile(k, *forTree)
			if err != nil {
				return err
			}
			if k.Person {
				q := s.msg().Say("config.confirm_set", messages.Args{"Key": k.Name, "Quoted": strconv.Quote(args[1]), "Scope": s.scope(*forTree)})
				if c := gates.CapOf(args[1]); k.Name == "run.gate" && c > 0 {
					q += " " + s.msg().Say("config.cap_note", messages.Args{"Cap": c})
				}
				if err := s.confirm(q); err != nil {
					return err
				}
			}
			err = f.Update(ctx, func(c *statefiles.Config) error {
				c.Set(k.Name, v)
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("config.set", messages.Args{"Key": k.Name, "Value": args[1], "File": f.Shown}))
			s.sayWins(k, *forTree)
			if *forTree && consent.Guarded(k.Name) {
				return s.allowSet(ctx, k.Name)
			}
			return nil
		}),
	}
}

// scope names where a setting applies, in the person's words.
func (s *sys) scope(forTree bool) string {
	if forTree {
		return s.msg().Say("config.scope_tree")
	}
	return s.msg().Say("config.scope_computer")
}

func configUnsetCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom config unset")
	forTree := fs.Bool("for-tree", false, "help.config.unset.flag.for-tree")
	return &ffcli.Command{
		Name:       "unset",
		ShortUsage: "strom config unset KEY [--for-tree]",
		ShortHelp:  "help.config.unset.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.config.unset.long", ""),
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if err := s.personOnly("strom config unset"); err != nil {
				return err
			}
			if len(args) != 1 {
				return s.usage("usage.config.unset")
			}
			k, err := statefiles.LookupKey(args[0])
			if err != nil {
				return badUsage(err)
			}
			f, err := s.settingsFile(k, *forTree)
			if err != nil {
				return err
			}
			if k.Person {
				if err := s.confirm(s.msg().Say("config.confirm_unset", messages.Args{"Key": k.Name, "Scope": s.scope(*forTree)})); err != nil {
					return err
				}
			}
			err = f.Update(ctx, func(c *statefiles.Config) error {
				c.Unset(k.Name)
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintln(s.stdout, s.msg().Say("config.unset", messages.Args{"Key": k.Name, "File": f.Shown}))
			return nil
		}),
	}
}

// checkSetting holds the rules of a value beyond its type, such as a gate's words.
// It is a variable so the gate command can extend it.
var checkSetting = checkGateSetting

// confirm asks a person a yes/no question on the terminal. Without a terminal, or
// with any answer but yes, it refuses.
func (s *sys) confirm(question string) error {
	tty := s.terminal()
	if tty == nil {
		// The question up to its "?" names what needs the yes; what follows it
		// explains, and would not read on ("…again. needs a person's yes").
		what, _, _ := strings.Cut(question, "?")
		return errors.New(s.msg().Say("confirm.needs_terminal", messages.Args{"Question": strings.TrimSpace(what)}))
	}
	if s.yes(tty, question) {
		return nil
	}
	return exitErr{code: exitError, err: errors.New(s.msg().Say("confirm.refused"))}
}

// allowSet allows a tree setting that starts a program which a person just set on a
// terminal; without one it says how the value gets allowed. A value that needs no
// allowing (the person's own, or one allowed before) says nothing.
func (s *sys) allowSet(ctx context.Context, name string) error {
	r, err := s.research()
	if err != nil {
		return err
	}
	if s.terminal() == nil {
		rv, err := allow.Consent(ctx, r)
		if err != nil {
			return err
		}
		for _, v := range rv.NotAllowed {
			if v.Setting == name {
				fmt.Fprintln(s.stdout, s.msg().Say("config.needs_allow", messages.Args{"Key": name}))
			}
		}
		return nil
	}
	allowed, err := allow.AllowSetting(ctx, r, name)
	if err != nil || !allowed {
		return err
	}
	fmt.Fprintln(s.stdout, s.msg().Say("config.allowed", messages.Args{"Key": name}))
	return nil
}
