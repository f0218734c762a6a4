package claudeusage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strom-research/strom/messages"
)

// Params are the gate's words: `claude-usage [n] [--cap c] [--five-hour f]`.
type Params struct {
	// N is the lead in points the week's pace keeps (R7.5): 0–99, 0 when not given.
	N int
	// Cap is the week's usage in percent at which no session starts (R7.5.4): 1–100,
	// 0 for none.
	Cap int
	// FiveHour is the five-hour window's usage in percent at which a session at work
	// is asked to finish and none starts until the window resets: 1–100, 0 for none
	// (--five-hour, beyond R7.5: without it the window stops sessions at 100 %).
	FiveHour int
}

// ParseArgs reads the words given after the gate's name, in any order: an optional
// whole n and an optional `--cap c` (or `--cap=c`). Without n the pace is 0. A bad word
// is an error whose message is one sentence; the caller answers it with InvalidParams.
func ParseArgs(args []string) (Params, error) {
	var p Params
	seenN, seenCap, seenFive := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case isFlag(a, "cap"):
			if seenCap {
				return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.cap_twice", nil)
			}
			seenCap = true
			v, ok := flagValue(args, &i, "cap")
			if !ok {
				return Params{}, messages.Errorf(ErrBadCap, "claudeusage.cap_missing", nil)
			}
			c, err := whole(v)
			if err != nil || c < 1 || c > 100 {
				return Params{}, messages.Errorf(ErrBadCap, "claudeusage.bad_cap", messages.Args{"Value": v})
			}
			p.Cap = c
		case isFlag(a, "five-hour"):
			if seenFive {
				return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.five_hour_twice", nil)
			}
			seenFive = true
			v, ok := flagValue(args, &i, "five-hour")
			if !ok {
				return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.five_hour_missing", nil)
			}
			f, err := whole(v)
			if err != nil || f < 1 || f > 100 {
				return Params{}, messages.Errorf(ErrBadArgs, "claudeusage.bad_five_hour", messages.Args{"Value": v})
			}
			p.FiveHour = f
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

// isFlag reports a word that is the flag name: --name, -name, --name=v or -name=v.
func isFlag(a, name string) bool {
	for _, dashes := range []string{"--", "-"} {
		if rest, ok := strings.CutPrefix(a, dashes); ok && (rest == name || strings.HasPrefix(rest, name+"=")) {
			return true
		}
	}
	return false
}

// flagValue is the value of the flag at args[*i], from after its "=" or from the next
// word (which it then takes); false when there is none.
func flagValue(args []string, i *int, name string) (string, bool) {
	a := strings.TrimPrefix(strings.TrimPrefix(args[*i], "-"), "-")
	if v, ok := strings.CutPrefix(a, name+"="); ok {
		return v, true
	}
	if *i+1 >= len(args) {
		return "", false
	}
	*i++
	return args[*i], true
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
// since a week at 100 % is already the subscription limit); with --five-hour, one
// once it reports the five-hour window at its limit (99 % at 100, likewise);
// without either, nothing.
func (p Params) Watch() *Watch {
	if p.Cap <= 0 && p.FiveHour <= 0 {
		return nil
	}
	w := &Watch{}
	if p.Cap > 0 {
		w.WeekFinishAt = float64(min(p.Cap, 99))
	}
	if p.FiveHour > 0 {
		w.FiveHourFinishAt = float64(min(p.FiveHour, 99))
	}
	return w
}

// String gives the words back as a person writes them, e.g. "10 --cap 95".
func (p Params) String() string {
	s := strconv.Itoa(p.N)
	if p.Cap > 0 {
		s += fmt.Sprintf(" --cap %d", p.Cap)
	}
	if p.FiveHour > 0 {
		s += fmt.Sprintf(" --five-hour %d", p.FiveHour)
	}
	return s
}
