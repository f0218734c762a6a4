// Package consent guards the tree settings that start programs. A research is
// shared — cloned from a colleague, pulled from a remote, edited by an agent — and
// its committed settings (.strom/config.json) can name programs that strom would run
// on this computer: check.command, agent.command, an agent profile's command, an
// archive's probe, the agent itself (agent.name). The agents' own project files
// (AgentFiles: Claude Code's .claude/settings.json and .mcp.json, OpenCode's
// .opencode/ and opencode.json, Codex's .codex/, Grok CLI's MCP servers) are
// loaded by the agent's program without asking and run what they name, so they
// are reviewed the same way, by their hash. Like git, which never runs hooks that
// arrive with a clone, and direnv, which asks before it loads a folder's .envrc,
// strom starts none of them until a person on this computer allowed that exact
// value for that research. A tree value equal to the person's own setting changes
// nothing and needs no allowing; the agent's own question whether to trust the
// folder is never answered for the person.
//
// Its guarantees: Rules classifies every key a settings file can hold, and the
// package test fails for a key that is not classified, so a new setting that starts
// something cannot slip past; a value is allowed only by its SHA-256 together with
// the research's identity (its root commit and the folder of its work tree); any
// change of a value — pulled, edited by hand, written by an agent — makes it not
// allowed again; and nothing here starts a program.
package consent
