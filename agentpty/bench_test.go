package agentpty

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// benchBytes is how much the fake agent prints per run. The program's pty turns
// each "\n" into "\r\n", so the person's terminal receives benchBytes*81/80.
const benchBytes = 200 << 20

// BenchmarkRelay relays 200 MB of agent output to a terminal (the slave of an outer
// pty pair, drained by a goroutine) and a transcript file, through a Session and,
// for comparison in the same run, through util-linux script(1) on the same kind of
// terminal. It reports both throughputs, their ratio, and the Session's peak heap.
//
//	go test -run '^$' -bench Relay -benchtime 1x ./agentpty/
func BenchmarkRelay(b *testing.B) {
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		b.Skipf("script(1) from util-linux is needed for the comparison: %v", err)
	}
	argv, env := fakeArgv("flood", envArg+"="+strconv.Itoa(benchBytes))
	want := int64(benchBytes / floodLineLen * (floodLineLen + 1))
	var stromTime, scriptTime time.Duration
	var peakHeap, peakSys uint64
	for b.Loop() {
		d, heap, sys := relayStrom(b, argv, env, want)
		stromTime += d
		peakHeap, peakSys = max(peakHeap, heap), max(peakSys, sys)
		scriptTime += relayScript(b, scriptPath, argv, env, want)
	}
	mb := float64(want) / 1e6 * float64(b.N)
	stromRate, scriptRate := mb/stromTime.Seconds(), mb/scriptTime.Seconds()
	b.ReportMetric(stromRate, "strom-MB/s")
	b.ReportMetric(scriptRate, "script-MB/s")
	b.ReportMetric(stromRate/scriptRate, "strom/script")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(peakSys)/(1<<20), "sys-growth-MiB")
}

// drainedTerminal is an outer pty pair whose master a goroutine reads until it has
// seen want bytes.
func drainedTerminal(b *testing.B, want int64) (slave *os.File, all <-chan struct{}, closeAll func()) {
	b.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		b.Fatalf("open outer pty: %v", err)
	}
	got := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		buf := make([]byte, 32<<10)
		var n int64
		for {
			k, err := master.Read(buf)
			if n < want && n+int64(k) >= want {
				close(got)
			}
			n += int64(k)
			if err != nil {
				return
			}
		}
	}()
	return slave, got, func() {
		_ = slave.Close()
		<-ended
		_ = master.Close()
	}
}

func waitRelayed(b *testing.B, all <-chan struct{}) {
	b.Helper()
	select {
	case <-all:
	case <-time.After(time.Minute):
		b.Fatal("the terminal did not receive all the output")
	}
}

// relayStrom runs one Session and returns how long the output took to reach the
// terminal, and the peak heap in use and growth of memory from the Go runtime while
// it ran.
func relayStrom(b *testing.B, argv, env []string, want int64) (time.Duration, uint64, uint64) {
	b.Helper()
	slave, all, closeTerm := drainedTerminal(b, want)
	defer closeTerm()
	transcript, err := os.Create(filepath.Join(b.TempDir(), "session.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer transcript.Close()

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peakHeap, peakSys uint64
	stop := make(chan struct{})
	var sampled sync.WaitGroup
	sampled.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peakHeap = max(peakHeap, m.HeapInuse)
			peakSys = max(peakSys, m.Sys-base.Sys)
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})

	began := time.Now()
	s, err := Start(context.Background(), Options{Argv: argv, Env: env, Terminal: slave, Transcript: transcript})
	if err != nil {
		b.Fatal(err)
	}
	waitRelayed(b, all)
	took := time.Since(began)
	if st, err := s.Wait(); err != nil || st != (ExitStatus{}) {
		b.Fatalf("session ended with %v, %v", st, err)
	}
	close(stop)
	sampled.Wait()
	if fi, err := transcript.Stat(); err != nil || fi.Size() != want {
		b.Fatalf("transcript has %v bytes (%v), want %d", fi.Size(), err, want)
	}
	return took, peakHeap, peakSys
}

// relayScript runs the same agent under script(1), with the same kind of terminal
// as its stdin and stdout, and returns how long the output took to reach it.
func relayScript(b *testing.B, scriptPath string, argv, env []string, want int64) time.Duration {
	b.Helper()
	slave, all, closeTerm := drainedTerminal(b, want)
	defer closeTerm()
	cmd := exec.CommandContext(context.Background(), scriptPath, "-qc", shellQuote(argv), "/dev/null")
	cmd.Env = append(env, "SHELL=/bin/sh")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	began := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	waitRelayed(b, all)
	took := time.Since(began)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("script: %v", err)
	}
	return took
}

func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
