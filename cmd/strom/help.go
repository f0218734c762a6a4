package main

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/messages"
)

// The help of a command is said in the person's language when it is printed, not
// when the command tree is built: every strom command builds its flag sets, and
// only one that prints its help reads the help catalog (messages/catalog/cli/). A
// command's ShortHelp and LongHelp and each flag's usage hold message ids —
// help.log.short, help.log.long, help.log.flag.n, help.flag.json for a flag many
// commands share — and withHelp adds the EXIT STATUS table's id (help.exits unless
// the command has its own). A text that is no id is printed as it is.
//
// A help text with placeholders gets its values through s.helpWith when the
// command is built; they are filled in only when the help is printed.

// exitsSep divides a LongHelp from its EXIT STATUS table (see withHelp).
const exitsSep = "\n\nEXIT STATUS\n"

// withHelp joins a command's long help and its EXIT STATUS table, both message ids;
// exits "" is help.exits (0 done, 1 error, 2 bad usage).
func withHelp(long, exits string) string {
	if exits == "" {
		exits = "help.exits"
	}
	return strings.TrimSpace(long) + exitsSep + exits
}

// helpID reports whether a help text is a message id rather than the text itself.
func helpID(text string) bool {
	return strings.HasPrefix(text, "help.") && !strings.ContainsAny(text, " \n")
}

// helpWith gives the help text id the values of its placeholders and returns id.
func (s *sys) helpWith(id string, args messages.Args) string {
	if s.helpArgs == nil {
		s.helpArgs = map[string]messages.Args{}
	}
	s.helpArgs[id] = args
	return id
}

// sayHelp is a help text in the person's language.
func (s *sys) sayHelp(text string) string {
	if !helpID(text) {
		return text
	}
	return s.msg().Say(text, s.helpArgs[text])
}

// usage is a usage error (exit status 2) said in the person's language.
func (s *sys) usage(id string, args ...messages.Args) error {
	return usageError{msg: s.msg().Say(id, args...)}
}

// setUsage gives every command the help of usageOf.
func (s *sys) setUsage(c *ffcli.Command) {
	c.UsageFunc = s.usageOf
	for _, sub := range c.Subcommands {
		s.setUsage(sub)
	}
}

// usageOf is a command's help as --help prints it: what it does, how it is called,
// the long help, its commands, its flags and its exit statuses, in the person's
// language. The layout is ffcli's: DESCRIPTION, USAGE, SUBCOMMANDS, FLAGS, with
// EXIT STATUS after the flags.
func (s *sys) usageOf(c *ffcli.Command) string {
	p := s.msg()
	var b strings.Builder
	if c.ShortHelp != "" {
		fmt.Fprintf(&b, "%s\n  %s\n\n", p.Say("help.heading.about"), s.sayHelp(c.ShortHelp))
	}
	use := s.sayHelp(c.ShortUsage)
	if use == "" {
		use = c.Name
	}
	fmt.Fprintf(&b, "%s\n  %s\n\n", p.Say("help.heading.usage"), use)
	long, exits, found := strings.Cut(c.LongHelp, exitsSep)
	if long != "" {
		fmt.Fprintf(&b, "%s\n\n", fill(strings.TrimSpace(s.sayHelp(long)), helpWidth))
	}
	if len(c.Subcommands) > 0 {
		fmt.Fprintf(&b, "%s\n", p.Say("help.heading.commands"))
		tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
		for _, sub := range c.Subcommands {
			if hiddenCommands[sub.Name] {
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\n", sub.Name, s.sayHelp(sub.ShortHelp))
		}
		tw.Flush()
		b.WriteString("\n")
	}
	if c.FlagSet != nil {
		n := 0
		c.FlagSet.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(&b, "%s\n", p.Say("help.heading.flags"))
			tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
			c.FlagSet.VisitAll(func(f *flag.Flag) {
				said := *f
				said.Usage = s.sayHelp(f.Usage)
				text := usageText(&said)
				if d := flagDefault(f); d != "" {
					text += " " + p.Say("help.flag.default", messages.Args{"Value": d})
				}
				fmt.Fprintf(tw, "  %s%s\t%s\n", flagForm(f.Name), flagArg(c.ShortUsage, &said), text)
			})
			tw.Flush()
			b.WriteString("\n")
		}
	}
	out := strings.TrimSpace(b.String()) + "\n"
	if found {
		out = strings.TrimRight(out, "\n") + "\n\n" + p.Say("help.heading.exits") + "\n" + strings.TrimRight(s.sayHelp(exits), "\n") + "\n"
	}
	return out
}

