package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// completionShells are the shells strom completion writes a script for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// completionCommand is strom completion SHELL: the shell's completion script,
// generated from the command tree, so it names every command and flag there is.
func completionCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom completion")
	return &ffcli.Command{
		Name:       "completion",
		ShortUsage: "strom completion bash|zsh|fish|powershell",
		ShortHelp:  "help.completion.short",
		LongHelp:   withHelp("help.completion.long", ""),
		FlagSet:    fs,
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return s.usage("usage.completion.none")
			}
			if len(args) != 1 || !slices.Contains(completionShells, args[0]) {
				return s.usage("usage.completion.shell", messages.Args{"Word": termsafe.Excerpt(strings.Join(args, " "))})
			}
			// Every command, not only this one: the script covers the whole tree.
			nodes := helpNodes(completionNodes(s, commandTree(s, nil), nil))
			switch args[0] {
			case "bash":
				writeBash(s.stdout, nodes)
			case "zsh":
				writeZsh(s.stdout, nodes)
			case "fish":
				writeFish(s.stdout, nodes)
			case "powershell":
				writePowerShell(s.stdout, nodes)
			}
			return nil
		}),
	}
}

// compNode is one command as a completion script knows it: the words that call
// it, its commands with their short help, the words it takes as arguments, and its
// flags.
type compNode struct {
	path  string // "session log"; "" is strom itself
	subs  []compWord
	args  []compWord
	flags []compFlag
}

// completionArgs are the words a command takes as its arguments, where they are a
// fixed few.
var completionArgs = map[string][]string{"completion": completionShells}

type compWord struct{ name, help string }

type compFlag struct {
	name, help string
	value      bool // takes a value
}

// completionNodes walks the tree: every command that is not hidden, with the
// short help of its commands and the usage of its flags in the person's language.
func completionNodes(s *sys, c *ffcli.Command, path []string) []compNode {
	n := compNode{path: strings.Join(path, " ")}
	for _, a := range completionArgs[n.path] {
		n.args = append(n.args, compWord{name: a})
	}
	var below []compNode
	for _, sub := range c.Subcommands {
		if hiddenCommands[sub.Name] {
			continue
		}
		n.subs = append(n.subs, compWord{sub.Name, oneLine(s.sayHelp(sub.ShortHelp))})
		below = append(below, completionNodes(s, sub, append(slices.Clip(path), sub.Name))...)
	}
	if c.FlagSet != nil {
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			said := *f
			said.Usage = s.sayHelp(f.Usage)
			n.flags = append(n.flags, compFlag{f.Name, oneLine(usageText(&said)), !isSwitch(f)})
		})
	}
	return append([]compNode{n}, below...)
}

// helpNodes adds strom help's words to the tree: after strom help come the
// commands, as after strom, and after strom help session the session commands.
func helpNodes(nodes []compNode) []compNode {
	var out []compNode
	for _, n := range nodes {
		if n.path == "help" {
			continue
		}
		out = append(out, n)
	}
	for _, n := range nodes {
		if n.path == "help" || len(n.subs) == 0 {
			continue
		}
		path := "help"
		if n.path != "" {
			path += " " + n.path
		}
		out = append(out, compNode{path: path, subs: n.subs})
	}
	return out
}

// words are the node's commands, arguments and flags as typed.
func (n compNode) words() []string {
	var out []string
	for _, w := range slices.Concat(n.subs, n.args) {
		out = append(out, w.name)
	}
	for _, f := range n.flags {
		out = append(out, flagForm(f.name))
	}
	return out
}

// valued are the node's flags that take a value, as typed, each between spaces
// (" --agent --task "): the word after one is its value.
func (n compNode) valued() string {
	out := " "
	for _, f := range n.flags {
		if f.value {
			out += flagForm(f.name) + " "
		}
	}
	return out
}

// child is the path of a node's command called name.
func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + " " + name
}

// edges are "parent/child" for every command: how a script walks the words typed.
func edges(nodes []compNode) []string {
	var out []string
	for _, n := range nodes {
		for _, w := range n.subs {
			out = append(out, n.path+"/"+w.name)
		}
	}
	return out
}

// single quotes a word for sh, zsh and fish alike ('it'\”s').
func single(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeBash(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `# bash completion for strom, written by strom completion bash.
_strom() {
	local cur=${COMP_WORDS[COMP_CWORD]} path= word i
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		# Words after -- are the agent's.
		[[ $word == -- ]] && return 0
		case "$path/$word" in
`)
	var pats []string
	for _, e := range edges(nodes) {
		pats = append(pats, single(e))
	}
	fmt.Fprintf(w, "\t\t%s)\n\t\t\tpath=${path:+$path }$word ;;\n\t\tesac\n\tdone\n\tlocal words valued\n\tcase $path in\n", strings.Join(pats, "|"))
	for _, n := range nodes {
		fmt.Fprintf(w, "\t%s) words=%s; valued=%s ;;\n", single(n.path), single(strings.Join(n.words(), " ")), single(n.valued()))
	}
	fmt.Fprint(w, `	esac
	# The word after a flag that takes a value is that value: the shell's own
	# completion (-o default) offers files.
	(( COMP_CWORD > 1 )) && [[ $valued == *" ${COMP_WORDS[COMP_CWORD-1]} "* ]] && return 0
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _strom strom
`)
}

