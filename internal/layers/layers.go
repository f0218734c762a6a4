// Package layers holds the layering of strom's packages that AGENTS.md draws, as
// a table a test checks against the import graph `go list -deps` reports: every
// package of the module has a rule, and each of its imports from the module is
// one its rule allows. An import against the table, or a package no rule names,
// fails `make test` and `make lint`.
package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Rule says which packages of the module a package may import. Patterns are paths
// inside the module: "harness" is that package alone, "harness/..." every package
// below it (not harness itself).
type Rule struct {
	Pkg string   // the importing packages, a pattern
	May []string // the packages they may import, patterns
	Why string   // the line of AGENTS.md the rule stands for
}

// The groups of patterns the rules share.
var (
	leaves = []string{"internal/..."}
	rooms  = []string{"harness/..."}
	below  = []string{"statefiles", "schemas", "agentpty", "hooks", "messages"}
	// tools are the rooms below every other: git, the remote, the merge drivers,
	// consent, the words of limits and ends, the usage pacing and the archives'
	// probes. Each imports at most gitrepo and limits among them.
	tools = []string{
		"harness/gitrepo", "harness/limits", "harness/ends", "harness/remote", "harness/consent",
		"harness/merge", "harness/archives", "harness/gates/claudeusage",
	}
	harness = join([]string{"harness"}, rooms, below, leaves)
)

// line is the rooms of harness from the top down, as AGENTS.md draws them: each
// may import the rooms after it and the tools, never one before it.
var line = []string{
	"harness/views", "harness/session", "harness/queue", "harness/mode", "harness/allow",
	"harness/agents", "harness/runfiles", "harness/research",
}

// under is what the room at line[i] may import: the rooms after it, the tools, and
// the layers below harness.
func under(i int) []string { return join(line[i+1:], tools, below, leaves) }

// Rules is strom's layering. The first rule whose Pkg matches a package applies.
var Rules = []Rule{
	{Pkg: "cmd/strom-app", May: join([]string{"app"}, leaves), Why: "a face is a program of its own"},
	{Pkg: "cmd/strom-menu", May: join([]string{"menu"}, leaves), Why: "a face is a program of its own"},
	{Pkg: "cmd/strom", May: harness, Why: "cmd/strom → harness → (statefiles → schemas), agentpty, hooks"},
	{Pkg: "app", May: join([]string{"harness"}, rooms, []string{"messages"}, leaves), Why: "the faces call harness only"},
	{Pkg: "menu", May: join([]string{"harness"}, rooms, []string{"messages"}, leaves), Why: "the faces call harness only"},
	{Pkg: "harness", May: join(rooms, below, leaves), Why: "harness → (statefiles → schemas), agentpty, hooks; the run loop on top of its rooms"},
	{Pkg: "harness/gitrepo", Why: "harness/gitrepo imports nothing from strom"},
	{Pkg: "harness/limits", Why: "harness/limits imports nothing from strom"},
	{Pkg: "harness/ends", Why: "ends sits below every room and imports nothing"},
	{Pkg: "harness/gates/claudeusage", May: join([]string{"harness/limits"}, below, leaves), Why: "a tool: imports at most gitrepo and limits among the rooms"},
	{Pkg: "harness/remote", May: join([]string{"harness/gitrepo"}, below, leaves), Why: "a tool: imports at most gitrepo and limits among the rooms"},
	{Pkg: "harness/consent", May: join([]string{"harness/gitrepo"}, below, leaves), Why: "a tool: imports at most gitrepo and limits among the rooms"},
	{Pkg: "harness/merge", May: join([]string{"harness/gitrepo"}, below, leaves), Why: "a tool: imports at most gitrepo and limits among the rooms"},
	{Pkg: "harness/archives", May: join([]string{"harness/gitrepo", "harness/limits"}, below, leaves), Why: "a tool: imports at most gitrepo and limits among the rooms"},
	{Pkg: "harness/views", May: under(0), Why: "harness → views → session → queue → mode → allow → agents → research"},
	{Pkg: "harness/machines", May: under(1), Why: "harness → machines → queue → …: several machines sit beside session, below the run loop"},
	{Pkg: "harness/session", May: under(1), Why: "views → session → queue → …: a room never imports one above it"},
	{Pkg: "harness/queue", May: under(2), Why: "session → queue → mode → …: a room never imports one above it"},
	{Pkg: "harness/mode", May: under(3), Why: "queue → mode → allow → …: a room never imports one above it"},
	{Pkg: "harness/allow", May: under(4), Why: "mode → allow → agents → research: a room never imports one above it"},
	{Pkg: "harness/agents", May: under(5), Why: "allow → agents → research: a room never imports one above it"},
	{Pkg: "harness/agents/internal/...", May: join([]string{"harness/agents"}, below, leaves), Why: "the agent profiles' generator reads the room it writes for"},
	{Pkg: "harness/runfiles", May: under(6), Why: "runfiles → research, below every room above research"},
	{Pkg: "harness/research", May: under(7), Why: "research → gitrepo, remote, consent, statefiles"},
	{Pkg: "harness/gates", May: join([]string{"harness/research", "harness/runfiles"}, tools, below, leaves), Why: "gates needs only research, runfiles and ends (and the tools)"},
	{Pkg: "harness/precommit", May: join([]string{"harness/research"}, tools, below, leaves), Why: "the pre-commit hook's check reads the research and git"},
	{Pkg: "harness/...", Why: "a new room of harness gets its rule in this table"},
	{Pkg: "statefiles", May: join([]string{"schemas", "messages"}, leaves), Why: "statefiles → schemas"},
	{Pkg: "statefiles/...", May: join([]string{"statefiles", "schemas", "messages"}, leaves), Why: "statefiles' own generators"},
	{Pkg: "schemas", Why: "schemas is a leaf"},
	{Pkg: "agentpty", May: leaves, Why: "agentpty imports nothing from strom but the internal leaves"},
	{Pkg: "hooks", May: join([]string{"messages"}, leaves), Why: "hooks sits below harness"},
	{Pkg: "messages", Why: "messages is a leaf every package may use"},
	{Pkg: "messages/...", May: []string{"messages", "messages/..."}, Why: "the catalogs' own generators"},
	{Pkg: "internal/gensums", May: []string{"schemas"}, Why: "the build tool that writes statefiles' schema sums reads the schemas, not statefiles"},
	{Pkg: "internal/...", Why: "internal/* are leaves"},
	{Pkg: "scripts", Why: "the scripts' tests import nothing from strom"},
}