// flagForm is a flag as a person types it: --name, and -n for a one-letter name.
func flagForm(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagArg is what follows a flag's name in the help: nothing for a switch, else
// the word the command's usage line gives its value (--agent NAME, --until HH:MM),
// the back-quoted name in its usage, or a word for its kind (N for a number).
func flagArg(usage string, f *flag.Flag) string {
	if isSwitch(f) {
		return ""
	}
	if w := usageWord(usage, f.Name); w != "" {
		return " " + w
	}
	if name, _ := flag.UnquoteUsage(f); name != "" && name != "value" && name != "string" && name != "int" {
		return " " + name
	}
	switch valueKind(f.Value) {
	case "usage.kind.whole", "usage.kind.number":
		return " N"
	case "usage.kind.duration":
		return " DURATION"
	}
	return " TEXT"
}

// isSwitch reports a flag that takes no value (--json).
func isSwitch(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// usageWord is the word that follows --name (or -name, --name=) in a usage line:
// the value's name as the usage line writes it, "" when the line has none.
func usageWord(usage, name string) string {
	for _, form := range []string{"--" + name, "-" + name} {
		rest := usage
		for {
			i := strings.Index(rest, form)
			if i < 0 {
				break
			}
			before, after := rest[:i], rest[i+len(form):]
			rest = after
			if before != "" && !strings.ContainsAny(before[len(before)-1:], " [|") {
				continue
			}
			if !strings.HasPrefix(after, " ") && !strings.HasPrefix(after, "=") {
				continue
			}
			after = after[1:]
			if strings.HasPrefix(after, `"`) {
				if end := strings.Index(after[1:], `"`); end >= 0 {
					return after[:end+2]
				}
			}
			w, _, _ := strings.Cut(after, " ")
			// A ] closes the usage's brackets unless the word opened it (ARCHIVE[,ARCHIVE]).
			for strings.HasSuffix(w, "]") && strings.Count(w, "[") < strings.Count(w, "]") {
				w = w[:len(w)-1]
			}
			if w == "" || strings.HasPrefix(w, "-") || w == "|" || strings.HasPrefix(w, "[") {
				return ""
			}
			return w
		}
	}
	return ""
}

// flagDefault is a flag's default as a person needs to know it: "" when the flag
// not given means nothing in particular (off, empty, 0, or below 0, which stands
// for "not given" in a flag that counts from 0).
func flagDefault(f *flag.Flag) string {
	if isSwitch(f) {
		return ""
	}
	switch d := f.DefValue; {
	case d == "", d == "0", d == "[]", strings.HasPrefix(d, "-"):
		return ""
	default:
		return d
	}
}

// usageText is a flag's usage without the back quotes that name its value.
func usageText(f *flag.Flag) string {
	_, u := flag.UnquoteUsage(f)
	return u
}

// helpWidth is the width a help's prose is filled to.
const helpWidth = 80

// fill fills each paragraph of text (blank lines divide them) to width columns,
// breaking only at spaces: a flag or a path is never cut. A line that starts with
// a space (an example, a table) is kept as it is. (Not ansi.Wordwrap: it breaks
// at every hyphen, and so inside --for-tree.)
func fill(text string, width int) string {
	var out []string
	var words []string
	flush := func() {
		line := ""
		for _, w := range words {
			switch {
			case line == "":
				line = w
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width:
				out = append(out, line)
				line = w
			default:
				line += " " + w
			}
		}
		if line != "" {
			out = append(out, line)
		}
		words = nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			flush()
			out = append(out, line)
			continue
		}
		words = append(words, strings.Fields(line)...)
	}
	flush()
	return strings.Join(out, "\n")
}
