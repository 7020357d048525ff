package answercache

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"
)

// rounds read the generation for the requests that wait together. A
// request must see every change committed before it arrived, so it waits
// for a reading that starts after it arrives: the reading under way when
// it comes may have been sent before, so it joins the next one, which
// starts when that ends. One reading thus serves every request that
// arrived while the one before it ran: under load, readings run one after
// another and each costs its requests a share of one database round trip;
// alone, a request costs one. (Raft's ReadIndex batches reads the same
// way.)
//
// One goroutine reads, for as long as the cache lives (until its context
// ends): a reader started per reading would grow its stack again for each,
// to the depth of the driver's calls, and that cost more than the reading.
type rounds struct {
	read func(context.Context) (int64, error) // reads, and drops what a new generation outdates
	life context.Context
	wake chan struct{} // a round is running for the reader to read; buffered 1
	once sync.Once     // starts the reader

	mu      sync.Mutex
	running *round // the reading under way; nil when none
	next    *round // the reading to start when it ends; nil when nobody waits
}

// round is one reading of the generation.
type round struct {
	done chan struct{} // closed when gen and err are set
	gen  int64
	err  error
}

// readTimeout bounds one reading: the requests waiting for it are released
// with its error, and no kept answer is served.
const readTimeout = 5 * time.Second

// wait is the generation read by a reading that started after the call.
func (r *rounds) wait(ctx context.Context) (int64, error) {
	if r.life.Err() != nil {
		return 0, errClosed
	}
	r.mu.Lock()
	var w *round
	switch {
	case r.running == nil:
		w = &round{done: make(chan struct{})}
		r.running = w
		r.once.Do(func() { go r.reader() })
		r.wake <- struct{}{} // never blocks: the reader took the last one before running was nil
	case r.next == nil:
		w = &round{done: make(chan struct{})}
		r.next = w
	default:
		w = r.next
	}
	r.mu.Unlock()
	select {
	case <-w.done:
		return w.gen, w.err
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-r.life.Done():
		return 0, errClosed
	}
}

// errClosed is the answer to a wait once the cache's life has ended.
var errClosed = errors.New("answercache: closed")

// reader runs each round it is woken for, until the cache's life ends.
func (r *rounds) reader() {
	for {
		select {
		case <-r.wake:
		case <-r.life.Done():
			return
		}
		r.mu.Lock()
		w := r.running
		r.mu.Unlock()
		r.run(w)
	}
}

// run reads for w, then for each next round that waits, until none does.
// Before it starts the next reading it yields once, so that the requests
// ready to run (those the last reading released, those the network just
// delivered) come to wait for it too: under load a reading serves more
// requests, and a request alone never waits for a timer.
func (r *rounds) run(w *round) {
	for w != nil {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		w.gen, w.err = r.read(ctx)
		cancel()
		close(w.done)
		r.mu.Lock()
		waiting := r.next != nil
		r.mu.Unlock()
		if waiting {
			runtime.Gosched()
		}
		r.mu.Lock()
		w, r.next = r.next, nil
		r.running = w
		r.mu.Unlock()
	}
}
