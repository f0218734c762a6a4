// Package claudeusage is the built-in claude-usage gate's judgement: it reads the
// Claude subscription's usage as Claude Code reports it and decides whether the next
// session starts so that the week's limit lasts the week (R7.5).
//
// Its guarantee: Decide is a pure function of the time, the gate's words, one usage
// reading and the hold from the last answer. It never lets a session start at or over
// the week's cap, lets one start on the pace only with the lead the week needs, and
// never waits past a minute after the week resets. Running Claude Code and storing the
// hold are the caller's.
package claudeusage
