package main

import (
	"io"
	"sync"
)

// lineWriter hands the log lines of a running server to one goroutine that
// writes them out in batches. Written straight to stderr, every request's
// log line cost a write system call on the request's path: about 7% of a
// GET of ten regions under load. Here a line is copied into a buffer, and
// whatever gathered while the previous write was under way goes out in the
// next one: one line per write on a quiet server, many on a busy one.
//
// It is bounded: once maxPending bytes wait, a writer blocks until the
// goroutine has taken them (a stalled stderr slows requests down, as it did
// before, rather than growing memory). Close writes what is left; lines
// written after Close go straight through. Lines are lost only if the
// process dies without Close (a crash of the runtime itself): serve closes
// it on every return.
type lineWriter struct {
	out io.Writer

	mu      sync.Mutex
	taken   *sync.Cond // signalled when the goroutine takes the pending lines
	pending []byte
	spare   []byte // the previous batch's buffer, reused
	closed  bool

	wake chan struct{} // buffered (1): there are lines to write, or Close was called
	done chan struct{} // closed when the goroutine has written everything and stopped
}

// maxPending bounds the bytes of log lines waiting to be written.
const maxPending = 1 << 20

// newLineWriter starts the writing goroutine for out.
func newLineWriter(out io.Writer) *lineWriter {
	w := &lineWriter{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.taken = sync.NewCond(&w.mu)
	go w.run()
	return w
}

// Write queues p, a whole log line (slog writes each record with one call),
// and returns at once unless maxPending bytes already wait.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	for !w.closed && len(w.pending) > 0 && len(w.pending)+len(p) > maxPending {
		w.taken.Wait()
	}
	if w.closed {
		w.mu.Unlock()
		return w.out.Write(p)
	}
	w.pending = append(w.pending, p...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is already due
	}
	return len(p), nil
}

// run writes the pending lines each time it is woken, until Close has
// been called and nothing is left.
func (w *lineWriter) run() {
	defer close(w.done)
	for range w.wake {
		for {
			w.mu.Lock()
			batch := w.pending
			if len(batch) == 0 {
				closed := w.closed
				w.mu.Unlock()
				if closed {
					return
				}
				break
			}
			w.pending, w.spare = w.spare[:0], nil
			w.taken.Broadcast()
			w.mu.Unlock()
			w.out.Write(batch) //nolint:errcheck // a log line has nowhere else to go
			if cap(batch) <= maxPending {
				w.mu.Lock()
				w.spare = batch[:0]
				w.mu.Unlock()
			}
		}
	}
}

// Close writes the lines still pending and returns once they are written;
// later lines are written directly.
func (w *lineWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.taken.Broadcast()
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is already due: run drains, then sees closed
	}
	<-w.done
	return nil
}
