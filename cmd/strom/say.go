package main

import (
	"errors"

	"github.com/strom-research/strom/messages"
)

// say is the sentence id in the person's language.
func (s *sys) say(id string, args ...messages.Args) string { return s.msg().Say(id, args...) }

// fail is an error said as the sentence id: exit status 1.
func (s *sys) fail(id string, args ...messages.Args) error {
	return errors.New(s.say(id, args...))
}

// badUsage makes err, a sentence from below (a setting's name or value), a mistake
// on the command line: exit status 2, said in the person's language when printed.
func badUsage(err error) error { return usageError{err: err} }
