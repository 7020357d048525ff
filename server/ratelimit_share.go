package server

import (
	"context"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// The processes on one database share each client's rate (docs/decisions.md
// §14) without a statement per request: every ShareEvery each process pushes
// the buckets that allowed requests since its last push (storage's
// rate_limit_buckets) and reads back the buckets any process pushed lately,
// merging each into its own by taking the later time. Between two shares a
// process decides alone, from what it knew at the last one: that lag is the
// tolerance. When the database does not answer, each process goes on
// limiting on its own, never refusing for that.

// maxClockSkew is how far apart the processes' clocks may be for a push to
// be read by every other process: rows are read back from this much before
// the last two shares, and reading one twice changes nothing.
const maxClockSkew = 5 * time.Second

// rateSweepEvery is how often a process deletes the rows of full buckets.
const rateSweepEvery = time.Minute

// rateShare is one process's share of the rate limit: what pushes its
// limiter's buckets and merges the others'.
type rateShare struct {
	l     *limiter
	conn  *storage.Conn
	every time.Duration
	log   *slog.Logger

	mu        sync.Mutex // one share at a time (the ticker's, or a test's)
	failing   bool       // the last share failed: logged once, until one succeeds
	nextSweep time.Time
}

func newRateShare(l *limiter, store *storage.Store, every time.Duration, log *slog.Logger) *rateShare {
	if every <= 0 {
		every = DefaultRateShareEvery
	}
	return &rateShare{l: l, conn: store.Conn, every: every, log: log}
}

// run shares every r.every until ctx ends.
func (r *rateShare) run(ctx context.Context) {
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = r.share(ctx, r.l.now())
		}
	}
}

// share pushes what this process allowed, reads what every process pushed
// lately and merges it, at now; it logs the first failure of a run of them
// and the success that ends it.
func (r *rateShare) share(ctx context.Context, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, r.every+maxClockSkew) // a stuck database does not stop the next share
	defer cancel()
	err := r.exchange(ctx, now)
	switch {
	case ctx.Err() != nil && err != nil:
		// the server is closing, or the database took longer than a share
	case err != nil && !r.failing:
		r.failing = true
		r.log.Warn("rate limit: the counts shared with the other processes are out of reach; "+
			"this process limits on its own until the database answers", "error", err)
	case err == nil && r.failing:
		r.failing = false
		r.log.Info("rate limit: the counts shared with the other processes are back")
	}
	return err
}

func (r *rateShare) exchange(ctx context.Context, now time.Time) error {
	n := now.UnixNano()
	if pushes := r.l.takePushes(); len(pushes) > 0 {
		// On failure these are lost to the others (never to this process's
		// own buckets): the error is on the side of letting requests in.
		if err := r.conn.PushRateBuckets(ctx, pushes, n); err != nil {
			return err
		}
	}
	lookback := int64(2*r.every + maxClockSkew)
	rows, err := r.conn.RateBucketsSince(ctx, n-lookback, n)
	if err != nil {
		return err
	}
	r.l.merge(rows, n)
	if now.Before(r.nextSweep) {
		return nil
	}
	r.nextSweep = now.Add(rateSweepEvery)
	return r.conn.ForgetRateBuckets(ctx, n-lookback)
}

// takePushes returns what the buckets allowed since the last call, and
// starts counting anew.
func (l *limiter) takePushes() []storage.RateBucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.unpushed
	for _, b := range l.dirty {
		if b.used > 0 { // 0: forgotten since, and in unpushed
			out = append(out, l.pushOf(b))
			b.used = 0
		}
	}
	l.unpushed, l.dirty = nil, l.dirty[:0]
	return out
}

// pushOf is b as pushed: what it allowed since the last push, as time.
func (l *limiter) pushOf(b *bucket) storage.RateBucket {
	return storage.RateBucket{Key: hex.EncodeToString([]byte(b.hash)), TAT: b.tat, Pushed: b.used * l.per}
}

// merge takes the later of each bucket and its row (a bucket this process
// has not met is made from the row, so that a client gets no fresh bucket
// by moving to another process).
func (l *limiter) merge(rows []storage.RateBucket, now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, row := range rows {
		hash, err := hex.DecodeString(row.Key)
		if err != nil {
			continue // not a key this code writes
		}
		b := l.hashed(string(hash), now)
		b.tat = max(b.tat, row.TAT)
	}
}
