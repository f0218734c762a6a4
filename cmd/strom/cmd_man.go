package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/messages"
)

// manCommand is strom man (hidden, for make man): the manual page strom(1) in
// roff, made from the help texts every --help prints, in English.
func manCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom man")
	return &ffcli.Command{
		Name:       "man",
		ShortUsage: "strom man > man/strom.1",
		ShortHelp:  "help.man.short",
		LongHelp:   withHelp("help.man.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return s.usage("usage.man.args")
			}
			s.printer = messages.For(messages.English)
			writeMan(s, s.stdout, commandTree(s, nil))
			return nil
		}),
	}
}

// writeMan writes strom(1): NAME, SYNOPSIS, DESCRIPTION and OPTIONS from strom's
// own help, COMMANDS with every command's help, EXIT STATUS and SEE ALSO.
func writeMan(s *sys, w io.Writer, root *ffcli.Command) {
	p := s.msg()
	long, exits, _ := strings.Cut(root.LongHelp, exitsSep)
	fmt.Fprintln(w, `.\" strom(1), written by make man (strom man) from the help texts; do not edit.`)
	fmt.Fprintln(w, `.TH STROM 1 "" "strom" "User Commands"`)
	fmt.Fprintf(w, ".SH NAME\nstrom \\- %s\n", roffText(s.sayHelp(root.ShortHelp)))
	fmt.Fprintf(w, ".SH SYNOPSIS\n\\fBstrom\\fR %s\n", roffText(strings.TrimPrefix(root.ShortUsage, "strom ")))
	fmt.Fprintln(w, ".SH DESCRIPTION")
	manParagraphs(w, s.sayHelp(long))
	fmt.Fprintln(w, ".SH OPTIONS")
	manFlags(s, w, root)
	fmt.Fprintln(w, ".SH COMMANDS")
	manCommands(s, w, root, nil)
	fmt.Fprintln(w, ".SH EXIT STATUS")
	manParagraphs(w, s.sayHelp(exits))
	fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", roffText(p.Say("help.man.see_also")))
}

// manCommands writes the help of c's commands and theirs, in the order of the help.
func manCommands(s *sys, w io.Writer, c *ffcli.Command, path []string) {
	for _, sub := range c.Subcommands {
		if hiddenCommands[sub.Name] {
			continue
		}
		words := append(append([]string{"strom"}, path...), sub.Name)
		fmt.Fprintf(w, ".SS \"%s\"\n%s\n", roffText(strings.Join(words, " ")), roffText(s.sayHelp(sub.ShortHelp)))
		use := sub.ShortUsage
		if use == "" {
			use = strings.Join(words, " ")
		}
		fmt.Fprintf(w, ".PP\n%s\n", `\fB`+roffText(use)+`\fR`)
		long, exits, found := strings.Cut(sub.LongHelp, exitsSep)
		if long != "" {
			manParagraphs(w, s.sayHelp(long))
		}
		manFlags(s, w, sub)
		if found && exits != "help.exits" {
			fmt.Fprintf(w, ".PP\n%s\n", roffText(s.msg().Say("help.heading.exits")))
			manParagraphs(w, s.sayHelp(exits))
		}
		manCommands(s, w, sub, append(path, sub.Name))
	}
}

// manFlags writes a command's flags as the help shows them, one tagged paragraph each.
func manFlags(s *sys, w io.Writer, c *ffcli.Command) {
	if c.FlagSet == nil {
		return
	}
	c.FlagSet.VisitAll(func(f *flag.Flag) {
		said := *f
		said.Usage = s.sayHelp(f.Usage)
		text := usageText(&said)
		if d := flagDefault(f); d != "" {
			text += " " + s.msg().Say("help.flag.default", messages.Args{"Value": d})
		}
		fmt.Fprintf(w, ".TP\n%s\n%s\n", `\fB`+roffText(flagForm(f.Name)+flagArg(c.ShortUsage, &said))+`\fR`, roffLine(text))
	})
}

// manParagraphs writes a help text: paragraphs of prose filled by the pager,
// indented lines (examples, tables) as they stand.
func manParagraphs(w io.Writer, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(strings.Trim(para, "\n"), "\n")
		fmt.Fprintln(w, ".PP")
		prose := true
		for _, l := range lines {
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				prose = false
			}
		}
		if prose {
			for _, l := range lines {
				fmt.Fprintln(w, roffLine(strings.TrimSpace(l)))
			}
			continue
		}
		fmt.Fprintln(w, ".nf")
		for _, l := range lines {
			fmt.Fprintln(w, roffLine(l))
		}
		fmt.Fprintln(w, ".fi")
	}
}

// roffText escapes text for roff: backslashes as \e, hyphens as \- (flags print
// as the minus a shell needs), and characters outside ASCII as \[uXXXX].
func roffText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e:
			// Outside ASCII as a named code point: every roff reads it so,
			// whatever encoding it assumes of the file.
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffLine is a line of text that roff does not take for a request: a line
// that begins with a dot or a quote gets a zero-width \& first.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