// zshDescribe escapes a word for _describe, where a colon divides the word
// from its description.
func zshDescribe(name, help string) string {
	if help == "" {
		return single(strings.ReplaceAll(name, ":", `\:`))
	}
	return single(strings.ReplaceAll(name, ":", `\:`) + ":" + help)
}

func writeZsh(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `#compdef strom
# zsh completion for strom, written by strom completion zsh.
_strom() {
	local cpath= word i
	for ((i = 2; i < CURRENT; i++)); do
		word=${words[i]}
		# Words after -- are the agent's.
		[[ $word == -- ]] && return 0
		case "$cpath/$word" in
`)
	var pats []string
	for _, e := range edges(nodes) {
		pats = append(pats, single(e))
	}
	fmt.Fprintf(w, "\t\t(%s)\n\t\t\tcpath=${cpath:+$cpath }$word ;;\n\t\tesac\n\tdone\n\tlocal -a cmds flags\n\tlocal valued\n\tcase $cpath in\n", strings.Join(pats, "|"))
	for _, n := range nodes {
		var cmds, flags []string
		for _, s := range slices.Concat(n.subs, n.args) {
			cmds = append(cmds, zshDescribe(s.name, s.help))
		}
		for _, f := range n.flags {
			flags = append(flags, zshDescribe(flagForm(f.name), f.help))
		}
		fmt.Fprintf(w, "\t(%s) cmds=(%s); flags=(%s); valued=%s ;;\n", single(n.path), strings.Join(cmds, " "), strings.Join(flags, " "), single(n.valued()))
	}
	fmt.Fprint(w, `	esac
	# The word after a flag that takes a value is that value.
	if (( CURRENT > 2 )) && [[ $valued == *" ${words[CURRENT-1]} "* ]]; then
		_files
	elif [[ $PREFIX == -* ]]; then
		_describe -t flags 'strom flag' flags
	elif (( $#cmds )); then
		_describe -t commands 'strom command' cmds
	else
		_files
	fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_strom "$@"
else
	compdef _strom strom
fi
`)
}

func writeFish(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `# fish completion for strom, written by strom completion fish.
function __strom_path
	set -l path ''
	for word in (commandline -opc)[2..-1]
		# Words after -- are the agent's.
		if test "$word" = --
			echo --
			return
		end
		switch "$path/$word"
			case `)
	var pats []string
	for _, e := range edges(nodes) {
		pats = append(pats, single(e))
	}
	fmt.Fprintf(w, "%s\n", strings.Join(pats, " "))
	fmt.Fprint(w, `				set path (string trim -- "$path $word")
		end
	end
	echo $path
end
function __strom_at
	set -l path (__strom_path)
	test "$path" = "$argv[1]"
end
complete -c strom -f
`)
	for _, n := range nodes {
		cond := single("__strom_at " + single(n.path))
		for _, s := range n.subs {
			fmt.Fprintf(w, "complete -c strom -n %s -a %s -d %s\n", cond, single(s.name), single(s.help))
		}
		for _, a := range n.args {
			fmt.Fprintf(w, "complete -c strom -n %s -a %s\n", cond, single(a.name))
		}
		for _, f := range n.flags {
			opt := "-l"
			if len(f.name) == 1 {
				opt = "-s"
			}
			req := ""
			if f.value {
				req = " -r"
			}
			fmt.Fprintf(w, "complete -c strom -n %s %s %s%s -d %s\n", cond, opt, single(f.name), req, single(f.help))
		}
	}
}

// psQuote quotes a word for PowerShell: in single quotes a quote is doubled.
func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func writePowerShell(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `# PowerShell completion for strom, written by strom completion powershell.
Register-ArgumentCompleter -Native -CommandName strom -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	$tree = @{
`)
	for _, n := range nodes {
		var items []string
		for _, s := range slices.Concat(n.subs, n.args) {
			items = append(items, fmt.Sprintf("@{n = %s; h = %s}", psQuote(s.name), psQuote(s.help)))
		}
		for _, f := range n.flags {
			items = append(items, fmt.Sprintf("@{n = %s; h = %s}", psQuote(flagForm(f.name)), psQuote(f.help)))
		}
		fmt.Fprintf(w, "\t\t%s = @(%s)\n", psQuote(n.path), strings.Join(items, "; "))
	}
	fmt.Fprint(w, "\t}\n\t$valued = @{\n")
	for _, n := range nodes {
		fmt.Fprintf(w, "\t\t%s = %s\n", psQuote(n.path), psQuote(n.valued()))
	}
	fmt.Fprint(w, `	}
	$path = ''
	$prev = ''
	foreach ($element in ($commandAst.CommandElements | Select-Object -Skip 1)) {
		if ($element.Extent.EndOffset -ge $cursorPosition) { break }
		$word = $element.ToString()
		# Words after -- are the agent's.
		if ($word -eq '--') { return }
		$next = if ($path) { "$path $word" } else { $word }
		if ($tree.ContainsKey($next)) { $path = $next }
		$prev = $word
	}
	# The word after a flag that takes a value is that value.
	if ($prev -and $valued[$path].Contains(" $prev ")) { return }
	foreach ($item in $tree[$path]) {
		if ($item.n -like "$wordToComplete*") {
			$tip = if ($item.h) { $item.h } else { $item.n }
			[System.Management.Automation.CompletionResult]::new($item.n, $item.n, 'ParameterValue', $tip)
		}
	}
}
`)
}
