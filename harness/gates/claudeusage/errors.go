package claudeusage

import "errors"

// ErrBadN means the pace n in the gate's words is not a whole number from 0 to 99.
var ErrBadN = errors.New("n must be a whole number from 0 to 99")

// ErrBadCap means the value after --cap is not a whole number from 1 to 100.
var ErrBadCap = errors.New("the cap must be a whole number from 1 to 100")

// ErrBadArgs means the gate's words hold something other than n and --cap.
var ErrBadArgs = errors.New("claude-usage takes only n and --cap")

// ErrNoLimits means Claude Code showed no plan limits: it runs on an API key, is not
// logged in, or its usage lookup failed; the caller tells these apart.
var ErrNoLimits = errors.New("claude code shows no plan limits")

// ErrAPIKey means Claude Code runs on an API key, so there is no weekly limit to pace.
var ErrAPIKey = errors.New("claude code runs on an api key")

// ErrUnreadable means the usage output holds nothing this package recognises.
var ErrUnreadable = errors.New("usage output not recognised")
