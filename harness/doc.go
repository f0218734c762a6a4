// Package harness is the run loop: it picks the next task (and waits while the
// archives the remaining tasks need do not answer, R7.1.1), asks the condition
// before a session (R7.4), runs sessions in a row (R7.1) through the session room,
// acts on requests to finish the run (R7.3), and says why the run ended. strom chat
// is a run of one session a person attends. It also still holds the history read
// back from git (log.go) and strom status; several machines' claims, integration,
// publishing and renumbering are harness/machines'.
//
// Its guarantee: a run ends for exactly one reason (ends.Stop), says it, and leaves
// no session without its commit: a session the run started is committed by the
// session room before the next one starts, and a crashed run's is committed by
// the next run before it picks a task.
package harness
