package messages

import (
	"errors"
	"strings"
)

// Error is a sentence for a person carried as an error by code that does not know
// the person's language (statefiles, the gates, a sentinel): Error says it in
// English — for logs, JSON and "verb noun: %w" wraps — and a Printer's Text says it
// in the person's language where it is printed. Err, when set, is the sentinel it
// stands for, so errors.Is still finds it.
type Error struct {
	ID   string
	Args Args
	Err  error
}

// New returns the sentence id as an error that stands for no sentinel; a package
// uses it for its sentinels (var ErrX error = messages.New(id, nil)).
func New(id string, args Args) *Error { return &Error{ID: id, Args: args} }

// Errorf returns the sentence id as an error that errors.Is matches with sentinel.
func Errorf(sentinel error, id string, args Args) error {
	return &Error{ID: id, Args: args, Err: sentinel}
}

func (e *Error) Error() string {
	if e == nil {
		return ""
	}
	return For(English).Text(e)
}

func (e *Error) Unwrap() error { return e.Err }

// Sayer is a typed error whose fields callers read (consent.NotAllowedError) that
// gives its sentence as an Error, so Text says it in the person's language.
type Sayer interface {
	error
	Sentence() *Error
}

// sentenceIn finds the first Error or Sayer in err's chain: the Error to say and
// the error that holds it (for its English text).
func sentenceIn(err error) (e *Error, holder error) {
	for cur := err; cur != nil; cur = errors.Unwrap(cur) {
		switch x := cur.(type) {
		case *said: // said in the person's language already (Wrap)
			return nil, nil
		case *Error:
			if x == nil {
				return nil, nil
			}
			return x, x
		case Sayer:
			return x.Sentence(), x
		}
	}
	var found *Error
	if errors.As(err, &found) && found != nil { // behind an error that wraps several
		return found, found
	}
	return nil, nil
}

// Text is an error as the person reads it: the first Error in its chain said in
// the printer's language, in the place its English stands in the whole message (a
// "verb noun: %w" wrap stays around it as it is, developer detail), with errors
// among its arguments said the same way. An error without an Error is its own
// text.
func (p *Printer) Text(err error) string {
	if err == nil {
		return ""
	}
	e, holder := sentenceIn(err)
	if e == nil {
		return err.Error()
	}
	args := e.Args
	if len(args) > 0 {
		args = make(Args, len(e.Args))
		for k, v := range e.Args {
			if ev, ok := v.(error); ok {
				v = p.Text(ev)
			}
			args[k] = v
		}
	}
	said := p.Say(e.ID, args)
	if err == holder {
		return said
	}
	full := err.Error()
	en := holder.Error()
	if i := strings.Index(full, en); i >= 0 {
		return full[:i] + said + full[i+len(en):]
	}
	return said
}
