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

// probeProcessFilter starts a long-running filter process as git does (sh -c in
// the work tree) and speaks git's filter protocol with it (gitattributes(5), "Long
// Running Filter Process"): the greeting, the capabilities, and, when it cleans,
// the clean of an empty file. It returns why the filter would fail git add, ""
// when it answered as git needs; what it wrote on stderr goes to stderr.
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
	talk := filterTalk(in, bufio.NewReader(outR))
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

// filterTalk is git's side of the protocol, up to the answer to one clean.
func filterTalk(w io.Writer, r *bufio.Reader) error {
	if err := writePkts(w, "git-filter-client\n", "version=2\n", ""); err != nil {
		return err
	}
	hello, err := readPktList(r)
	if err != nil {
		return err
	}
	if len(hello) < 2 || hello[0] != "git-filter-server" || hello[1] != "version=2" {
		return fmt.Errorf("it answered %q, not git's filter protocol", strings.Join(hello, " "))
	}
	if err := writePkts(w, "capability=clean\n", "capability=smudge\n", ""); err != nil {
		return err
	}
	caps, err := readPktList(r)
	if err != nil {
		return err
	}
	cleans := false
	for _, c := range caps {
		cleans = cleans || c == "capability=clean"
	}
	if !cleans {
		return nil // git never asks it to clean
	}
	if err := writePkts(w, "command=clean\n", "pathname=strom-filter-probe\n", "", ""); err != nil {
		return err
	}
	status, err := readPktList(r)
	if err != nil {
		return err
	}
	if len(status) > 0 && status[len(status)-1] != "status=success" {
		return fmt.Errorf("it answered %s", status[len(status)-1])
	}
	if _, err := readPktList(r); err != nil { // the content: none
		return err
	}
	final, err := readPktList(r)
	if err != nil {
		return err
	}
	if len(final) > 0 && final[len(final)-1] != "status=success" {
		return fmt.Errorf("it answered %s", final[len(final)-1])
	}
	return nil
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

// readPktList reads pkt-lines up to a flush packet, each without its newline.
func readPktList(r *bufio.Reader) ([]string, error) {
	var out []string
	for {
		var head [4]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return nil, errors.New("it ended without answering")
		}
		n, err := strconv.ParseUint(string(head[:]), 16, 16)
		if err != nil || n == 1 || n == 2 || n == 3 {
			return nil, fmt.Errorf("it answered %q, not git's filter protocol", head[:])
		}
		if n == 0 {
			return out, nil
		}
		data := make([]byte, n-4)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, errors.New("it ended without answering")
		}
		out = append(out, strings.TrimSuffix(string(data), "\n"))
	}
}
