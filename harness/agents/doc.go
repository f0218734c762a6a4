// Package agents knows how to start each agent CLI strom can run (its profile,
// kept as data), writes the session prompt, builds the Claude Code settings
// overlay, and holds the built-in scripted demo agent.
//
// Its guarantees: a profile is data, so a user override changes an agent
// without a new strom; Argv builds the same argv from the same inputs and
// never runs anything; and text quoted from a task (its title, body, answers
// and earlier records) reaches the agent only inside a fenced data block that
// the quoted text cannot close, introduced as material to research and never
// as instructions.
package agents
