package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/messages"
)

// manCommand is strom man (hidden, for make man): the manual page strom(1) in
// roff, made from the help texts every --help prints, in English; with --dir it
// writes strom.1 and a page for each command (strom-run.1, …) into that folder.
func manCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom man")
	dir := fs.String("dir", "", "help.man.flag.dir")
	return &ffcli.Command{
		Name:       "man",
		ShortUsage: "strom man [--dir DIR]",
		ShortHelp:  "help.man.short",
		LongHelp:   withHelp("help.man.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return s.usage("usage.man.args")
			}
			s.printer = messages.For(messages.English)
			pages := manPages(s, commandTree(s, nil))
			if *dir == "" {
				_, err := io.WriteString(s.stdout, pages[0].text)
				return err
			}
			folder := *dir
			if !filepath.IsAbs(folder) {
				folder = filepath.Join(s.cwd(), folder)
			}
			for _, pg := range pages {
				if err := os.WriteFile(filepath.Join(folder, pg.file), []byte(pg.text), 0o644); err != nil {
					return fmt.Errorf("write man page: %w", err)
				}
			}
			return nil
		}),
	}
}

// manPage is one page of the manual: its file name and its roff text.
type manPage struct{ file, text string }

// manPages are strom(1), first, and a page for each command that is not hidden.
func manPages(s *sys, root *ffcli.Command) []manPage {
	var b strings.Builder
	var see []string
	for _, sub := range root.Subcommands {
		if !hiddenCommands[sub.Name] {
			see = append(see, "strom-"+sub.Name+"(1)")
		}
	}
	writeMan(s, &b, root, nil, see)
	pages := []manPage{{"strom.1", b.String()}}
	for _, sub := range root.Subcommands {
		if hiddenCommands[sub.Name] {
			continue
		}
		b.Reset()
		writeMan(s, &b, sub, []string{sub.Name}, []string{"strom(1)"})
		pages = append(pages, manPage{"strom-" + sub.Name + ".1", b.String()})
	}
	return pages
}

// writeMan writes the page of c, called by the words path after strom: NAME,
// SYNOPSIS, DESCRIPTION and OPTIONS from its help, COMMANDS with the help of each
// of its commands, EXIT STATUS and SEE ALSO (the pages see and the help's words).
func writeMan(s *sys, w io.Writer, c *ffcli.Command, path, see []string) {
	p := s.msg()
	name := strings.Join(append([]string{"strom"}, path...), "-")
	words := strings.Join(append([]string{"strom"}, path...), " ")
	long, exits, _ := strings.Cut(c.LongHelp, exitsSep)
	fmt.Fprintf(w, ".\\\" %s(1), written by make man (strom man) from the help texts; do not edit.\n", name)
	fmt.Fprintf(w, ".TH %s 1 \"\" \"strom\" \"User Commands\"\n", roffText(strings.ToUpper(name)))
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", roffText(name), roffText(s.sayHelp(c.ShortHelp)))
	use := s.sayHelp(c.ShortUsage)
	if use == "" {
		use = words
	}
	rest, ok := strings.CutPrefix(use, words)
	if !ok {
		rest = " " + use
	}
	fmt.Fprintf(w, ".SH SYNOPSIS\n\\fB%s\\fR%s\n", roffText(words), roffText(rest))
	fmt.Fprintln(w, ".SH DESCRIPTION")
	manParagraphs(w, s.sayHelp(long))
	if len(flagsOf(c)) > 0 {
		fmt.Fprintln(w, ".SH OPTIONS")
		manFlags(s, w, c)
	}
	if len(c.Subcommands) > 0 {
		fmt.Fprintln(w, ".SH COMMANDS")
		manCommands(s, w, c, path)
	}
	fmt.Fprintln(w, ".SH EXIT STATUS")
	manParagraphs(w, s.sayHelp(exits))
	fmt.Fprintf(w, ".SH SEE ALSO\n%s\n.PP\n%s\n", roffText(strings.Join(see, ", ")), roffText(p.Say("help.man.see_also")))
}

// flagsOf are a command's flags.
func flagsOf(c *ffcli.Command) []*flag.Flag {
	var out []*flag.Flag
	if c.FlagSet != nil {
		c.FlagSet.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	}
	return out
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
