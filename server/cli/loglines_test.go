package cli

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingBuffer is a bytes.Buffer safe for concurrent use, counting writes.
type countingBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (b *countingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.buf.Write(p)
}

func (b *countingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestLineWriter: every line written by many goroutines comes out whole and
// in each writer's order by the time Close returns, in fewer writes than
// lines once lines gather; lines after Close go straight through.
func TestLineWriter(t *testing.T) {
	t.Parallel()
	out := &countingBuffer{}
	w := newLineWriter(out, logGather)
	const writers, lines = 8, 500
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(w, "writer %d line %d %s\n", g, i, strings.Repeat("x", i%50))
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	next := make([]int, writers)
	for _, line := range got {
		var g, i int
		var rest string
		if _, err := fmt.Sscanf(line, "writer %d line %d %s", &g, &i, &rest); err != nil && i%50 != 0 {
			t.Fatalf("a broken line %q: %v", line, err)
		}
		if i != next[g] || len(rest) != i%50 {
			t.Fatalf("writer %d: line %q, want line %d", g, line, next[g])
		}
		next[g]++
	}
	if out.writes >= writers*lines {
		t.Errorf("%d writes for %d lines: nothing gathered", out.writes, writers*lines)
	}
	fmt.Fprintln(w, "after close")
	if !strings.HasSuffix(out.String(), "after close\n") {
		t.Error("a line written after Close is not out when Write returns")
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// blockedWriter blocks every Write until release is closed.
type blockedWriter struct {
	release chan struct{}
	n       atomic.Int64
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	<-b.release
	b.n.Add(int64(len(p)))
	return len(p), nil
}

// TestLineWriterBound: while the output is stalled, no more than maxPending
// bytes wait (a writer blocks instead), and nothing is lost once the output
// moves again. The sampling is bounded by counts, not time.
func TestLineWriterBound(t *testing.T) {
	t.Parallel()
	out := &blockedWriter{release: make(chan struct{})}
	w := newLineWriter(out, time.Hour) // gathering ends when flushAt bytes wait, not after an hour
	line := []byte(strings.Repeat("y", 1023) + "\n")
	const total = 4 * maxPending
	var finished atomic.Bool
	go func() {
		for written := 0; written < total; written += len(line) {
			w.Write(line) //nolint:errcheck // never fails
		}
		finished.Store(true)
	}()
	most := 0
	for range 200_000 {
		w.mu.Lock()
		most = max(most, len(w.pending))
		w.mu.Unlock()
		runtime.Gosched()
	}
	if most > maxPending {
		t.Errorf("%d bytes waited, bound %d", most, maxPending)
	}
	if finished.Load() {
		t.Error("every line was accepted while the output was stalled")
	}
	if most < maxPending/2 {
		t.Errorf("only %d bytes ever waited: the writer did not get going, the case proves nothing", most)
	}
	close(out.release)
	for !finished.Load() {
		runtime.Gosched()
	}
	w.Close()
	if got := out.n.Load(); got != total {
		t.Errorf("%d bytes written, want %d", got, total)
	}
}

// signallingWriter passes each write to a channel.
type signallingWriter struct{ writes chan []byte }

func (s signallingWriter) Write(p []byte) (int, error) {
	s.writes <- append([]byte(nil), p...)
	return len(p), nil
}

// TestLineWriterGathers: lines wait for gather before one write takes them
// all; flushAt waiting bytes are written without waiting; Close writes what
// waits at once. gather is an hour, so any write before Close was urged.
func TestLineWriterGathers(t *testing.T) {
	t.Parallel()
	out := signallingWriter{writes: make(chan []byte, 16)}
	w := newLineWriter(out, time.Hour)
	line := strings.Repeat("z", 99) + "\n"
	for range 10 {
		fmt.Fprint(w, line)
	}
	for range 1000 {
		runtime.Gosched() // give the writing goroutine every chance to write early
	}
	select {
	case p := <-out.writes:
		t.Fatalf("%d bytes written before gather passed or flushAt bytes waited", len(p))
	default:
	}
	for written := 10 * len(line); written < flushAt; written += len(line) {
		fmt.Fprint(w, line)
	}
	// A hang guard, not a measure: the write is due at once.
	select {
	case p := <-out.writes:
		if len(p) < flushAt {
			t.Errorf("the urged write took %d bytes, want the %d waiting", len(p), flushAt)
		}
	case <-time.After(time.Minute):
		t.Fatal("flushAt bytes waited and nothing was written")
	}
	fmt.Fprint(w, "last\n")
	closed := make(chan struct{})
	go func() { w.Close(); close(closed) }()
	select {
	case p := <-out.writes:
		if string(p) != "last\n" {
			t.Errorf("Close wrote %q, want the last line", p)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close did not write the waiting line")
	}
	<-closed
}
