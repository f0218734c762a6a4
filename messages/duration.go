package messages

import (
	"strings"
	"time"
)

// Duration says d in words, to the second, in p's language: "5 minutes",
// "1 Stunde 30 Minuten", "2 minuty 5 sekund"; never Go's "5m0s".
func (p *Printer) Duration(d time.Duration) string {
	d = d.Truncate(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, p.Say("note.hours", Args{"Count": h}))
	}
	if m > 0 {
		parts = append(parts, p.Say("note.minutes", Args{"Count": m}))
	}
	if s > 0 || len(parts) == 0 {
		parts = append(parts, p.Say("note.seconds", Args{"Count": s}))
	}
	return strings.Join(parts, " ")
}

// inWords is args with every time.Duration said in p's words; args itself when
// it holds none.
func inWords(p *Printer, args Args) Args {
	var out Args
	for k, v := range args {
		d, ok := v.(time.Duration)
		if !ok {
			continue
		}
		if out == nil {
			out = make(Args, len(args))
			for k2, v2 := range args {
				out[k2] = v2
			}
		}
		out[k] = p.Duration(d)
	}
	if out == nil {
		return args
	}
	return out
}
