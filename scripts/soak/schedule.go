package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// openLoop is the soak's constant arrival rate: arrival i is due at
// start + i/rate whatever became of the arrivals before it. A closed loop
// (send, wait for the answer, send the next) slows down with the server and
// so never measures the waits a slow answer causes to the requests behind it
// (coordinated omission); here a request's latency runs from its due time,
// so time spent queued behind a slow answer counts.
type openLoop struct {
	start time.Time
	rate  float64 // arrivals per second
	total int64   // arrivals in the run
}

// newOpenLoop schedules rate arrivals a second for d from start.
func newOpenLoop(start time.Time, rate float64, d time.Duration) openLoop {
	return openLoop{start: start, rate: rate, total: int64(d.Seconds() * rate)}
}

// dueAt is when arrival i is due.
func (o openLoop) dueAt(i int64) time.Time {
	return o.start.Add(time.Duration(float64(i) * float64(time.Second) / o.rate))
}

// arrival is one request to send: its place in the mix and its due time.
type arrival struct {
	seq int64
	due time.Time
}

// clock is the time the dispatcher runs on; tests give it a fake one.
type clock interface {
	now() time.Time
	// sleepUntil returns at t or later, or false once ctx ends first.
	sleepUntil(ctx context.Context, t time.Time) bool
}

type wallClock struct{}

func (wallClock) now() time.Time { return time.Now() }

func (wallClock) sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// dispatch puts every arrival of o into queue at its due time until all are
// out or ctx ends, and returns how many it sent and shed. When the dispatcher
// wakes late it sends the overdue arrivals at once, keeping their due times,
// so the rate holds on average. An arrival that finds the queue full is shed:
// counted and dropped, never waited for, so the schedule does not bend to the
// server (the queue holds a minute of arrivals; shedding means the server fell
// that far behind).
func dispatch(ctx context.Context, o openLoop, queue chan<- arrival, clk clock) (sent, shed int64) {
	for i := int64(0); i < o.total; i++ {
		due := o.dueAt(i)
		if clk.now().Before(due) && !clk.sleepUntil(ctx, due) {
			return sent, shed
		}
		select {
		case queue <- arrival{seq: i, due: due}:
			sent++
		default:
			shed++
		}
	}
	return sent, shed
}

// runOpenLoop sends o's arrivals to workers goroutines that call send for
// each; it returns once every sent arrival is answered.
func runOpenLoop(ctx context.Context, o openLoop, workers int, send func(arrival)) (sent, shed int64) {
	queue := make(chan arrival, max(1, min(int(o.rate*60), 1_000_000)))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range queue {
				send(a)
			}
		}()
	}
	sent, shed = dispatch(ctx, o, queue, wallClock{})
	close(queue)
	wg.Wait()
	return sent, shed
}

// closedLoop runs workers goroutines that each send the next request of the
// mix as soon as their last one is answered: the most the server answers at
// that concurrency. It returns the answers a second over measure, counted
// after a warm-up of warm (0 if ctx ends first). Requests in flight at the
// end finish normally.
func closedLoop(ctx context.Context, workers int, warm, measure time.Duration, send func(seq int64)) float64 {
	var next, done atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop.Store(true)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				send(next.Add(1) - 1)
				done.Add(1)
			}
		}()
	}
	if !(wallClock{}).sleepUntil(ctx, time.Now().Add(warm)) {
		return 0
	}
	from, start := done.Load(), time.Now()
	if !(wallClock{}).sleepUntil(ctx, start.Add(measure)) {
		return 0
	}
	return float64(done.Load()-from) / time.Since(start).Seconds()
}
