// Package gates asks a run's condition (R7.4) whether the next session starts: a
// program under plugins/gates/<name>/ in the user config, or the built-in
// claude-usage, both answering one JSON object {"verdict":"go|wait|stop", …}.
//
// Its guarantee: every answer is either a valid go, wait or stop, or an error that
// ends the run; a gate that crashes, exits non-zero, prints anything but one JSON
// object, or does not answer in time never lets a session start; a gate program's
// answer is what it printed and its exit, and nothing it started outlives the
// question (internal/procgroup). Each answer a run acts on is printed as one line
// and kept as one JSON line in .strom/gate.log, which never grows past 90 days or
// 2 MB. Asking with DryRun changes no file.
package gates
