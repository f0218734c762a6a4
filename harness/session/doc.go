// Package session is one session's life: the readiness checks before the agent
// starts, the start (and why an agent did not start), its time limit and the notes
// that tell the agent how long is left (R7.2), idleness, the limits and screens
// the agent shows (R7.6, R7.7), what a person sends it, the requests to finish
// (R7.3), the exit check (check.command), the one commit, and the recovery of a
// session whose strom was killed.
//
// Its guarantee: every session ends in exactly one commit whose trailers say why
// it ended — whatever happens to it: the agent finishes, hangs, crashes, hits a
// limit, or strom itself is killed (RecoverCrash commits what the crashed one
// left). What the agent wrote and recorded is in that commit, and its task is
// done, waiting, parked or back in the queue. A session's transcript keeps at
// most TranscriptMax bytes of the agent's output, and the sessions folder at most
// SessionsKeepDays days and SessionsKeepBytes, the oldest sessions going first.
package session
