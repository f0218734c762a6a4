// Package harness runs strom's work on a research repo: it keeps the queue's rules,
// starts sessions, enforces their time limits, asks gates, and closes every session
// with exactly one commit whose trailers say why it ended.
//
// Its guarantee: whatever happens to a session — the agent finishes, hangs, crashes,
// hits a limit, or strom itself is killed — what the agent wrote and recorded ends up
// in a commit, and its task is either done, waiting, parked or back in the queue.
package harness
