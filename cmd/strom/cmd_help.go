package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// helpCommand is strom help [command [subcommand]]: the help strom command
// --help prints, named by words instead of a flag.
func helpCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom help")
	return &ffcli.Command{
		Name:       "help",
		ShortUsage: "strom help [command [subcommand]]",
		ShortHelp:  "help.help.short",
		LongHelp:   withHelp("help.help.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			c := rootCommand(s, args)
			for _, w := range args {
				sub := subcommand(c, w)
				if sub == nil {
					return s.usage(s.noSuchCommand(c, w))
				}
				c = sub
			}
			fmt.Fprint(s.stdout, s.usageOf(c))
			return nil
		}),
	}
}

// subcommand is c's command called name, nil when it has none.
func subcommand(c *ffcli.Command, name string) *ffcli.Command {
	for _, sub := range c.Subcommands {
		if sub.Name == name {
			return sub
		}
	}
	return nil
}

// noSuchCommand is the message id and values for a word that is none of c's
// commands, with the command it most likely meant when one is close.
func (s *sys) noSuchCommand(c *ffcli.Command, word string) (string, messages.Args) {
	var names []string
	for _, sub := range c.Subcommands {
		if !hiddenCommands[sub.Name] {
			names = append(names, sub.Name)
		}
	}
	like := closest(word, names)
	if c.Name == "strom" {
		args := messages.Args{"Command": termsafe.Excerpt(word)}
		if like != "" {
			args["Like"] = like
			return "usage.root.unknown_like", args
		}
		return "usage.root.unknown", args
	}
	name := commandName(c)
	args := messages.Args{"Command": name, "Word": termsafe.Excerpt(word), "Commands": strings.Join(names, ", ")}
	if like != "" {
		args["Like"] = like
		return "usage.group.no_such_like", args
	}
	return "usage.group.no_such", args
}

// commandName is the words that call c (strom session), as its flag set is named.
func commandName(c *ffcli.Command) string {
	if c.FlagSet != nil {
		return c.FlagSet.Name()
	}
	return c.Name
}

// closest is the name a mistyped word most likely meant: the one within two
// edits (a swap of neighbours is one) and nearer than every other, or the only
// one the word begins. "" when none is that close.
func closest(word string, names []string) string {
	w := strings.ToLower(word)
	if w == "" || len(w) > 64 {
		return ""
	}
	best, bestD, tie := "", 3, false
	for _, n := range names {
		d := editDistance(w, n)
		switch {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD:
			tie = true
		}
	}
	// A distance as long as the word is any other word of that length.
	if best != "" && !tie && bestD < len([]rune(w)) {
		return best
	}
	var prefixed []string
	for _, n := range names {
		if len(w) >= 2 && strings.HasPrefix(n, w) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// neighbouring letters that make a into b (optimal string alignment).
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
