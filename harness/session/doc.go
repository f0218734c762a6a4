// Package session is one session's life: the readiness checks before the agent
// starts, why an agent did not start, the time notes that tell it how long is
// left (R7.2), the screens an agent shows a person, what a person sends it, the
// app's request to finish (R7.3) and the transcript kept of it all.
//
// Its guarantee: a session's transcript keeps at most TranscriptMax bytes of the
// agent's output, and the sessions folder at most SessionsKeepDays days and
// SessionsKeepBytes, the oldest sessions going first.
package session
