package main

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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
	w := newLineWriter(out)
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
	w := newLineWriter(out)
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
