package cli

import (
	"io"
	"sync"
	"time"
)

// lineWriter hands the log lines of a running server to one goroutine that
// writes them out in batches. Written straight to stderr, every request's
// log line cost a write system call on the request's path: about 7% of a
// GET of ten regions under load. Here a line is copied into a buffer, and
// the goroutine writes what gathered once the first waiting line has waited
// gather (or at once when flushAt bytes wait): at most one write per gather
// however busy the server is. Woken for every line instead, it wrote about
// once per request under load, and the wake-ups and writes cost a busy
// server more than the lines' formatting (issue 16's list of ten regions).
// A line is out at most gather after it was written: unnoticeable to anyone
// reading the log, as buffered loggers commonly delay far longer.
//
// It is bounded: once maxPending bytes wait, a writer blocks until the
// goroutine has taken them (a stalled stderr slows requests down, as it did
// before, rather than growing memory). Close writes what is left at once;
// lines written after Close go straight through. Lines are lost only if the
// process dies without Close (a crash of the runtime itself, or a kill): at
// most gather's worth; serve closes it on every return.
type lineWriter struct {
	out    io.Writer
	gather time.Duration

	mu      sync.Mutex
	taken   *sync.Cond // signalled when the goroutine takes the pending lines
	pending []byte
	spare   []byte // the previous batch's buffer, reused
	closed  bool

	wake chan struct{} // buffered (1): there are lines to write, or Close was called
	urge chan struct{} // buffered (1): flushAt bytes wait, or Close was called: stop gathering
	done chan struct{} // closed when the goroutine has written everything and stopped
}

// maxPending bounds the bytes of log lines waiting to be written; flushAt
// of them are written without waiting out gather.
const (
	maxPending = 1 << 20
	flushAt    = 64 << 10
)

// logGather is how long serve's log lines gather before they are written.
const logGather = 10 * time.Millisecond

// newLineWriter starts the writing goroutine for out; lines gather for up to
// gather before a write (0: each wake-up writes what waits at once).
func newLineWriter(out io.Writer, gather time.Duration) *lineWriter {
	w := &lineWriter{out: out, gather: gather, wake: make(chan struct{}, 1),
		urge: make(chan struct{}, 1), done: make(chan struct{})}
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
	full := len(w.pending) >= flushAt
	w.mu.Unlock()
	nudge(w.wake)
	if full {
		nudge(w.urge)
	}
	return len(p), nil
}

// nudge sends on a channel of capacity 1 unless a signal already waits.
func nudge(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// run writes the pending lines each time it is woken, once they have
// gathered, until Close has been called and nothing is left.
func (w *lineWriter) run() {
	defer close(w.done)
	held := time.NewTimer(time.Hour)
	held.Stop()
	for range w.wake {
		w.hold(held)
		w.mu.Lock()
		batch, closed := w.pending, w.closed
		if len(batch) > 0 {
			w.pending, w.spare = w.spare[:0], nil
			w.taken.Broadcast()
		}
		w.mu.Unlock()
		if len(batch) > 0 {
			w.out.Write(batch) //nolint:errcheck // a log line has nowhere else to go
			if cap(batch) <= maxPending {
				w.mu.Lock()
				w.spare = batch[:0]
				w.mu.Unlock()
			}
		}
		if closed {
			return // after closed, Write writes directly: nothing more can wait
		}
	}
}

// hold waits up to gather for more lines to join the waiting ones; not at
// all once flushAt bytes wait or Close was called.
func (w *lineWriter) hold(t *time.Timer) {
	if w.gather <= 0 {
		return
	}
	w.mu.Lock()
	ready := w.closed || len(w.pending) >= flushAt
	w.mu.Unlock()
	if ready {
		return
	}
	t.Reset(w.gather)
	select {
	case <-t.C:
	case <-w.urge:
		t.Stop()
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
	nudge(w.urge) // a gathering batch goes out now
	nudge(w.wake) // or, when a wake-up is already due, run drains, then sees closed
	<-w.done
	return nil
}
