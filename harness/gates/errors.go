package gates

import "errors"

// ErrNoGate means no gate program is installed under the name in run.gate.
var ErrNoGate = errors.New("no such condition installed")

// ErrBadSpec means the words of run.gate (or --gate) do not start with a gate name.
var ErrBadSpec = errors.New("a condition is written as \"<name> [args]\"")

// ErrBadAnswer means a gate printed something other than one valid JSON answer.
var ErrBadAnswer = errors.New("the condition's answer is not one JSON object with verdict go, wait or stop")

// ErrTimeout means a gate gave no answer within its time.
var ErrTimeout = errors.New("the condition gave no answer in time")

// ErrExit means a gate program ended with a non-zero exit status or a signal.
var ErrExit = errors.New("the condition program failed")
