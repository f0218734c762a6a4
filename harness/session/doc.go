// Package session is one session's life: the readiness checks before the agent
// starts, why an agent did not start, the time notes that tell it how long is
// left (R7.2), the screens an agent shows a person, what a person sends it, the
// app's request to finish (R7.3) and the transcript kept of it all.
//
// Its guarantee: what the agent wrote to its terminal is kept in the session's
// transcript, at most the set size, and the sessions folder is pruned by age and
// size, never a live session's file.
package session
