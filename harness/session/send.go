package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/strom-research/strom/agentpty"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// Send is what strom session send leaves for a running session's agent: text,
// typed as a person would (a paste when the program asked for bracketed paste,
// then Enter), or written as it is (NoEnter), or as a bracketed paste (Paste);
// or named keys (Keys), sent exactly as a terminal sends them.
type Send struct {
	Text    string   `json:"text,omitempty"`
	Keys    []string `json:"keys,omitempty"`
	NoEnter bool     `json:"no_enter,omitempty"`
	Paste   bool     `json:"paste,omitempty"`
}

// RequestSend leaves input for a running session's agent; the harness types it in
// at its next look, in the order the requests came.
func RequestSend(r *research.Research, session string, snd Send) error {
	if !research.ValidSessionID(session) {
		return messages.Errorf(runfiles.ErrNotLiveSession, "agent.not_live", messages.Args{"Session": session})
	}
	data, err := json.Marshal(snd)
	if err != nil {
		return fmt.Errorf("send to session %s: %w", session, err)
	}
	name := fmt.Sprintf("send-%s-%020d", session, time.Now().UnixNano())
	if err := statefiles.WriteTransient(r.Tree.Path(statefiles.RunDir, name), data); err != nil {
		return fmt.Errorf("send to session %s: %w", session, err)
	}
	return nil
}

// DeliverSends types what strom session send left for this session.
func DeliverSends(r *research.Research, id string, sess *agentpty.Session) {
	matches, _ := filepath.Glob(r.Tree.Path(statefiles.RunDir, "send-"+id+"-*"))
	sort.Strings(matches)
	for _, m := range matches {
		data, err := statefiles.ReadFile(m)
		os.Remove(m)
		if err != nil {
			continue
		}
		var snd Send
		if json.Unmarshal(data, &snd) != nil {
			continue
		}
		switch {
		case len(snd.Keys) > 0:
			_ = sess.SendKeys(snd.Keys...)
		case snd.Paste:
			_ = sess.Paste(snd.Text, !snd.NoEnter)
		case snd.NoEnter:
			_ = sess.Write([]byte(snd.Text))
		default:
			_ = sess.Type(snd.Text)
		}
	}
}
