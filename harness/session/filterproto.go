package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/strom-research/strom/internal/procgroup"
)

// maxFilterAnswer bounds what is read of a process filter in all: its greeting,
// capabilities, statuses and the content of one clean of an empty file need a few
// dozen bytes.
const maxFilterAnswer = 64 << 10

// probeProcessFilter starts a long-running filter process as git does (sh -c in
// the work tree) and speaks git's filter protocol with it (gitattributes(5), "Long
// Running Filter Process"): the greeting, the capabilities, and, when it cleans,
// the clean of an empty file. It returns why the filter would fail git add, ""
// when it answered as git needs; what it wrote on stderr goes to stderr. Once ctx
// is done its output is no longer read, even where a process it left holds it.
func probeProcessFilter(ctx context.Context, dir, process string, stderr io.Writer) string {
	cmd := exec.CommandContext(ctx, "sh", "-c", process)
	cmd.Dir = dir
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err.Error()
	}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return err.Error()
	}
	g, err := procgroup.Start(cmd)
	if err != nil {
		return err.Error()
	}
	// Killing the group ends no process that left it (setsid): closing the pipe
	// ends the read.
	stop := context.AfterFunc(ctx, func() {
		if c, ok := outR.(io.Closer); ok {
			c.Close()
		}
	})
	talk := filterTalk(in, outR)
	stop()
	in.Close()
	waitErr := g.Wait()
	switch {
	case talk != nil && waitErr != nil:
		return waitErr.Error()
	case talk != nil:
		return talk.Error()
	}
	return ""
}

// filterTalk is git's side of the protocol, up to the answer to one clean, read
// as git reads it: at most maxFilterAnswer bytes of r. Its error is one line.
func filterTalk(w io.Writer, r io.Reader) error {
	p := &pktReader{r: bufio.NewReader(r), left: maxFilterAnswer}
	if err := writePkts(w, "git-filter-client\n", "version=2\n", ""); err != nil {
		return err
	}
	hello, err := p.list()
	if err != nil {
		return err
	}
	if len(hello) < 2 || hello[0] != "git-filter-server" || !hasLine(hello[1:], "version=2") {
		return fmt.Errorf("it answered %s, not git's filter protocol", quoted(strings.Join(hello, " ")))
	}
	if err := writePkts(w, "capability=clean\n", "capability=smudge\n", ""); err != nil {
		return err
	}
	caps, err := p.list()
	if err != nil {
		return err
	}
	cleans := false
	for _, c := range caps {
		name, ok := strings.CutPrefix(c, "capability=")
		if !ok {
			return fmt.Errorf("it answered %s, not a capability", quoted(c))
		}
		cleans = cleans || name == "clean"
	}
	if !cleans {
		return nil // git never asks it to clean
	}
	if err := writePkts(w, "command=clean\n", "pathname=strom-filter-probe\n", "", ""); err != nil {
		return err
	}
	// The status as git keeps it: the last status= of a list, the one before where
	// a list has none; the first must be success, and so must the one after the
	// content.
	status := ""
	for i := range 3 {
		list, err := p.list()
		if err != nil {
			return err
		}
		if i == 1 {
			continue // the content: none is asked for, any is taken
		}
		for _, l := range list {
			if v, ok := strings.CutPrefix(l, "status="); ok {
				status = v
			}
		}
		if status != "success" {
			return fmt.Errorf("it answered status=%s", word(status))
		}
	}
	return nil
}

// hasLine reports whether lines holds want.
func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// quoted is a filter's text for an error: Go-quoted in ASCII on one line, at most
// 80 bytes of the quoted form.
func quoted(s string) string {
	q := strconv.QuoteToASCII(s[:min(len(s), 80)])
	if len(q) > 80 || len(s) > 80 {
		return q[:min(len(q), 80)] + "…"
	}
	return q
}

// word is a filter's word for an error: as it is when it is one of letters,
// digits, dots, dashes and underscores (success, error, abort), else quoted.
func word(s string) string {
	if s == "" || len(s) > 40 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
		return quoted(s)
	}
	return s
}

// writePkts writes each text as a pkt-line, "" as a flush packet.
func writePkts(w io.Writer, texts ...string) error {
	var b strings.Builder
	for _, t := range texts {
		if t == "" {
			b.WriteString("0000")
			continue
		}
		fmt.Fprintf(&b, "%04x%s", len(t)+4, t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// errFilterEnded: the filter's output ended (or was closed) before its answer did.
var errFilterEnded = errors.New("it ended without answering")

// pktReader reads a filter's pkt-lines, at most left bytes in all.
type pktReader struct {
	r    *bufio.Reader
	left int
}

// read fills b from the filter, within the bound.
func (p *pktReader) read(b []byte) error {
	if len(b) > p.left {
		return fmt.Errorf("it answered more than %d bytes", maxFilterAnswer)
	}
	p.left -= len(b)
	if _, err := io.ReadFull(p.r, b); err != nil {
		return errFilterEnded
	}
	return nil
}

// list reads pkt-lines up to a flush packet, each without its newline.
func (p *pktReader) list() ([]string, error) {
	var out []string
	for {
		var head [4]byte
		if err := p.read(head[:]); err != nil {
			return nil, err
		}
		n, err := strconv.ParseUint(string(head[:]), 16, 16)
		if err != nil || (n > 0 && n < 4) {
			return nil, fmt.Errorf("it answered %s, not git's filter protocol", quoted(string(head[:])))
		}
		if n == 0 {
			return out, nil
		}
		data := make([]byte, n-4)
		if err := p.read(data); err != nil {
			return nil, err
		}
		out = append(out, strings.TrimSuffix(string(data), "\n"))
	}
}
