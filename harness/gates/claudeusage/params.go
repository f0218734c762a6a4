package claudeusage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strom-research/strom/messages"
)

// Params are the gate's words: `claude-usage [n] [--cap c]`.
type Params struct {
	// N is the lead in points the week's pace keeps (R7.5): 0–99, 0 when not given.
	N int
	// Cap is the week's usage in percent at which no session starts (R7.5.4): 1–100,
	// 0 for none.
	Cap int
}

// ParseArgs reads the words given after the gate's name, in any order: an optional
// whole n and an optional `--cap c` (or `--cap=c`). Without n the pace is 0. A bad word
// is an error whose message is one sentence; the caller answers it with InvalidParams.
func ParseArgs(args []string) (Params, error) {
	var p Params
	seenN, seenCap := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--cap" || a == "-cap" || strings.HasPrefix(a, "--cap=") || strings.HasPrefix(a, "-cap="):
			if seenCap {
				return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.cap_twice", nil)
			}
			seenCap = true
			v, ok := strings.CutPrefix(strings.TrimPrefix(a, "-"), "-cap=")
			if !ok {
				if i+1 >= len(args) {
					return Params{}, messages.Errorf(ErrBadCap, "claudeusage.cap_missing", nil)
				}
				i++
				v = args[i]
			}
			c, err := whole(v)
			if err != nil || c < 1 || c > 100 {
				return Params{}, messages.Errorf(ErrBadCap, "claudeusage.bad_cap", messages.Args{"Value": v})
			}
			p.Cap = c
		case strings.HasPrefix(a, "--") || (strings.HasPrefix(a, "-") && !isNumberish(a)):
			return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.bad_word", messages.Args{"Value": a})
		default:
			if seenN {
				return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.second_n", messages.Args{"Value": a})
			}
			seenN = true
			n, err := whole(a)
			if err != nil || n < 0 || n > 99 {
				return Params{}, messages.Errorf(ErrBadN, "claudeusage.bad_n", messages.Args{"Value": a})
			}
			p.N = n
		}
	}
	return p, nil
}

// whole parses a whole number written in plain digits: no sign, point or exponent,
// since from research 1.26.0 a decimal n is refused where it used to stop every run.
func whole(s string) (int, error) {
	if s == "" || len(s) > 3 {
		return 0, strconv.ErrSyntax
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.Atoi(s)
}

// isNumberish tells a negative number ("-1", "-0.5") from a flag, so that "-1" is
// reported as a bad n rather than an unknown word.
func isNumberish(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// Watch returns what the gate asks strom to watch in a running session: with a cap,
// a finish request once the agent reports the week at the cap (99 % at --cap 100,
// since a week at 100 % is already the subscription limit); without a cap, nothing.
func (p Params) Watch() *Watch {
	if p.Cap <= 0 {
		return nil
	}
	return &Watch{WeekFinishAt: float64(min(p.Cap, 99))}
}

// String gives the words back as a person writes them, e.g. "10 --cap 95".
func (p Params) String() string {
	if p.Cap > 0 {
		return fmt.Sprintf("%d --cap %d", p.N, p.Cap)
	}
	return strconv.Itoa(p.N)
}