// Debt is an import the layering forbids that the code still makes, named so that
// no other joins it unseen. A debt that is paid (the import gone) fails the check
// too, so that the table is cut with it.
type Debt struct {
	Pkg, Imports string // exact package paths inside the module
	Why          string
}

// Debts are the imports against Rules the code makes today.
var Debts = []Debt{
	{Pkg: "app", Imports: "statefiles", Why: "the app reads the list of researches and the archive settings itself"},
	{Pkg: "menu", Imports: "statefiles", Why: "the menu reads settings keys and task states itself"},
}

func join(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Match reports whether path (inside the module) matches pattern.
func Match(pattern, path string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return strings.HasPrefix(path, dir+"/")
	}
	return path == pattern
}

// Check returns the problems of a graph of the module's packages (each path inside
// the module, with its imports inside the module) against rules and debts: an
// import no rule allows and no debt names, a package no rule names, a debt no
// longer made. Sorted; empty when the graph keeps the layering.
func Check(graph map[string][]string, rules []Rule, debts []Debt) []string {
	var out []string
	owed := map[[2]string]bool{}
	for _, d := range debts {
		owed[[2]string{d.Pkg, d.Imports}] = true
	}
	used := map[[2]string]bool{}
	for pkg, imports := range graph {
		i := slices.IndexFunc(rules, func(r Rule) bool { return Match(r.Pkg, pkg) })
		if i < 0 {
			out = append(out, fmt.Sprintf("%s: no rule of internal/layers names this package", pkg))
			continue
		}
		r := rules[i]
		for _, imp := range imports {
			if slices.ContainsFunc(r.May, func(p string) bool { return Match(p, imp) }) {
				continue
			}
			if owed[[2]string{pkg, imp}] {
				used[[2]string{pkg, imp}] = true
				continue
			}
			out = append(out, fmt.Sprintf("%s imports %s, against the rule for %s (%s)", pkg, imp, r.Pkg, r.Why))
		}
	}
	for _, d := range debts {
		if !used[[2]string{d.Pkg, d.Imports}] {
			out = append(out, fmt.Sprintf("%s no longer imports %s: strike the debt from internal/layers", d.Pkg, d.Imports))
		}
	}
	sort.Strings(out)
	return out
}
