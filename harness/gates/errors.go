package gates

import "github.com/strom-research/strom/messages"

// ErrNoGate means no gate program is installed under the name in run.gate.
var ErrNoGate error = messages.New("gates.err_no_gate", nil)

// ErrBadSpec means the words of run.gate (or --gate) do not start with a gate name.
var ErrBadSpec error = messages.New("gates.err_bad_spec", nil)

// ErrBadAnswer means a gate printed something other than one valid JSON answer.
var ErrBadAnswer error = messages.New("gates.err_bad_answer", nil)

// ErrTimeout means a gate gave no answer within its time.
var ErrTimeout error = messages.New("gates.err_timeout", nil)

// ErrExit means a gate program ended with a non-zero exit status or a signal.
var ErrExit error = messages.New("gates.err_exit", nil)
