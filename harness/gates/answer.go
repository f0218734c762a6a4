package gates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/internal/shellword"
	"github.com/strom-research/strom/internal/termsafe"
	"github.com/strom-research/strom/messages"
)

// Verdicts, the protocol's wire words.
const (
	Go   = claudeusage.VerdictGo
	Wait = claudeusage.VerdictWait
	Stop = claudeusage.VerdictStop
)

// ClaudeUsage is the name of the built-in gate.
const ClaudeUsage = "claude-usage"

// Timeouts for an answer: a gate program gets 120 s; claude-usage may try to read
// the usage three times 30 s apart, each try starting Claude Code, so it gets 660 s.
const (
	ProgramTimeout = 120 * time.Second
	BuiltinTimeout = 660 * time.Second
)

// Spec is the words of run.gate: the gate's name and what is given to it.
type Spec struct {
	Name string
	Args []string
}

// isGateName reports whether s is a gate's name: a lower-case letter or digit,
// then those, '.', '_' or '-'.
func isGateName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
		if !ok {
			return false
		}
	}
	return s != ""
}

// ParseSpec reads "<name> [args]". Words are separated by blanks; a word may be
// quoted with '…' or "…" to hold blanks.
func ParseSpec(s string) (Spec, error) {
	words, err := shellword.Split(s)
	if err != nil {
		return Spec{}, messages.Errorf(ErrBadSpec, "gates.bad_words", messages.Args{"Spec": termsafe.Excerpt(s), "Error": err})
	}
	if len(words) == 0 || !isGateName(words[0]) {
		return Spec{}, messages.Errorf(ErrBadSpec, "gates.bad_spec", messages.Args{"Spec": termsafe.Excerpt(s)})
	}
	return Spec{Name: words[0], Args: words[1:]}, nil
}

// String gives the words back as a person writes them.
func (s Spec) String() string {
	out := []string{s.Name}
	for _, a := range s.Args {
		out = append(out, shellword.Quote(a))
	}
	return strings.Join(out, " ")
}

// Builtin reports whether the gate ships inside strom.
func (s Spec) Builtin() bool { return s.Name == ClaudeUsage }

// Timeout is how long the gate has to answer.
func (s Spec) Timeout() time.Duration {
	if s.Builtin() {
		return BuiltinTimeout
	}
	return ProgramTimeout
}

// Watch is what a gate asks strom to watch while a session runs (R7.4.2): once the
// agent reports the week's usage at WeekFinishAt percent or more, the session gets
// a finish request.
type Watch = claudeusage.Watch

// Answer is a gate's answer on the wire.
type Answer struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Said is the built-in gate's Reason as a sentence said in the person's language
	// on the run's lines; a gate program's reason is its own words.
	Said        *messages.Error `json:"-"`
	RetryAfterS float64         `json:"retry_after_s,omitempty"`
	Hard        bool            `json:"hard,omitempty"`
	Watch       *Watch          `json:"watch,omitempty"`
	// Limits are the plan's limits the answer was based on, kept in gate.log; a gate
	// program may send its own.
	Limits json.RawMessage `json:"limits,omitempty"`
	// LoginAdvice is set by claude-usage when Claude Code is not logged in: what a
	// person runs to log in. Not on the wire.
	LoginAdvice string `json:"-"`
}

// RetryAfter is when the gate wants to be asked again; 0 when it did not say.
func (a Answer) RetryAfter() time.Duration {
	if a.RetryAfterS <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(a.RetryAfterS)) * time.Second
}

// decodeAnswer reads exactly one JSON answer object from a gate's output.
func decodeAnswer(out []byte) (Answer, error) {
	var a Answer
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&a); err != nil {
		return Answer{}, fmt.Errorf("read answer %q: %w", clip(out), ErrBadAnswer)
	}
	if rest, _ := readRest(dec); len(bytes.TrimSpace(rest)) > 0 {
		return Answer{}, fmt.Errorf("read answer %q: more than one object: %w", clip(out), ErrBadAnswer)
	}
	switch a.Verdict {
	case Go, Wait, Stop:
	default:
		return Answer{}, fmt.Errorf("read verdict %q: %w", a.Verdict, ErrBadAnswer)
	}
	if a.RetryAfterS < 0 || math.IsNaN(a.RetryAfterS) || a.RetryAfterS > 30*24*3600 {
		return Answer{}, fmt.Errorf("read retry_after_s %v: %w", a.RetryAfterS, ErrBadAnswer)
	}
	if w := a.Watch; w != nil {
		if w.WeekFinishAt < 0 || w.WeekFinishAt > 100 || w.WeekFinishAt == 0 && w.FiveHourFinishAt == 0 {
			return Answer{}, fmt.Errorf("read watch.week_finish_at %v: %w", w.WeekFinishAt, ErrBadAnswer)
		}
		if w.FiveHourFinishAt < 0 || w.FiveHourFinishAt > 100 {
			return Answer{}, fmt.Errorf("read watch.five_hour_finish_at %v: %w", w.FiveHourFinishAt, ErrBadAnswer)
		}
	}
	a.Reason = strings.Join(strings.Fields(a.Reason), " ")
	if a.Reason == "" {
		a.Reason = "(no reason given)"
	}
	return a, nil
}

func readRest(dec *json.Decoder) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(dec.Buffered())
	return b.Bytes(), err
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// fromDecision turns the built-in judgement into a wire answer.
func fromDecision(a claudeusage.Answer, u *claudeusage.Usage) Answer {
	out := Answer{Verdict: a.Verdict, Reason: a.Reason, Said: a.Said, RetryAfterS: a.RetryAfter.Seconds(), Hard: a.Hard, LoginAdvice: a.Login}
	out.Watch = a.Watch
	if u != nil {
		out.Limits, _ = json.Marshal(*u)
	}
	return out
}
