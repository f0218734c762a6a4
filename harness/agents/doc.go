// Package agents knows how to start each agent CLI strom can run (its profile,
// kept as data), writes the session prompt, builds the Claude Code settings
// overlay, and holds the built-in scripted demo agent. It chooses the agent a
// session starts (its profile from the settings, the plan of a session), finds the
// installed agents, asks an agent's version once per program file, tells whether
// the agent is logged in (R7.7) and reads the subscription limit and its reset from
// what the agent says (R7.6).
//
// Its guarantees: a profile is data, so a user override changes an agent
// without a new strom; Argv builds the same argv from the same inputs and
// never runs anything; and text quoted from a task (its title, body, answers
// and earlier records) reaches the agent only inside a fenced data block that
// the quoted text cannot close, introduced as material to research and never
// as instructions. An agent whose version strom does not know, or that is not
// logged in, does not start a session.
package agents
